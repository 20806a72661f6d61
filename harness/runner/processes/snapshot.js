// The run's snapshot, <runDir>/state.json. The run's supervisor owns the state: it keeps it in
// memory, answers for it over its socket, and writes this file after every change (temporary file
// + rename: a reader never sees half a file). Nobody else writes it; others read it only where the
// supervisor is gone — to take down what a crashed run left behind, or for a post-mortem.
import fs from 'node:fs';
import path from 'node:path';
import { runIdOf } from '../common/run-dir.js';

export const stateFile = (runDir) => path.join(runDir, 'state.json');

/** The supervisor's socket: an abstract one (no file), named after the run folder. */
export const socketPath = (runDir) => `\0scaling-lab-supervisor-${runIdOf(runDir)}`;

/** The last snapshot the supervisor wrote, as written (with its `savedAt`), or undefined. */
export function readSnapshot(runDir) {
  try { return JSON.parse(fs.readFileSync(stateFile(path.resolve(runDir)), 'utf8')); } catch { return undefined; }
}

/** For the supervisor alone. The run folder is not created: a run whose folder was removed is gone. */
export function writeSnapshot(state) {
  const tmp = `${stateFile(state.runDir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ ...state, savedAt: new Date().toISOString() }, null, 2)}\n`);
  fs.renameSync(tmp, stateFile(state.runDir));
}

export function removeSnapshot(runDir) {
  fs.rmSync(stateFile(path.resolve(runDir)), { force: true });
}

/** One instance record of the state, or a one-line error naming what exists. */
export function findInstance(state, service, index) {
  const entry = state?.services?.[service];
  if (!entry)
    throw new Error(
      `no running service '${service}'${state ? ` (running: ${Object.keys(state.services).join(', ')})` : ''}`,
    );
  const inst = entry.instances.find((i) => i.index === Number(index));
  if (!inst) throw new Error(`${service} has no instance ${index} (1..${entry.instances.length})`);
  return { entry, inst };
}
