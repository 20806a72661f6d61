// One deployment for a topology at several CPU budgets: started where its first block runs and
// moved (the runner's `place`) before the next budget's blocks, so its runtime's warm-up is paid
// once, not once per budget. Only for an app whose runtime does not size itself from the CPUs it
// starts with: a .NET process keeps the thread pool and GC heaps it sized at start-up, so one
// started at 2 CPUs and moved to 1 is not what a team runs at 1 CPU (x-bench.movable). Only where
// the engine's Runner can move a running deployment and the run is pinned; otherwise each budget
// gets a deployment of its own.
import { describeSample } from '../topologies/app-descriptions.js';
import { deploymentKey } from '../topologies/topology.js';
import { blocksOf } from './interleave-blocks.js';
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
  if (!app.movable) return deploymentKeyOf(c);
  const env = { ...c.topology.env };
  if (app.knobs.cpus) delete env[app.knobs.cpus];
  const tag = c.topology.tag ? `#${c.topology.tag}` : '';
  return `${c.topology.sample}[${sortedEnv(env)}]${c.engine ? `~${c.engine}` : ''}${tag}`;
}

/** The key of a cell's own deployment: its topology's start, on its engine. */
export const deploymentKeyOf = (c) => `${deploymentKey(c.topology)}${c.engine ? `~${c.engine}` : ''}`;

const placementOf = (c) => `${c.topology.cpuset}/${c.budget ?? c.topology.budgetCpus}/${c.topology.cpusPerInstance}`;

/**
 * The deployment key of a scenario's cells where deployments move (familyKey), but for two cells of
 * one family that one block measures at different placements: its rounds take them in turn, and a
 * shared deployment sat wherever the block placed it last (an experiment's 1 container × 0.1 CPU was
 * measured at 0.4 CPU, its neighbour's quota: 0.40 CPU used, FULL run of 2026-11-28). Those get a
 * deployment each (deploymentKey).
 */
export function familyKeysOf(scenario) {
  const split = new Set();
  for (const block of blocksOf(scenario.cells, scenario.comparisons ?? [])) {
    const where = new Map();
    for (const c of block) {
      const k = familyKey(c);
      if (where.has(k) && where.get(k) !== placementOf(c)) split.add(k);
      else where.set(k, placementOf(c));
    }
  }
  return (c) => (split.has(familyKey(c)) ? deploymentKeyOf(c) : familyKey(c));
}

/**
 * Where a cell's topology must sit, as it was started (run/scenario.js): the run's cpuset, the cell's
 * budget (else the run's: an experiment's containers share the CPU left after the generator with its
 * nginx, each under its own quota), and its app's quota per instance.
 */
export function cellPlacement(c, iso) {
  const t = c.topology;
  const all = t.cpuset === 'all';
  return {
    cpuset: all ? formatCpuList(availableCpus()) : iso.sutCpus,
    budget: c.budget ?? (all ? undefined : iso.budgetCpus),
    cpus: t.cpusPerInstance ? { [describeSample(t.sample).app]: t.cpusPerInstance } : {},
  };
}

/**
 * Whether a scenario's deployments can be moved between budgets (interleaved, pinned, a Runner with place).
 * @param {any} scenario @param {import('../../../runner/index.js').Runner} runner @param {any} iso
 */
export const canPlace = (scenario, runner, iso) =>
  Boolean(scenario.interleaved && iso.pinned && typeof runner?.place === 'function');

/**
 * Moves each deployment of a block's cells to where the block wants it, once per change (run.deploymentOf
 * gives a cell's deployment: { handle, placed }); `lent`: the CPUs of its cpuset a deployment's warm-up
 * runs under instead, as its budget and each instance's quota (run/warmup.js lentCpus).
 */
export async function placeBlock(run, cells, lent = null) {
  for (const c of cells) {
    const d = run.deploymentOf(c);
    if (!d?.handle) continue;
    const own = cellPlacement(c, run.ctx.isolation);
    const cpus = lent ? Object.fromEntries(Object.keys(own.cpus).map((k) => [k, lent])) : own.cpus;
    const want = lent ? { ...own, budget: lent, cpus } : own;
    if (JSON.stringify(d.placed) === JSON.stringify(want)) continue;
    run.ctx.hooks.phase?.(lent
      ? `warm-up ${c.id} under ${lent} CPU (measured under its own quotas)`
      : `moving ${c.topology.label} to ${want.budget} CPU (CPU ${want.cpuset})`);
    await d.handle.runner.place({ runDir: d.runDir, ...want });
    d.placed = want;
  }
}
