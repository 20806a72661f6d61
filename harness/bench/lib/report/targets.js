// The samples' performance targets, each checked as a ratio of two results of the same run.
import { TARGETS } from '../scenarios.js';
import { ratio } from './format.js';

// Any closed-loop result of the run with that topology and workload (the plan measures each once).
const find = (results, topology, workload) => results.find((r) => r.kind === 'closed' && r.status === 'ok'
  && r.topology.label === topology.label && r.workload === workload);

export function checkTargets(results) {
  return TARGETS.map((t) => {
    const a = find(results, t.a, t.workload);
    const b = find(results, t.b, t.workload);
    const value = ratio(a?.rps, b?.rps);
    const perUnit = value === null ? null : value / (t.per ?? 1);
    const bound = Boolean(a?.generatorBound || b?.generatorBound);
    return { ...t, aRps: a?.rps ?? null, bRps: b?.rps ?? null, value: perUnit, met: perUnit === null ? null : perUnit >= t.min, generatorBound: bound };
  }).filter((c) => !(c.fullOnly && c.value === null)); // full-run-only targets are not "missing" in a quick run
}

// Resident memory after a light-JSON run: one .NET process beside a Node cluster (primary + workers).
export function memoryRows(results) {
  const rows = results.filter((r) => r.kind === 'closed' && r.status === 'ok' && r.workload === 'light' && r.memory
    && ['dotnet-process', 'node-cluster', 'node-process'].includes(r.topology.family) && !/CPU/.test(r.topology.label)) // runs without a quota
    .map((r) => ({ label: r.topology.label, processes: r.memory.processes, rssMiB: r.memory.rssMiB }));
  return [...new Map(rows.map((r) => [r.label, r])).values()];
}
