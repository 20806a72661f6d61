// Memory, threads and context switches of a set of processes, read from /proc: what both backends
// report per instance and per run (the processes backend's instances, the Docker backend's containers
// seen by their host pids).
import fs from 'node:fs';

// Proportional set size: shared pages are split between the processes that map them. Its anonymous
// and shared-memory part (heaps, stacks, JIT code) is shared only within a fork family — a cluster's
// primary and workers —, so its sum over a topology is what the topology holds whatever else runs.
// The file part (the node and dotnet binaries, libraries) is split with every process of the same
// binary on the machine, other topologies included, so a topology's PSS moves with its neighbours.
const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);

function memoryKiB(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pss = field(text, 'Pss') || 0;
    const anon = field(text, 'Pss_Anon') + field(text, 'Pss_Shmem');
    return { pss, rss: field(text, 'Rss') || 0, anon: Number.isFinite(anon) ? anon : pss };
  } catch {
    try {
      const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      return { pss: rss, rss, anon: rss };
    } catch { return { pss: 0, rss: 0, anon: 0 }; }
  }
}

// Threads and context switches of a process, summed over its threads (/proc/<pid>/status counts
// only the main thread's switches).
function schedOf(pid) {
  const out = { threads: 0, voluntary: 0, involuntary: 0 };
  let tids;
  try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tids) {
    try {
      const text = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      out.threads += 1;
      out.voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0);
      out.involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0);
    } catch { /* thread gone */ }
  }
  return out;
}

export function memoryOf(pids) {
  const mem = pids.map(memoryKiB);
  const sched = pids.map(schedOf);
  const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);
  const mib = (kib) => Math.round(kib / 102.4) / 10;
  return {
    pssMiB: mib(sum(mem, (m) => m.pss)),
    anonMiB: mib(sum(mem, (m) => m.anon)),
    rssMiB: mib(sum(mem, (m) => m.rss)),
    processes: pids.length,
    threads: sum(sched, (x) => x.threads),
    contextSwitches: { voluntary: sum(sched, (x) => x.voluntary), involuntary: sum(sched, (x) => x.involuntary) },
  };
}
