// The state file, <runDir>/state.json: what is running, read by ps, scripts and the benchmark.
// Several processes write it (the `lab` command that started the run, its supervisor restarting
// an instance, a `make reload`), so every change is a read-modify-write under a lock file, and
// every write is atomic (temporary file + rename): a reader never sees half a file.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { REPO_ROOT } from '../lib/repo-root.js';

export const DEFAULT_RUN_DIR = path.join(REPO_ROOT, '.run');

export const stateFile = (runDir) => path.join(runDir, 'state.json');
const lockFile = (runDir) => path.join(runDir, 'state.json.lock');

/** A short id per run folder: names the run's cgroups and its supervisor's socket. */
export const runIdOf = (runDir) => crypto.createHash('sha1').update(path.resolve(runDir)).digest('hex').slice(0, 10);

export function readState(runDir = DEFAULT_RUN_DIR) {
  try { return JSON.parse(fs.readFileSync(stateFile(path.resolve(runDir)), 'utf8')); } catch { return undefined; }
}

function write(runDir, state) {
  fs.mkdirSync(runDir, { recursive: true });
  const tmp = `${stateFile(runDir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(tmp, stateFile(runDir));
}

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch (err) { return err.code === 'EPERM'; }
}

// Held only for the few milliseconds of a read-modify-write. A lock whose holder died is taken over.
function withLock(runDir, fn) {
  fs.mkdirSync(runDir, { recursive: true });
  const file = lockFile(runDir);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let holder;
      try { holder = Number(fs.readFileSync(file, 'utf8')); } catch { continue; } // released meanwhile
      // An empty file is a holder between create and write, or one that died right there.
      const stale = holder ? !alive(holder) : Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 2000;
      if (stale) { fs.rmSync(file, { force: true }); continue; }
      if (Date.now() > deadline) throw new Error(`${file} is held by pid ${holder}: remove it if that process is not a runner`, { cause: err });
      pause(5);
    }
  }
  try { return fn(); } finally { fs.rmSync(file, { force: true }); }
}

/** Creates (or replaces) the state file. */
export function writeState(state) {
  withLock(state.runDir, () => write(state.runDir, state));
}

/**
 * Read-modify-write: `change(state)` mutates the state in place; nothing is written when there is
 * no state file (the run was stopped meanwhile) or when `change` returns false. Returns the state
 * as written, or undefined.
 */
export function updateState(runDir, change) {
  const dir = path.resolve(runDir);
  return withLock(dir, () => {
    const state = readState(dir);
    if (!state) return undefined;
    if (change(state) === false) return undefined;
    write(dir, state);
    return state;
  });
}

export function removeState(runDir) {
  withLock(path.resolve(runDir), () => fs.rmSync(stateFile(path.resolve(runDir)), { force: true }));
}

/** One instance record of the state, or a one-line error naming what exists. */
export function findInstance(state, service, index) {
  const entry = state?.services?.[service];
  if (!entry) throw new Error(`no running service '${service}'${state ? ` (running: ${Object.keys(state.services).join(', ')})` : ''}`);
  const inst = entry.instances.find((i) => i.index === Number(index));
  if (!inst) throw new Error(`${service} has no instance ${index} (1..${entry.instances.length})`);
  return { entry, inst };
}
