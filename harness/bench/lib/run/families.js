// One deployment for a topology at several CPU budgets: started where its first block runs and
// moved (the runner's `place`) before the next budget's blocks, so its runtime's warm-up is paid
// once, not once per budget. Only for an app whose runtime does not size itself from the CPUs it
// starts with: a .NET process keeps the thread pool and GC heaps it sized at start-up, so one
// started at 2 CPUs and moved to 1 is not what a team runs at 1 CPU (x-bench.movable). Only where
// the engine's Runner can move a running deployment and the run is pinned; otherwise each budget
// gets a deployment of its own.
import { describeSample } from '../samples.js';
import { deploymentKey } from '../topologies.js';
import { availableCpus, formatCpuList } from '../../../runner/index.js';

const sortedEnv = (env) =>
  Object.entries(env)
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/**
 * The key of a cell's deployment across budgets: its app, its knobs but the per-instance CPUs, its
 * engine. An app that is not movable (x-bench.movable: its runtime sizes itself from the CPUs it
 * starts with) keeps a deployment per budget.
 */
export function familyKey(c) {
  const app = describeSample(c.topology.sample);
  if (!app.movable) return `${deploymentKey(c.topology)}${c.engine ? `~${c.engine}` : ''}`;
  const env = { ...c.topology.env };
  if (app.knobs.cpus) delete env[app.knobs.cpus];
  const tag = c.topology.tag ? `#${c.topology.tag}` : '';
  return `${c.topology.sample}[${sortedEnv(env)}]${c.engine ? `~${c.engine}` : ''}${tag}`;
}

/** Where a cell's topology must sit: the run's cpuset, its budget, and its app's quota per instance. */
export function cellPlacement(c, iso) {
  const t = c.topology;
  const cpuset = t.cpuset === 'all' ? formatCpuList(availableCpus()) : iso.sutCpus;
  const app = describeSample(t.sample);
  return { cpuset, budget: c.budget ?? t.budgetCpus, cpus: t.cpusPerInstance ? { [app.app]: t.cpusPerInstance } : {} };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Whether a scenario's deployments can be moved between budgets (interleaved, pinned, a Runner with place).
 * @param {any} scenario @param {import('../../../runner/index.js').Runner} runner @param {any} iso
 */
export const canPlace = (scenario, runner, iso) =>
  Boolean(scenario.interleaved && iso.pinned && typeof runner?.place === 'function');

/**
 * Moves each deployment of a block's cells to where the block wants it, once per change. run.depOf
 * gives a cell's deployment: { handle, placed }.
 */
export async function placeBlock(run, cells) {
  for (const c of cells) {
    const d = run.deploymentOf(c);
    if (!d?.handle) continue;
    const want = cellPlacement(c, run.ctx.isolation);
    if (same(d.placed, want)) continue;
    run.ctx.hooks.phase?.(`moving ${c.topology.label} to ${want.budget} CPU (CPU ${want.cpuset})`);
    await d.handle.runner.place({ runDir: d.runDir, ...want });
    d.placed = want;
  }
}
