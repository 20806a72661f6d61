// What a running topology costs: CPU time used (from its cgroups, or the processes' utime+stime
// where cgroups can't be written), CFS throttling per instance, resident memory of every process
// (nginx and cluster workers included), threads and context switches.
import fs from 'node:fs';
import { memoryOf } from '../common/memory.js';
import * as cgroup from '../common/cgroup.js';
import { childPids, procCpuNs } from '../../lib/processes.js';

function descendants(pid) {
  const out = [pid];
  for (const child of childPids(pid)) out.push(...descendants(child));
  return out;
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
