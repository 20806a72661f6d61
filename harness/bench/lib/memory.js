// Resident memory of a topology's app processes (instances and their children, e.g. cluster
// workers), read from /proc right after a measurement, while the heaps are warm.
import fs from 'node:fs';
import { childPids } from '../../runner/processes.js';

function rssKiB(pid) {
  try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0); } catch { return 0; }
}

export function appMemory(pids) {
  const all = pids.flatMap((pid) => [pid, ...childPids(pid)]);
  return { processes: all.length, rssMiB: Math.round(all.reduce((sum, pid) => sum + rssKiB(pid), 0) / 1024) };
}
