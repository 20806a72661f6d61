// Warming a cell up until it is steady, and the least time that takes: a runtime's own floor on a
// deployment's first warm-up (x-bench.warmup_min_s), and its workload's on every cell.
import { describeSample } from '../topologies/app-descriptions.js';
import { round } from '../judge/stats.js';

// The seconds of load a started deployment needs before it is steady (x-bench.warmup_min_s):
// `process` once per deployment, or `process_per_cpu` for each process that shares a CPU (V8
// optimises each process on its own: a cluster of 2 on one CPU needs twice the wall time).
// `lentCpus`: the CPUs its warm-up runs under instead of its budget (lentCpus below).
export function processWarmupFloor(t, lentCpus = null) {
  const floors = describeSample(t.sample).warmupMinS;
  const perCpu = floors.process_per_cpu
    ? floors.process_per_cpu * Math.max(1, Math.ceil(t.processes / (lentCpus ?? (t.budgetCpus || 1))))
    : 0;
  return Math.max(floors.process ?? 0, perCpu);
}

/**
 * The CPUs a deployment's first warm-up may borrow: where its runtime's floor is CPU time per process
 * (x-bench.warmup_min_s process_per_cpu: V8 optimises on CPU time, which a 0.1-CPU quota hands out at
 * a tenth of the wall-clock rate) and its quotas or `budget` are below the `cpusInSet` CPUs it is
 * pinned to, the warm-up runs under all of them and its rounds under its own quotas again. Else null.
 * Only where the engine moves a running deployment (run/families.js canPlace).
 */
export function lentCpus(t, budget, cpusInSet) {
  if (!describeSample(t.sample).warmupMinS.process_per_cpu) return null;
  // Its own CPUs: its instances' quotas (t.budgetCpus), within the budget it is placed under.
  const own = Math.min(t.budgetCpus || Infinity, budget || Infinity);
  return own < cpusInSet ? cpusInSet : null;
}

/**
 * The least seconds a cell's warm-up takes: its workload's floor, and on the deployment's first
 * warm-up the runtime's (under `lent` CPUs where it borrows them).
 */
export function warmupFloor(cell, firstOnDeployment, lent = null) {
  const workload = describeSample(cell.topology.sample).warmupMinS[cell.workload] ?? 0;
  return Math.max(workload, firstOnDeployment ? processWarmupFloor(cell.topology, lent) : 0);
}

/**
 * Warm a cell up until it is steady: chunks of warmupChunkS until two in a row agree within
 * `steady` (JIT tiers, connection and database pools, caches settle at different speeds: a Node
 * process in seconds, .NET's tiered compilation and a database pool in tens of seconds), at least
 * warmupS and at most warmupMaxS. Returns { seconds, steady, rps: [per chunk] }.
 */
export async function warmUp(tool, { url, connections, threads, request = null }, p, steady = 0.03) {
  const chunk = p.warmupChunkS ?? 2;
  const rps = [];
  let spent = 0;
  while (spent < (p.warmupMaxS ?? p.warmupS)) {
    const r = await tool.run({ url, connections, durationS: chunk, threads, request });
    rps.push(round(r.rps));
    spent += chunk;
    const [prev, last] = rps.slice(-2);
    if (spent >= p.warmupS && rps.length >= 2 && Math.abs(last - prev) <= steady * Math.max(last, prev)) {
      return { seconds: spent, steady: true, rps };
    }
  }
  return { seconds: spent, steady: false, rps };
}
