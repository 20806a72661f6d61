// The start command as npm and sh mean it, and the Node entry the cluster module and PM2 fork, found
// from what the shell itself does with it. Nothing here expands a word or reads a Node option:
//   - npm's environment: `npm start` itself is run, with npm's own script shell held (probe/record.cjs
//     records the `sh -c <script>` npm would start, with npm's environment, and stops there);
//   - the entry: the script is run once by `sh -c`, with probe/node first on PATH: every node it
//     reaches (directly, through a package's `#!/usr/bin/env node` program, npx, npm run, cross-env)
//     is the real node loading probe/record.cjs first, which records the program, its options and
//     arguments as Node read them, and the environment, then exits before the program runs.
// Only a script that is one simple command naming a Node program is run this way (shell-script.js):
// a list (a && b), a pipeline or a redirection would run its other commands, so it is never probed
// and runs only as one `sh -c` process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { attempt, read } from './listening.js';
import { shapeOf } from './shell-script.js';

const PROBE_DIR = path.join(import.meta.dirname, 'probe');
const RECORD = path.join(PROBE_DIR, 'record.cjs');
const PROBE_MS = 30_000;
const MAX_DEPTH = 6;
// Set for the probe only: npm never asks the network nor runs a package it would have to download.
const PROBE_NPM = { npm_config_update_notifier: 'false', npm_config_yes: 'false', npm_config_offline: 'true' };

/** A start command that can't start: one line (`message`), and what it printed last (`output`). */
export class StartError extends Error {
  /** @param {string} message @param {string} [output] */
  constructor(message, output = '') {
    super(message);
    this.name = 'StartError';
    this.output = output;
  }
}

const withoutProbe = (value) => (value ?? '').split(':').filter((d) => d && d !== PROBE_DIR).join(':');

// The environment a recorded process had, less what the probe put there (its `node` first on PATH,
// its own variables), as the process would have had it outside the probe.
function cleanEnv(env, base) {
  const own = Object.entries(env).filter(([k]) => !k.startsWith('BENCH_PROBE_') && !(k in PROBE_NPM));
  const npm = Object.keys(PROBE_NPM).filter((k) => base[k] !== undefined).map((k) => [k, base[k]]);
  return Object.fromEntries([...own, ...npm, ['PATH', withoutProbe(env.PATH)]]);
}

/** A program word → the file execvp would run: a path as given, else the first on PATH. */
export function lookUp(word, env, cwd) {
  const candidates = word.includes('/')
    ? [path.resolve(cwd, word)]
    : withoutProbe(env.PATH).split(':').map((d) => path.join(path.resolve(cwd, d), word));
  return candidates.find((f) => attempt(() => {
    fs.accessSync(f, fs.constants.X_OK);
    return fs.statSync(f).isFile();
  }, false)) ?? null;
}

/**
 * What a program file is, for the probe: 'node' (node itself), 'shebang' (a script starting
 * `#!/usr/bin/env node`: it reaches the probe's node), 'pinned' (a Node script naming node by its
 * path), or 'other'.
 */
export function kindOfProgram(file) {
  const real = fs.realpathSync(file);
  if (['node', 'nodejs'].includes(path.basename(real)) || real === fs.realpathSync(process.execPath)) return 'node';
  let head = '';
  try {
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(256);
    head = buf.subarray(0, fs.readSync(fd, buf, 0, 256, 0)).toString('latin1').split('\n')[0];
    fs.closeSync(fd);
  } catch { /* unreadable: not ours to run */ }
  if (/^#!\s*\S*\/env\s+(-S\s+)?node(js)?(\s|$)/.test(head)) return 'shebang';
  if (/^#!\s*\S*\/node(js)?(\s|$)/.test(head)) return 'pinned';
  return 'other';
}

const lastLines = (text, n = 15) => text.trim().split('\n').slice(-n).join('\n');

/** Runs `file args` once under the probe's node; what it recorded (or null), exit status and output. */
function runProbe({ file, args, env, cwd }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-probe-'));
  const out = path.join(dir, 'records.jsonl');
  try {
    const realNode = lookUp('node', env, cwd) ?? process.execPath;
    const res = spawnSync(file, args, {
      cwd,
      env: {
        ...env, ...PROBE_NPM, PATH: `${PROBE_DIR}:${withoutProbe(env.PATH)}`,
        BENCH_PROBE_NODE: realNode, BENCH_PROBE_RECORD: RECORD, BENCH_PROBE_OUT: out,
      },
      encoding: 'utf8',
      timeout: PROBE_MS,
      killSignal: 'SIGKILL',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const records = read(out).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return {
      // A command a program started wins over the program itself (a package's program that starts
      // the server in a child: its entry is recorded first, then the command).
      record: records.find((r) => r.kind === 'spawn') ?? records[0] ?? null,
      status: res.status,
      signal: res.signal,
      timedOut: /** @type {NodeJS.ErrnoException} */ (res.error)?.code === 'ETIMEDOUT',
      output: lastLines(`${res.stdout ?? ''}\n${res.stderr ?? ''}`),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The shell's value of one word of a script (a quoted or expanded program name), without running it.
 * @param {string} wordText @param {Record<string, string>} env @param {string} cwd
 */
function expandWord(wordText, env, cwd) {
  const res = spawnSync('/bin/sh', ['-c', `set -- ${wordText}; printf '%s' "$1"`], { cwd, env, encoding: 'utf8' });
  return res.status === 0 ? res.stdout : '';
}

/**
 * @typedef {{ execPath: string, execArgv: string[], entry: string, args: string[], cwd: string,
 *   env: Record<string, string> }} NodeEntry
 * @typedef {{ kind: 'node' | 'shell' | 'program', node?: NodeEntry, why?: string }} Resolved
 *   kind 'node': the program to fork (node); otherwise why there is none (why)
 */

/** @returns {Resolved} A program the probe does not follow: one the cluster module and PM2 can't fork. */
const notNode = (said, name, kind) => ({ kind: 'program', why: `${said} runs ${name}, ${kind === 'other'
  ? 'which is not a Node program' : 'a Node program naming node by its own path'}` });

// What one record means: the entry, a command to follow, or why there is no entry.
function fromRecord(probe, { said, env, depth }) {
  const { record: r } = probe;
  if (r.kind === 'entry') {
    const { execPath, execArgv, entry, args, cwd } = r;
    return { kind: 'node', node: { execPath, execArgv, entry, args, cwd, env: cleanEnv(r.env, env) } };
  }
  if (r.kind === 'missing') {
    throw new StartError(`${said} runs node on ${r.entry}, which is not there: build the app first, or fix the path`);
  }
  if (r.kind === 'eval' || r.kind === 'run') {
    const how = r.kind === 'run' ? 'node --run runs a package.json script itself' : 'node runs code given inline';
    return { kind: 'program', why: `${how}, so there is no entry file to fork` };
  }
  const spawnedEnv = cleanEnv(r.env, env);
  const [flag, script] = r.args;
  if (['sh', 'bash', 'dash'].includes(path.basename(r.file)) && flag === '-c') {
    return resolveEntry({ script, env: spawnedEnv, cwd: r.cwd, said: `\`${script}\` (run by ${said})` }, depth + 1);
  }
  return followCommand({ file: r.file, args: r.args, env: spawnedEnv, cwd: r.cwd, said }, depth + 1);
}

// A program a command runner would start (cross-env … node app.js): probed in turn if it is Node's.
function followCommand({ file, args, env, cwd, said }, depth) {
  const found = lookUp(file, env, cwd);
  if (!found) throw new StartError(`${said} runs ${file}, which is not on PATH nor a file`);
  const kind = kindOfProgram(found);
  if (kind === 'other' || kind === 'pinned') return notNode(said, path.basename(found), kind);
  // node itself as the probe's node; a `#!/usr/bin/env node` script reaches it through PATH.
  return probed({ file: kind === 'node' ? path.join(PROBE_DIR, 'node') : found, args, env, cwd, said }, depth);
}

function probed({ file, args, env, cwd, said }, depth) {
  if (depth > MAX_DEPTH) throw new StartError(`${said}: more than ${MAX_DEPTH} commands deep, given up`);
  const probe = runProbe({ file, args, env, cwd });
  if (probe.record) return fromRecord(probe, { said, env, depth });
  if (probe.timedOut) {
    throw new StartError(`${said} did not reach a Node program within ${PROBE_MS / 1000} s`, probe.output);
  }
  if (probe.status !== 0) {
    const how = probe.signal ? `was killed by ${probe.signal}` : `exited with code ${probe.status}`;
    throw new StartError(`${said} ${how} before it started any Node program`, probe.output);
  }
  return { kind: 'program', why: `${said} started no Node program` };
}

/**
 * The Node entry of a start script, as `sh -c <script>` in `cwd` with `env` would start it.
 * @param {{ script: string, env: Record<string, string>, cwd: string, said: string }} what
 * @returns {Resolved}
 */
export function resolveEntry({ script, env, cwd, said }, depth = 0) {
  let shape;
  try {
    shape = shapeOf(script);
  } catch (err) {
    throw new StartError(`${said}: ${err.message}`);
  }
  if (shape.empty) throw new StartError(`${said} is empty: it runs nothing`);
  if (shape.compound) {
    return { kind: 'shell', why: `${said} is ${shape.compound}, which sh runs as one process: no one Node entry` };
  }
  if (!shape.program) throw new StartError(`${said} names no program: \`${script}\` only sets variables`);
  const word = shape.program.literal ? shape.program.text : expandWord(shape.program.text, env, cwd);
  const found = word ? lookUp(word, env, cwd) : null;
  if (!found) {
    throw new StartError(`${said} names no program: ${word || shape.program.text} is not on PATH, `
      + 'nor in node_modules/.bin (is the package installed?), nor a file');
  }
  const kind = kindOfProgram(found);
  if (kind !== 'node' && kind !== 'shebang') return notNode(said, word, kind);
  return probed({ file: '/bin/sh', args: ['-c', script], env, cwd, said }, depth);
}

/**
 * What `npm start` runs in `dir` and the environment npm gives it (or, with `start`, that command in
 * the environment npm gives a script): { script, env }. npm itself is run; its script is not.
 * @param {{ dir: string, start?: string, env?: Record<string, string> }} what
 */
export function npmStart({ dir, start, env = /** @type {Record<string, string>} */ (process.env) }) {
  const npm = lookUp('npm', env, dir);
  if (!npm) throw new StartError('npm is not on PATH: the bench runs a Node folder\'s start command as npm start does');
  const args = start === undefined ? ['start', '--ignore-scripts'] : ['exec', '--ignore-scripts', '-c', start];
  const probe = runProbe({ file: npm, args, env, cwd: dir });
  const r = probe.record;
  if (r?.kind !== 'spawn' || r.args[0] !== '-c') {
    throw new StartError(`npm ${args[0]} in ${dir} ${probe.status ? `failed (exit ${probe.status})` : 'ran no script'}`,
      probe.output);
  }
  const scriptEnv = cleanEnv(r.env, env);
  if (scriptEnv.npm_config_ignore_scripts === 'true' && env.npm_config_ignore_scripts === undefined) {
    delete scriptEnv.npm_config_ignore_scripts;
  }
  if (start !== undefined) {
    delete scriptEnv.npm_config_call;
    Object.assign(scriptEnv, { npm_command: 'start', npm_lifecycle_event: 'start', npm_lifecycle_script: start });
  }
  return { script: r.args[1], env: scriptEnv };
}
