// Processes by pid, read from /proc: alive or not, their children, their CPU time, and signals to
// them or their process group. Shared by the runner, the benchmark and the tests.
import fs from 'node:fs';
import { waitFor } from './poll.js';

const TICK_NS = 1e9 / 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux

/** Whether `pid` runs (a zombie counts as dead). */
export function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A zombie still answers kill(0); it is dead for our purposes.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function groupAlive(pgid) {
  try { process.kill(-pgid, 0); return true; } catch { return false; }
}

export function sendSignal(pid, signal, { group = false } = {}) {
  try { process.kill(group ? -pid : pid, signal); return true; } catch { return false; }
}

/** Whether `pid` exited within `ms`. */
export async function waitGone(pid, ms) {
  return waitFor(() => !isAlive(pid), { timeoutMs: ms }).then(() => true, () => false);
}

/** The live processes `pid` started itself (nginx workers, cluster workers), zombies left out. */
export function childPids(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
      .filter(isAlive).sort((a, b) => a - b);
  } catch {
    return [];
  }
}

/** CPU time of `pid` in ns: utime + stime + cutime + cstime (children it has reaped); 0 once gone. */
export function procCpuNs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_NS;
  } catch { return 0; }
}

/**
 * The pid `pid` has in its own pid namespace (what it logs as process.pid inside a container), or
 * undefined once gone. Outside any container it is `pid` itself.
 */
export function nsPidOf(pid) {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return line ? Number(line.trim().split(/\s+/).at(-1)) : pid;
  } catch { return undefined; }
}
