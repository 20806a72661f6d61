// The command of an app the bench generated from a user's Node folder (lib/apps/node-folder.js):
// runs the user's own start command, unchanged, as the strategy asks —
//   BENCH_CLUSTERING=false          one process: this process becomes the app (execve), nothing around it
//   BENCH_PROCESS_MANAGER=cluster   the cluster module: a primary forking BENCH_WORKERS workers of the entry
//   BENCH_PROCESS_MANAGER=pm2       pm2-runtime, cluster mode, BENCH_WORKERS instances of the entry
//   BENCH_PROCESS_MANAGER=reuseport BENCH_WORKERS independent processes on one PORT (the app opted in)
// Every process runs in the app's folder with PORT as the runner set it. One line and exit 2 when
// the strategy can't run this command.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { appEnv, drainMs, expand, fail, log, nodeArgs, readLaunch, workerCount } from './launch-spec.js';
import { runCluster } from './cluster.js';
import { runReusePort } from './reuseport.js';

const MANAGERS = ['cluster', 'pm2', 'reuseport'];

/** What to run: 'one' or a process manager's name, from the launcher's environment. */
export function modeOf(env) {
  if ((env.BENCH_CLUSTERING ?? '').trim() === 'false') return 'one';
  const pm = (env.BENCH_PROCESS_MANAGER ?? '').trim() || 'cluster';
  if (!MANAGERS.includes(pm)) return fail(`BENCH_PROCESS_MANAGER must be one of ${MANAGERS.join(', ')}, got "${pm}"`);
  return pm;
}

// A program named without a slash, looked up on PATH as a shell would (execve takes a path).
function onPath(program, env) {
  if (program.includes('/')) return path.resolve(program);
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const file = path.join(dir, program);
    try { fs.accessSync(file, fs.constants.X_OK); return file; } catch { /* next */ }
  }
  return fail(`${program}: not found on PATH (the start command's program)`);
}

function runOne(spec) {
  const env = appEnv(spec);
  const argv = spec.node ? [process.execPath, ...nodeArgs(spec)] : spec.argv.map((t) => expand(t));
  const file = spec.node ? process.execPath : onPath(argv[0], env);
  log(`one process: ${argv.join(' ')}`);
  process.execve(file, argv, env);
}

function runPm2(spec, count) {
  const require = createRequire(import.meta.url);
  const runtime = require.resolve('pm2/bin/pm2-runtime');
  const config = path.join(path.dirname(new URL(import.meta.url).pathname), 'pm2.config.cjs');
  const app = {
    entry: expand(spec.node.entry),
    args: spec.node.args.map((t) => expand(t)),
    node_args: spec.node.execArgv.map((t) => expand(t)),
    cwd: spec.dir, env: appEnv(spec), instances: count, drainMs: drainMs(),
  };
  const env = {
    ...appEnv(spec), BENCH_PM2_APP: JSON.stringify(app), PM2_KILL_SIGNAL: 'SIGTERM',
    // No daily call to PM2's version-check server; its sockets and pid files in the instance's folder.
    PM2_DISABLE_VERSION_CHECK: 'true',
    PM2_HOME: process.env.PM2_HOME ?? path.join(os.tmpdir(), `bench-pm2-${process.pid}`),
  };
  log(`pm2: ${count} instance(s) of ${spec.node.entry}`);
  process.execve(process.execPath, [process.execPath, runtime, config], env);
}

function main() {
  const spec = readLaunch();
  try { process.chdir(spec.dir); } catch (err) { fail(`cannot enter the app's folder ${spec.dir}: ${err.message}`); }
  const mode = modeOf(process.env);
  if (mode === 'one') return runOne(spec);
  if (!spec.node) {
    fail(`${mode} needs a Node entry, and the start command \`${spec.argv.join(' ')}\` is not \`node <file>\` `
      + 'nor a package\'s Node program');
  }
  const count = workerCount(process.env, os.availableParallelism());
  if (mode === 'cluster') return runCluster(spec, count, drainMs());
  if (mode === 'pm2') return runPm2(spec, count);
  if (!Number(process.env.PORT)) fail('reusePort needs a fixed PORT: with none each process gets a port of its own');
  return runReusePort(spec, count, drainMs());
}

if (process.argv[1] === new URL(import.meta.url).pathname) main();
