// The command of an app the bench generated from a user's Node folder (lib/apps/node-folder.js):
// runs the user's own start command as npm start would — `sh -c <script>` in the app's folder with
// npm's environment — as the strategy asks:
//   BENCH_CLUSTERING=false          one process: `sh -c` with `exec` before the last command, so the app
//                                   becomes this process (execve), nothing around it
//   BENCH_PROCESS_MANAGER=cluster   the cluster module: a primary forking BENCH_WORKERS workers of the entry
//   BENCH_PROCESS_MANAGER=pm2       pm2-runtime, cluster mode, BENCH_WORKERS instances of the entry
//   BENCH_PROCESS_MANAGER=reuseport BENCH_WORKERS independent processes on one PORT (the app opted in)
// The entry is found by running the script once under the entry probe (entry-probe.js) with this
// instance's environment, PORT included. One line and exit 2 when the strategy can't run this command.
import os from 'node:os';
import path from 'node:path';
import cluster from 'node:cluster';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { childWorker } from '../../../node-cluster/src/child-worker.js';
import { appEnv, drainMs, fail, log, readLaunch, workerCount } from './launch-spec.js';
import { resolveEntry, StartError } from './entry-probe.js';
import { listeningPorts } from './listening.js';
import { supervise } from './supervise.js';

const MANAGERS = ['cluster', 'pm2', 'reuseport'];

/** What to run: 'one' or a process manager's name, from the launcher's environment. */
export function modeOf(env) {
  if ((env.BENCH_CLUSTERING ?? '').trim() === 'false') return 'one';
  const pm = (env.BENCH_PROCESS_MANAGER ?? '').trim() || 'cluster';
  if (!MANAGERS.includes(pm)) return fail(`BENCH_PROCESS_MANAGER must be one of ${MANAGERS.join(', ')}, got "${pm}"`);
  return pm;
}

// The cluster module around an app that knows nothing of it: this process is the primary and forks
// `count` workers of the app's own entry, each run as `node <entry>` would be, with the entry's own
// options, arguments, folder and environment; their server.listen(PORT) goes through the primary,
// which shares one listening socket among them and serves nothing. The workers are kept by supervise.js.
/** @param {import('./entry-probe.js').NodeEntry} node @param {number} count */
function runCluster(node, count) {
  cluster.setupPrimary({ exec: node.entry, args: node.args, execArgv: node.execArgv, cwd: node.cwd });
  // cluster.fork() starts a worker with this process's environment: the entry's, exactly (the
  // launchers' BENCH_* settings never reach the app).
  const port = Number(process.env.PORT);
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, node.env);
  log(`cluster primary: ${count} worker(s) of ${node.entry}`);
  // An app may listen on more than one port (metrics, admin): the one that counts is PORT.
  supervise({ workers: count, drainMs: drainMs(), name: 'cluster', port });
}

// reusePort: `count` independent processes of the app's entry, all given the same PORT; an app that
// opted in listens with server.listen({ port, reusePort: true }) (Node >= 22.12 on Linux) and the
// kernel spreads connections over them, with no primary in between. They are kept by supervise.js;
// a process counts as listening once /proc shows it on PORT.
/** @param {import('./entry-probe.js').NodeEntry} node @param {number} count */
function runReusePort(node, count) {
  const port = Number(process.env.PORT);
  if (!port) fail('reusePort needs a fixed PORT: with none each process gets a port of its own');
  const args = [...node.execArgv, node.entry, ...node.args];
  log(`reusePort: ${count} process(es) of ${node.entry} on port ${port}`);
  const fork = () => {
    const worker = childWorker(spawn(node.execPath, args, { env: node.env, cwd: node.cwd, stdio: 'inherit' }));
    (async () => {
      while (!listeningPorts(worker.process.pid).includes(port)) {
        if (worker.isDead()) return;
        await sleep(100);
      }
      worker.emit('listening');
    })();
    return worker;
  };
  supervise({ workers: count, drainMs: drainMs(), name: 'reusePort', fork });
}

/** @param {import('./entry-probe.js').NodeEntry} node @param {number} count */
function runPm2(node, count) {
  const runtime = createRequire(import.meta.url).resolve('pm2/bin/pm2-runtime');
  const config = path.join(import.meta.dirname, 'pm2.config.cjs');
  const app = {
    entry: node.entry, args: node.args, node_args: node.execArgv, cwd: node.cwd, env: node.env,
    instances: count, drainMs: drainMs(),
  };
  const env = {
    ...node.env, BENCH_PM2_APP: JSON.stringify(app), PM2_KILL_SIGNAL: 'SIGTERM',
    // No daily call to PM2's version-check server; its sockets and pid files in the instance's folder.
    PM2_DISABLE_VERSION_CHECK: 'true',
    PM2_HOME: process.env.PM2_HOME ?? path.join(os.tmpdir(), `bench-pm2-${process.pid}`),
  };
  log(`pm2: ${count} instance(s) of ${node.entry}`);
  process.execve(process.execPath, [process.execPath, runtime, config], env);
}

// The Node entry of the start command, with this instance's environment (its PORT in the arguments).
function entryOf(spec, mode) {
  if (!spec.forks) return fail(`${mode} needs a Node entry to fork: ${spec.why}`);
  try {
    const found = resolveEntry({ script: spec.script, env: appEnv(spec), cwd: spec.dir, said: 'the start command' });
    return found.kind === 'node' ? found.node : fail(`${mode} needs a Node entry to fork: ${found.why}`);
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    if (err.output) process.stderr.write(`${err.output}\n`);
    return fail(err.message);
  }
}

function main() {
  const spec = readLaunch();
  try { process.chdir(spec.dir); } catch (err) { fail(`cannot enter the app's folder ${spec.dir}: ${err.message}`); }
  const mode = modeOf(process.env);
  if (mode === 'one') {
    log(`one process: sh -c ${spec.script}`);
    return process.execve('/bin/sh', ['sh', '-c', spec.execScript], appEnv(spec));
  }
  const node = entryOf(spec, mode);
  const count = workerCount(process.env, os.availableParallelism());
  return { cluster: runCluster, pm2: runPm2, reuseport: runReusePort }[mode](node, count);
}

// import.meta.main, not argv[1] against the module's URL: a URL's path is percent-encoded (a folder
// with a space) and resolves symbolic links, and then the two never matched.
if (import.meta.main) main();
