// What the fault drill needs to kill one worker inside a container (a cluster primary's) and see
// it replaced: the container's processes seen from this host by their host pids, and its log.
import fs from 'node:fs';
import { childPids } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { docker, findContainer } from './project.js';
import { recordOf } from './record.js';

// compose's `init: true` puts Docker's init (tini) first; the program is its one child.
const INITS = new Set(['docker-init', 'tini', 'tini-static']);

function mainProcess(pid) {
  let comm;
  try { comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { return pid; }
  const children = childPids(pid);
  return INITS.has(comm) && children.length === 1 ? children[0] : pid;
}

/**
 * The host pids of the processes a container's main program started (a cluster primary's workers).
 * @param {{ runDir?: string, service: string, index: number }} options @returns {Promise<number[]>}
 */
export async function workerPids({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const c = findContainer(recordOf(runDir), service, index);
  return c.running ? childPids(mainProcess(c.pid)) : [];
}

/**
 * { read() }: what the container has logged (`docker logs`) since the reader was made.
 * @param {{ runDir?: string, service: string, index: number }} options @returns {Promise<{ read: () => Promise<string>
 * }>}
 */
export async function logReader({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const record = recordOf(runDir);
  const { id } = findContainer(record, service, index);
  const since = (Date.now() / 1000).toFixed(3);
  return {
    read: async () => {
      const res = docker(record, ['logs', '--since', since, id], { check: false, timeout: 30_000 });
      return `${res.stdout ?? ''}${res.stderr ?? ''}`;
    },
  };
}
