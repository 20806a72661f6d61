// What a running topology costs: CPU time used (from its cgroups, or the processes' utime+stime
// where cgroups can't be written), CFS throttling per instance, resident memory of every process
// (nginx and cluster workers included), threads and context switches.
import fs from 'node:fs';
import * as cgroup from './cgroup.js';
import { childPids, procCpuNs } from '../lib/processes.js';

function descendants(pid) {
  const out = [pid];
  for (const child of childPids(pid)) out.push(...descendants(child));
  return out;
}

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

const liveInstances = (state) => Object.entries(state.services ?? {})
  .filter(([, entry]) => !entry.oneshot && !entry.skipped)
  .flatMap(([service, entry]) => (entry.instances ?? []).map((inst) => ({ service, inst })));

/** Every pid of a topology: its cgroups' members, else each instance's process tree. */
export function topologyPids(state) {
  const fromGroups = state.cpuLimits?.enforced ? cgroup.runPids(state.runId) : [];
  if (fromGroups.length) return fromGroups;
  return liveInstances(state).flatMap(({ inst }) => descendants(inst.pid));
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

/**
 * A snapshot of a topology's cost. Take one before and one after a measurement and subtract
 * cpuNs. Returns { source, cpuNs, instances: [{service, index, name, cpuNs, throttling, memory}],
 * throttling, memory: { pssMiB, anonMiB, rssMiB, processes } } — memory and processes summed over everything.
 */
export function usage(state) {
  const byGroup = state.cpuLimits?.enforced;
  const instances = liveInstances(state).map(({ service, inst }) => {
    const own = byGroup ? cgroup.instancePids(state.runId, inst.name) : [];
    const pids = own.length ? own : descendants(inst.pid).filter((p) => fs.existsSync(`/proc/${p}`));
    return {
      service,
      index: inst.index,
      name: inst.name,
      cpuNs: byGroup ? cgroup.cpuUsageNs(state.runId, inst.name) : pids.reduce((s, p) => s + procCpuNs(p), 0),
      throttling: byGroup ? cgroup.throttling(state.runId, inst.name) : null,
      memory: memoryOf(pids),
    };
  });
  const runNs = byGroup ? cgroup.cpuUsageNs(state.runId) : null;
  return {
    source: byGroup && runNs !== null ? state.cpuLimits.accounting : 'proc utime+stime',
    cpuNs: runNs ?? instances.reduce((s, i) => s + (i.cpuNs ?? 0), 0),
    instances,
    throttling: byGroup ? cgroup.throttling(state.runId) : null,
    memory: memoryOf(topologyPids(state)),
  };
}
