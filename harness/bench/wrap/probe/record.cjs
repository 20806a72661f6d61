// Loaded first (--require) into each node the start command runs while the entry probe runs it
// (../entry-probe.js), before that node runs any of the program it was given. Node itself has read
// the command line by then, so its options, the program and the program's arguments are Node's own
// reading. Appends one JSON line to BENCH_PROBE_OUT and, for the program that serves, exits 0 before
// it runs:
//   { kind: 'entry', execPath, execArgv, entry, args, cwd, env }  the Node program and how to start it
//   { kind: 'missing', entry }                                    node was given a file that isn't there
//   { kind: 'eval' }                                              node -e/-p, or no program (stdin, REPL)
//   { kind: 'spawn', file, args, cwd, env }                       a command runner's command (below)
// npm (npm start, npm run, npx) and a command runner whose arguments name a command (cross-env
// NODE_ENV=production node app.js, dotenv -- node app.js) are let run, up to the command they start:
// that command is recorded, not started, and the probe goes on from it. A package's own program
// (json-server, fastify start, nodemon, tsx) is recorded as the entry, then let run for at most
// FOLLOW_MS, until it listens (it serves itself: the entry stands) or starts a command (recorded, not
// started: it starts the server in a child, and the probe goes on from that). node run on the app's
// own file always stops before it; a package's program may load the app's files before it listens
// (fastify start loads app.js).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const childProcess = require('node:child_process');

const out = process.env.BENCH_PROBE_OUT;
const FOLLOW_MS = 5000;
const self = __filename;

function write(record) {
  fs.appendFileSync(out, `${JSON.stringify({ pid: process.pid, ...record })}\n`);
}

// This node's own options, without the --require that loaded this file.
function ownExecArgv() {
  const argv = [...process.execArgv];
  const at = argv.findIndex((a, i) => a === self && ['--require', '-r'].includes(argv[i - 1]));
  if (at > 0) argv.splice(at - 1, 2);
  return argv.filter((a) => a !== `--require=${self}`);
}

const isNpm = (file) => /[\\/]npm[\\/]bin[\\/]np[mx]-cli\.js$/.test(file);

// Whether `word` names a program a command runner would start: node itself, or a package's program
// in a node_modules/.bin folder on PATH.
function namesACommand(word) {
  if (['node', 'nodejs'].includes(word)) return true;
  if (!/^[\w@.+-]+$/.test(word)) return false;
  return (process.env.PATH ?? '').split(':').filter((d) => d.endsWith(`node_modules${path.sep}.bin`))
    .some((d) => fs.existsSync(path.join(d, word)));
}

// child_process's envPairs ('NAME=value' strings) as an environment object.
const envOf = (pairs) => Object.fromEntries(pairs.filter((p) => p.indexOf('=') > 0)
  .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));

// A command runner's command: recorded with what it would have started it with, then this process ends.
function recordSpawn(file, args, options = {}) {
  const env = options.envPairs ? envOf(options.envPairs) : { ...(options.env ?? process.env) };
  write({ kind: 'spawn', file, args, cwd: path.resolve(options.cwd ?? process.cwd()), env });
  process.exit(0);
}

function holdCommands() {
  const proto = /** @type {any} */ (childProcess.ChildProcess.prototype);
  proto.spawn = function spawn(options) {
    return recordSpawn(options.file, options.args.slice(1), options);
  };
  const cp = /** @type {any} */ (childProcess);
  for (const name of ['spawnSync', 'execFileSync']) {
    cp[name] = (file, args, options) => recordSpawn(file, Array.isArray(args) ? args : [],
      Array.isArray(args) ? options : args);
  }
  cp.execSync = (command, options) => recordSpawn('/bin/sh', ['-c', command], options);
}

// A package's program that serves itself ends here, before it listens.
function holdListen() {
  const net = require('node:net');
  /** @type {any} */ (net.Server.prototype).listen = function listen() {
    process.exit(0);
  };
  setTimeout(() => process.exit(0), FOLLOW_MS);
}

function main() {
  const program = process.argv[1];
  if (/** @type {any} */ (process)._eval !== undefined || program === undefined) {
    write({ kind: 'eval' });
    return process.exit(0);
  }
  let entry;
  try {
    entry = /** @type {any} */ (Module)._resolveFilename(path.resolve(program), null, true);
  } catch {
    write({ kind: 'missing', entry: path.resolve(program) });
    return process.exit(0);
  }
  const args = process.argv.slice(2);
  if (isNpm(entry) || args.some(namesACommand)) return holdCommands();
  write({
    kind: 'entry', execPath: process.execPath, execArgv: ownExecArgv(), entry, args, cwd: process.cwd(),
    env: { ...process.env },
  });
  if (!entry.split(path.sep).includes('node_modules')) return process.exit(0);
  holdCommands();
  return holdListen();
}

main();
