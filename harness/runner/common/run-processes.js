// Every live process on this host that belongs to a run folder, for leak checks: the processes
// backend gives each instance LAB_RUN_DIR in its environment; nginx rewrites its own (process
// title), so it, the supervisor and `docker compose` are found by the run folder on their command line.
import fs from 'node:fs';
import { isAlive } from '../../lib/processes.js';

/**
 * The live processes of runDir; `marker`: also any process with that text in its environment.
 * @param {string} runDir @param {{ marker?: string }} [options] @returns {number[]}
 */
export function runProcesses(runDir, { marker } = {}) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${name}/environ`, 'latin1');
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1');
      const ours =
        environ.includes(`LAB_RUN_DIR=${runDir}\0`) || (marker && environ.includes(marker)) || cmdline.includes(runDir);
      if (ours && isAlive(Number(name))) found.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return found;
}
