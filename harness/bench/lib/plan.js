// What `make bench` measures: scenarios of cells. A cell is one topology under one workload; the
// cells of an interleaved scenario are measured in rounds (A B C, C B A, …) on deployments that
// are all up at once, pinned to the same CPUs under the same budget. Comparisons pair two cells
// of the same scenario, so their rounds pair up.
import { topology } from './topologies.js';
import { workloadPath } from './samples.js';
import { WORKLOADS } from './workloads.js';
import { EXPERIMENTS } from './experiments/index.js';
import { METRICS } from './metrics.js';

export { METRICS };

export const MODES = {
  // Default: about 10 minutes on a 2-core machine.
  // Warm-up: chunks of warmupChunkS until two agree within 3% (at least warmupS, at most warmupMaxS).
  // Latency: the last latencyRounds rounds also get a window at a fixed rate — the workload's nominal
  // rate per CPU (workloads.js), or latencyLoad of the slowest cell's capacity rounded down to a
  // 1-2-5 step where that is less —, where the p99 verdicts are taken.
  // latencyWarmS: before each block of latency slices, a run at the rate per cell that isn't counted.
  // roundsByWorkload: rounds of one workload's cells, where they differ from `rounds`.
  // closedSliceS: the verdict cells' saturated windows are taken in slices of this, in turn with the
  // other cells of the round (run.js slicedRound), as the latency windows in slices of latencySliceS.
  // The default run asks p99 and CPU per request of light JSON only, at a fixed rate in its last 4
  // rounds: 20 slices of 1 s, where 3 rounds left p99 intervals of ±50% (the full run asks them of
  // every workload, in 3 rounds). Not in the first round: a cluster of 2 still spent up to ×1.8 of
  // its later CPU per request in that round's first slices (604, 425, 523 µs against 290–400 after;
  // default run, 2026-11-25), an amount that differs from run to run. Light JSON had a sixth round;
  // it went when a default run took 9 min 58 s on a slow day (2026-11-22), and the spread between
  // runs (repeatability.js) outweighs what it narrowed.
  quick: { windowS: 5, warmupS: 4, warmupChunkS: 2, warmupMaxS: 6, warmupExpectS: 7, rewarmS: 0.5, rounds: 5, latencyRounds: 0, latencyRoundsByWorkload: { light: 4 }, latencyLoad: 0.5, latencySliceS: 1, latencyWarmS: 0.5, closedSliceS: 1, stepS: 5, maxSteps: 7, ceilingS: 3, experimentRounds: 3, kills: 2 },
  full: { windowS: 6, warmupS: 6, warmupChunkS: 2, warmupMaxS: 40, warmupExpectS: 10, rewarmS: 0.5, rounds: 6, latencyRounds: 3, latencyWindowS: 3, latencyLoad: 0.5, latencySliceS: 1, latencyWarmS: 0.5, closedSliceS: 1, stepS: 5, maxSteps: 5, ceilingS: 5, experimentRounds: 3, kills: 5 },
};


// Processes a runtime can keep busy: one JS thread per Node process; a .NET process uses them all.
const usableCpus = (t) => Math.min(t.budgetCpus ?? Infinity, t.runtime === 'node' ? t.processes : Infinity);

/**
 * The four questions the verdict table answers, each a pair of topologies on the same budget, all
 * behind nginx (as they would run): the Node strategies on one app (node-cluster's Express: one
 * process, a cluster, or replicas), so the baselines are shared and every scaling ratio compares
 * the app with itself; .NET against that same one Express process, and .NET replicas against one.
 */
function comparisons(budget, n) {
  const t = {
    express1: topology({ sample: 'node-cluster', strategy: 'one process', budget, viaNginx: true }),
    cluster: topology({ sample: 'node-cluster', strategy: 'cluster', n, budget, viaNginx: true }),
    replicas: topology({ sample: 'node-cluster', strategy: 'replicas', n, budget, viaNginx: true }),
    dotnet1: topology({ sample: 'dotnet-api', strategy: 'one process', budget, viaNginx: true }),
    dotnetN: topology({ sample: 'dotnet-api', strategy: 'replicas', n, budget, viaNginx: true }),
  };
  return [
    { comparison: 'cluster', column: 'cluster', a: t.cluster, b: t.express1, what: `a cluster of ${n} vs one process (Express)` },
    { comparison: 'replicas', column: 'replicas behind nginx', a: t.replicas, b: t.express1, what: `${n} replicas vs one process (Express)` },
    { comparison: 'dotnet', column: '.NET', a: t.dotnet1, b: t.express1, what: 'one .NET process vs one Express process' },
    { comparison: 'dotnet-replicas', column: '.NET replicas', a: t.dotnetN, b: t.dotnet1, what: `${n} .NET replicas vs one .NET process` },
  ];
}

const cellId = (workload, t) => `${workload}:${t.id}`;

function closedCell(scenario, workload, t, extra = {}) {
  const path = workloadPath(t.sample, workload, WORKLOADS[workload].params);
  if (!path) return null;
  return { id: cellId(workload, t), scenario, kind: 'closed', workload, path, topology: t, connections: WORKLOADS[workload].connections, needsDb: workload === 'db', ...extra };
}

// Which workloads each question is asked on. The default run (10 minutes on 2 cores) asks the
// table's four columns — one process, cluster, replicas, .NET — of the two ends: light JSON, where
// the per-request overhead decides, and CPU-bound work, in 5 rounds each (on a shared machine more
// rounds narrow the intervals more than more rows would). The full run adds .NET replicas, the
// slow I/O and the database read (which needs MongoDB for the Node side, and a minute of warm-up
// for .NET's).
const ALL = ['light', 'pi', 'delay', 'db'];
// Taken from the windows at a fixed rate where a workload has them. At saturation the topology
// spends its whole budget whatever it does, so its CPU per request is only the inverse of its
// throughput; at a fixed rate below capacity it is what a request costs.
const FIXED_RATE_METRICS = new Set(['p99', 'cpu']);
const QUICK = ['light', 'pi'];
const ASKED = {
  quick: { cluster: QUICK, replicas: QUICK, dotnet: QUICK, 'dotnet-replicas': [] },
  full: { cluster: ALL, replicas: ALL, dotnet: ALL, 'dotnet-replicas': ALL },
};

function verdicts({ mode, budget, n, params }) {
  const cells = new Map();
  const questions = [];
  for (const c of comparisons(budget, n)) {
    for (const workload of ASKED[mode][c.comparison]) {
      const rounds = params.roundsByWorkload?.[workload];
      const latencyRounds = params.latencyRoundsByWorkload?.[workload] ?? params.latencyRounds ?? 0;
      const extra = { latencyRounds, ...(rounds ? { rounds } : {}), ...(params.closedSliceS ? { sliceS: params.closedSliceS } : {}) };
      const a = closedCell('verdicts', workload, c.a, extra);
      const b = closedCell('verdicts', workload, c.b, extra);
      if (!a || !b) continue;
      cells.set(a.id, a);
      cells.set(b.id, b);
      // Scaling the same app on the same budget can't beat the ratio of the CPUs each side can use.
      const sameApp = c.a.sample === c.b.sample;
      const limit = sameApp ? usableCpus(c.a) / usableCpus(c.b) : null;
      for (const [metric, m] of Object.entries(METRICS)) {
        // p99 and CPU per request are asked where they are measured at a fixed rate (at saturation the
        // CPU per request is the inverse of the throughput, asked already).
        if (FIXED_RATE_METRICS.has(metric) && !latencyRounds) continue;
        const atFixedRate = latencyRounds > 0 && FIXED_RATE_METRICS.has(metric);
        questions.push({
          id: `${workload}.${c.comparison}.${metric}`,
          question: `${WORKLOADS[workload].title}, ${m.title}${atFixedRate ? ' at a fixed rate below both sides\' capacity' : ''}: ${c.what}, behind nginx, ${budget} CPU each`,
          workload, comparison: c.comparison, column: c.column, metric, better: m.better,
          a: a.id, b: b.id,
          ...(atFixedRate ? { latencyAt: 'fixed rate' } : {}),
          limit: metric === 'throughput' && limit !== null ? { ratio: limit, why: `the same app on the same ${budget}-CPU budget: at most ×${Number(limit.toFixed(2))} of the CPU to use` } : null,
        });
      }
    }
  }
  // A proxied path can't beat the same app direct: checked wherever a scenario has both.
  const checks = [];
  for (const c of cells.values()) {
    if (!c.topology.viaNginx) continue;
    const direct = [...cells.values()].find((d) => d.workload === c.workload && d.topology.sample === c.topology.sample
      && !d.topology.viaNginx && d.topology.strategy === c.topology.strategy && d.topology.processes === c.topology.processes);
    if (direct) checks.push({ id: `proxy.${c.id}`, what: `${c.topology.label} vs the same app direct (${c.workload})`, a: c.id, b: direct.id, field: 'rps', limit: 1 });
  }
  // Workload by workload, each comparison's two cells side by side (the baseline between its
  // scaled versions): a pair is measured seconds apart in every round, so the machine's drift
  // lands on both.
  const order = (c) => ALL.indexOf(c.workload) * 10 + ['cluster', 'one process', 'replicas'].indexOf(c.topology.strategy) + (c.topology.runtime === 'dotnet' ? 3 : 0);
  return { cells: [...cells.values()].sort((x, y) => order(x) - order(y)), comparisons: questions, checks };
}

function openloop({ budget, n }) {
  const ts = comparisons(budget, n);
  const wanted = [ts[0].b, ts[0].a, ts[1].a, ts[2].a, ts[3].a];
  const cells = wanted.map((t) => ({ ...closedCell('openloop', 'pi', t), kind: 'openloop', id: `openloop.pi:${t.id}` }));
  return { cells, comparisons: [], checks: [] };
}

// The fault and rollout drills: the same K kills for every topology, one at a time, under a fixed
// rate of GETs and POSTs; then a rolling restart per strategy under the same load.
function drills({ mode, budget, n, params }) {
  const kills = params.kills;
  const cell = (kind, t, extra = {}) => ({ id: `${kind}:${t.id}`, scenario: 'drills', kind, workload: 'light', path: workloadPath(t.sample, 'light', {}), topology: t, connections: null, kills, rate: 100, postShare: 0.2, ...extra });
  const replicas2 = topology({ sample: 'node-replicas', strategy: 'replicas', n: 2, budget, viaNginx: true });
  const replicas4 = topology({ sample: 'node-replicas', strategy: 'replicas', n: 4, budget, viaNginx: true });
  const cluster = topology({ sample: 'node-cluster', strategy: 'cluster', n, budget });
  const clusterNginx = topology({ sample: 'node-cluster', strategy: 'cluster', n, budget, viaNginx: true });
  const dotnet1 = topology({ sample: 'dotnet-api', strategy: 'one process', budget });
  const dotnetN = topology({ sample: 'dotnet-api', strategy: 'replicas', n, budget, viaNginx: true });
  return {
    cells: [
      cell('fault', replicas2, { how: 'instance' }),
      // 4 replicas, and the cluster without nginx, in the full run: the default one keeps within its
      // 10 minutes.
      ...(mode === 'full' ? [cell('fault', replicas4, { how: 'instance' }), cell('fault', cluster, { how: 'worker' })] : []),
      cell('fault', clusterNginx, { how: 'worker' }),
      // One process has nothing to fail over to (the counter-example): in the full run.
      ...(mode === 'full' ? [cell('fault', dotnet1, { how: 'instance' })] : []),
      cell('fault', dotnetN, { how: 'instance' }),
      // The rollouts run in the full run (the default one keeps within its 10 minutes); one process
      // without a proxy can't be replaced without downtime: shown there too.
      ...(mode === 'full' ? [cell('rollout', replicas2), cell('rollout', clusterNginx), cell('rollout', dotnetN), cell('rollout', dotnet1)] : []),
    ],
    comparisons: [],
    checks: [],
  };
}

export const SCENARIOS = {
  verdicts: {
    title: 'The verdicts: one process, cluster, replicas and .NET on the same CPU budget',
    description: 'Closed loop, interleaved rounds; each question pairs two topologies on the same CPU budget, like for like (direct with direct, through nginx with through nginx).',
    interleaved: true,
    build: verdicts,
  },
  drills: {
    title: 'When something dies, when you deploy: fault and rollout drills',
    description: 'A fixed rate of GETs and POSTs while one instance or worker is killed with SIGKILL and brought back by its restart policy, K times, one at a time; then a rolling restart (make reload) per strategy under the same load.',
    interleaved: false,
    build: drills,
  },
  openloop: {
    title: 'Highest sustained fixed rate (CPU-bound pi)',
    description: 'Open loop with the paced generator (it sends on schedule whatever comes back, and times each request from its intended send: no coordinated omission); a step is sustained when the achieved rate is within 5% of the target, p99 < 500 ms and nothing failed; the search bisects between the last passing and the first failing rate.',
    interleaved: false,
    fullOnly: true,
    build: openloop,
  },
  ...EXPERIMENTS,
};

// The mode's parameters with the command line's. --rounds means every cell: the per-workload
// counts go, and latency takes the last 3 of them.
function paramsOf(mode, overrides) {
  const params = { ...MODES[mode], ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  if (overrides.rounds !== undefined) Object.assign(params, { roundsByWorkload: {}, latencyRoundsByWorkload: {}, latencyRounds: params.latencyRounds || 3 });
  return params;
}

/**
 * The cells and comparisons to run. scenario: one name, or all of the mode's; sample: only cells
 * of that sample (and comparisons whose two cells remain).
 * @param {{ full?: boolean, scenario?: string, sample?: string, budget?: number, processes?: number, overrides?: object }} [options]
 */
export function plan({ full = false, scenario, sample, budget, processes, overrides = {} } = {}) {
  const mode = full ? 'full' : 'quick';
  const params = paramsOf(mode, overrides);
  if (scenario && !SCENARIOS[scenario]) throw new Error(`unknown scenario "${scenario}" (one of: ${Object.keys(SCENARIOS).join(', ')})`);
  const names = scenario ? [scenario] : Object.keys(SCENARIOS).filter((k) => full || !SCENARIOS[k].fullOnly);
  const scenarios = names.map((name) => {
    const s = SCENARIOS[name];
    const built = s.build({ mode, budget, n: processes, params });
    let cells = built.cells;
    if (sample) cells = cells.filter((c) => c.topology.sample === sample);
    const ids = new Set(cells.map((c) => c.id));
    const known = new Set([...ids, ...(built.derivedIds ?? [])]);
    return {
      name, title: s.title, description: s.description, interleaved: s.interleaved, experiment: s.experiment && { ...s.experiment, deviations: built.deviations ?? [] }, derive: built.derive,
      cells,
      comparisons: built.comparisons.filter((q) => known.has(q.a) && known.has(q.b)),
      checks: built.checks.filter((q) => ids.has(q.a) && ids.has(q.b)),
    };
  }).filter((s) => s.cells.length);
  if (scenarios.length === 0) throw new Error(`nothing to run for${sample ? ` sample "${sample}"` : ''}${scenario ? ` scenario "${scenario}"` : ''}`);
  return { mode, params, scenarios };
}

/**
 * A plan from a JSON file (--matrix), for your own comparisons and the tests:
 * { "scenarios": [ { "name", "title"?, "interleaved"?: true, "cells": [ { "workload", "topology":
 * { "sample", "strategy", "n"?, "viaNginx"?, "lb"?, "env"?, "id"?, "label"? }, "kind"?, "connections"? } ],
 * "compare"?: [ { "a": <cell index>, "b": <cell index>, "metrics"?: [...] } ] } ] }
 */
/** @param {object} spec @param {{ full?: boolean, budget?: number, overrides?: object }} [options] */
export function matrixPlan(spec, { full = false, budget, overrides = {} } = {}) {
  const mode = full ? 'full' : 'quick';
  const params = paramsOf(mode, overrides);
  if (!Array.isArray(spec?.scenarios) || spec.scenarios.length === 0) throw new Error('--matrix: expected {"scenarios": [...]} with at least one scenario');
  const scenarios = spec.scenarios.map((s, si) => {
    const name = s.name ?? `matrix-${si + 1}`;
    if (!Array.isArray(s.cells) || s.cells.length === 0) throw new Error(`--matrix: scenario ${name} has no cells`);
    const cells = s.cells.map((c, ci) => {
      if (!WORKLOADS[c.workload]) throw new Error(`--matrix: ${name} cell ${ci}: unknown workload "${c.workload}"`);
      const t = topology({ budget, ...c.topology });
      const closed = (c.kind ?? 'closed') === 'closed';
      const cell = closedCell(name, c.workload, t, { kind: c.kind ?? 'closed', latencyRounds: closed ? (params.latencyRoundsByWorkload?.[c.workload] ?? params.latencyRounds ?? 0) : 0, ...(closed && params.closedSliceS ? { sliceS: params.closedSliceS } : {}), ...(c.connections ? { connections: c.connections } : {}) });
      if (!cell) throw new Error(`--matrix: ${name} cell ${ci}: ${t.sample} has no "${c.workload}" workload`);
      return cell;
    });
    const comparisons = (s.compare ?? []).flatMap((q) => {
      const [a, b] = [cells[q.a], cells[q.b]];
      if (!a || !b) throw new Error(`--matrix: ${name}: compare names a cell that doesn't exist`);
      const measured = (m) => m !== 'p99' || (a.latencyRounds && b.latencyRounds);
      return (q.metrics ?? Object.keys(METRICS)).filter(measured).map((metric) => ({
        id: `${a.workload}.${a.topology.id}-vs-${b.topology.id}.${metric}`, question: `${a.topology.label} vs ${b.topology.label}, ${METRICS[metric].title} (${a.workload})`,
        workload: a.workload, comparison: `${a.topology.id}-vs-${b.topology.id}`, column: q.column ?? b.topology.label, metric, better: METRICS[metric].better, a: a.id, b: b.id,
        ...(FIXED_RATE_METRICS.has(metric) && a.latencyRounds && b.latencyRounds ? { latencyAt: 'fixed rate' } : {}),
        limit: q.limit && metric === 'throughput' ? { ratio: q.limit, why: q.why ?? 'given in the matrix' } : null,
      }));
    });
    return { name, title: s.title ?? name, description: s.description ?? 'cells from --matrix', interleaved: s.interleaved ?? true, cells, comparisons, checks: [] };
  });
  return { mode: spec.mode ?? 'custom', params, scenarios };
}
