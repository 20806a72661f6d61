// Seconds a plan will take, roughly: for the estimate before it starts and the time left during it.
import { deploymentKey } from '../topologies/topology.js';
import { describeSample } from '../topologies/app-descriptions.js';
import { latencyRounds } from './measure-window.js';
import { warmupFloor, lentCpus } from './warmup.js';
import { familyKeysOf } from './families.js';

export const BUILD_S = 45;
export const PACED_CEILING_S = 15;
export const START_S = 3;
export const startupSeconds = (deployments, builds) => deployments * START_S + (builds ? BUILD_S : 0);

export const roundsOf = (c, p) => c.rounds ?? p.rounds;
export const windowOf = (c, p) => c.windowS ?? p.windowS;

// `lends`: the engine moves deployments, so a sub-CPU one warms up under a whole CPU (run/warmup.js).
const warmupCost = (cell, p, firstOnDeployment, lends = false) => {
  const lent = lends ? lentCpus(cell.topology, cell.budget, 1) : null;
  return Math.max(p.warmupExpectS ?? p.warmupS, warmupFloor(cell, firstOnDeployment, lent));
};

// A cell's latency window at a fixed rate: whole slices of latencySliceS, taken in turn with the others.
const PACED_OVERHEAD_S = 0.05; // per slice
export const latencySlicesOf = (c, p) =>
  Math.max(1, Math.round((p.latencyWindowS ?? windowOf(c, p)) / p.latencySliceS));
export const latencyWindowCost = (c, p) =>
  latencySlicesOf(c, p) * (p.latencySliceS + PACED_OVERHEAD_S) + (p.latencyWarmS ?? 0);
const latencyCost = (cell, p) =>
  latencyRounds(roundsOf(cell, p), cell.latencyRounds).size * latencyWindowCost(cell, p);
// Capacity at the latency target: a bisection of capacitySteps slices.
export const capacityCost = (cell, p) =>
  (cell.searchCapacity ? (p.capacitySteps ?? 0) * ((p.capacitySliceS ?? 1) + PACED_OVERHEAD_S) : 0);

// A cell's saturated window in a round: whole or in slices of cell.sliceS (each a wrk run of its own).
export const slicesOf = (c, p) => (c.sliceS ? Math.max(1, Math.round(windowOf(c, p) / c.sliceS)) : 1);
// A sliced window: wrk's start and stop around each slice; a whole one: its re-warm first.
export const closedCost = (c, p) => (c.sliceS ? slicesOf(c, p) * (c.sliceS + 0.06) : windowOf(c, p) + p.rewarmS + 0.4);

export function costOf(cell, p, firstOnDeployment = false, lends = false) {
  if (cell.kind === 'closed') {
    return warmupCost(cell, p, firstOnDeployment, lends) + roundsOf(cell, p) * closedCost(cell, p)
      + capacityCost(cell, p) + latencyCost(cell, p);
  }
  if (cell.kind === 'count') return 2 + roundsOf(cell, p) * (cell.expectS ?? 8);
  if (cell.kind === 'openloop') return 2 + p.maxSteps * (p.stepS + 1.5);
  if (cell.kind === 'fixedrate') return 5 + cell.requests / Math.min(cell.rate, cell.expectRps ?? cell.rate);
  // Drills: a restart takes seconds as processes, about three times as long as containers (the
  // drills' hand runs, harness/bench/README.md).
  const engine = cell.engine === 'docker' ? 3 : 1;
  if (cell.kind === 'fault') return 3 + engine * cell.kills * (cell.topology.runtime === 'dotnet' ? 5 : 3);
  if (cell.kind === 'rollout') {
    return 3 + engine * cell.topology.processes * (cell.topology.runtime === 'dotnet' ? 4 : 2);
  }
  if (cell.kind === 'stop' || cell.kind === 'scale-down') return 3 + engine * (cell.events ?? 2) * 6;
  return 15;
}

/**
 * @param {any} plan @param {{ moves?: boolean }} [options] moves: the
 * engine's Runner moves a deployment between budgets (run/families.js): one start and warm-up floor per family.
 */
export function estimateSeconds(plan, { moves = false } = {}) {
  const p = plan.params;
  // The closed-loop tool's ceiling, then the paced generator's search (about 15 s).
  let s = 2 * p.ceilingS + 2 + PACED_CEILING_S;
  const samples = new Set();
  for (const sc of plan.scenarios) {
    const keyOf = moves && sc.interleaved ? familyKeysOf(sc) : (c) => deploymentKey(c.topology);
    const deps = new Set(sc.cells.map(keyOf));
    for (const c of sc.cells) samples.add(c.topology.sample);
    s += deps.size * START_S;
    const seen = new Set();
    for (const c of sc.cells) {
      const key = keyOf(c);
      s += costOf(c, p, !seen.has(key), moves && sc.interleaved);
      seen.add(key);
    }
  }
  return Math.round(s + [...samples].filter((x) => describeSample(x).builds).length * BUILD_S);
}
