// What the fault drill needs to kill one worker of an instance (a cluster primary's) and see it
// replaced: the processes the instance's main program started, and what the instance logs.
import fs from 'node:fs';
import path from 'node:path';
import { childPids } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { findInstance } from './snapshot.js';
import { readState } from './supervisor-client.js';

async function instanceOf(runDir, service, index) {
  const state = await readState(path.resolve(runDir));
  if (!state) throw new Error(`nothing running from ${runDir}`);
  return findInstance(state, service, index).inst;
}

/**
 * The pids of the processes an instance's main program started (a cluster primary's workers).
 * @param {{ runDir?: string, service: string, index: number }} options @returns {Promise<number[]>}
 */
export async function workerPids({ runDir = DEFAULT_RUN_DIR, service, index }) {
  return childPids((await instanceOf(runDir, service, index)).pid);
}

/**
 * { read() }: the text the instance has written to its log since the reader was made.
 * @param {{ runDir?: string, service: string, index: number }} options @returns {Promise<{ read: () => Promise<string>
 * }>}
 */
export async function logReader({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const file = (await instanceOf(runDir, service, index)).log;
  let offset = 0;
  try { offset = fs.statSync(file).size; } catch { /* nothing logged yet */ }
  return {
    read: async () => {
      try { return fs.readFileSync(file).subarray(offset).toString('utf8'); } catch { return ''; }
    },
  };
}
