// The load generator's own CPU use, by process accounting: this process (the paced generator and
// autocannon run in it) plus the children it has waited for (every wrk run ends before its window
// does). Where the generator shares the topology's CPUs (a budget of the whole machine), its share of
// the machine during each window is set beside the verdicts.
import fs from 'node:fs';

// Linux reports children's times in clock ticks of 1/100 s (USER_HZ; getconf CLK_TCK).
const TICK_MS = 10;

/** CPU milliseconds spent so far by this process and its waited-for children. */
export function generatorCpuMs() {
  const self = process.cpuUsage();
  let childrenTicks = 0;
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    childrenTicks = Number(fields[13]) + Number(fields[14]); // cutime, cstime
  } catch { /* no procfs: this process only */ }
  return (self.user + self.system) / 1000 + childrenTicks * TICK_MS;
}

/** A share of the whole machine (0..1): CPU ms over wall ms × the machine's CPUs. */
export function shareOfMachine(cpuMs, wallMs, cpus) {
  if (!(wallMs > 0) || !(cpus > 0) || !Number.isFinite(cpuMs)) return null;
  return Math.max(0, cpuMs) / (wallMs * cpus);
}
