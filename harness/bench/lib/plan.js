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
  // Default: about 15 minutes on a 2-core machine, every strategy at every budget.
  // Warm-up: chunks of warmupChunkS until two agree within 3% (at least warmupS, at most warmupMaxS).
  // Latency: the last latencyRounds rounds also get a window at a fixed rate — the workload's nominal
  // rate per CPU of the budget (workloads.js), or latencyLoad of the slowest cell's capacity rounded
  // down to a 1-2-5 step where that is less —, where the p99 and CPU-per-request verdicts are taken.
  // latencyWarmS: before each block of latency slices, a run at the rate per cell that isn't counted.
  // closedSliceS: the verdict cells' saturated windows are taken in slices of this, in turn with the
  // other cells of the round (run.js slicedRound), as the latency windows in slices of latencySliceS.
  // The default run asks p99 and CPU per request of light JSON only, at a fixed rate in its last 3
  // rounds (6 slices of 1 s per cell; the full run asks them of every workload). Its saturated
  // windows are one 1 s slice per round: 40 cells at two budgets in 5 rounds, where 5 slices a
  // round for 8 cells at one budget filled the same time before the budgets were swept; not in the
  // first round: a cluster of 2 still spent up to ×1.8 of its later CPU per request in that round's
  // first slices (default run, 2026-11-25).
  // rewarmS: before a whole (unsliced) window only; 1 s, the least wrk runs (it counts whole seconds).
  quick: { windowS: 1, latencyWindowS: 2, warmupS: 4, warmupChunkS: 2, warmupMaxS: 6, warmupExpectS: 6, rewarmS: 1, rounds: 5, latencyRounds: 0, latencyRoundsByWorkload: { light: 3 }, latencyLoad: 0.5, latencySliceS: 1, latencyWarmS: 0.5, closedSliceS: 1, stepS: 5, maxSteps: 7, ceilingS: 3, experimentRounds: 3, kills: 2 },
  full: { windowS: 2, warmupS: 6, warmupChunkS: 2, warmupMaxS: 40, warmupExpectS: 10, rewarmS: 1, rounds: 6, latencyRounds: 3, latencyWindowS: 2, latencyLoad: 0.5, latencySliceS: 1, latencyWarmS: 0.5, closedSliceS: 1, stepS: 5, maxSteps: 5, ceilingS: 5, experimentRounds: 3, kills: 5 },
};


// Processes a runtime can keep busy: one JS thread per Node process; a .NET process uses them all.
const usableCpus = (t) => Math.min(t.budgetCpus ?? Infinity, t.runtime === 'node' ? t.processes : Infinity);

// The strategies a team picks at a budget of B CPUs, each as users configure it: one Express
// process given the B CPUs; the cluster with B workers; B replicas × 1 CPU behind nginx; B
// processes sharing one port with reusePort; PM2's cluster mode with B instances; one .NET process
// with B CPUs; B .NET replicas. At budget 1 a plain node:http process beside the Express one tells
// the framework's cost from the runtime's, and the cluster of 2 on 1 CPU stays as a labelled
// control (what the verdicts measured before they asked about several cores). Every topology sits
// behind nginx, as it would run. `cpuset`: 'sut' (the CPUs left after the generator's) where the
// budget fits there, else 'all' (the generator shares them: its share is measured).
function strategiesAt(budget, cpuset) {
  const at = (o) => {
    const t = topology({ ...o, budget, viaNginx: true, cpuset });
    return { ...t, id: `${t.id}-b${budget}` };
  };
  const express1 = at({ sample: 'node-cluster', strategy: 'one process' });
  const dotnet1 = at({ sample: 'dotnet-api', strategy: 'one process' });
  /** @param {string} key @param {any} t @param {string} what @param {{ workloads?: string[], control?: string }} [extra] @returns {any} */
  const vsExpress = (key, t, what, extra = {}) => ({ comparison: `b${budget}.${key}`, key, a: t, b: express1, what: `${what} vs one Express process`, ...extra });
  const qs = [];
  // At budget 1 a cluster, reusePort or PM2 of one process is one process with a manager around it:
  // what the manager costs, and the base of each strategy's scaling. (One replica is one process.)
  qs.push(vsExpress('cluster', at({ sample: 'node-cluster', strategy: 'cluster', n: budget }), `a cluster of ${budget} worker${budget > 1 ? 's' : ''}`));
  qs.push(vsExpress('reuseport', at({ sample: 'node-cluster', strategy: 'reuseport', n: budget }), `${budget} reusePort process${budget > 1 ? 'es' : ''}`));
  qs.push(vsExpress('pm2', at({ sample: 'node-cluster', strategy: 'pm2', n: budget }), `PM2 cluster mode, ${budget} instance${budget > 1 ? 's' : ''}`));
  if (budget > 1) {
    qs.push(vsExpress('replicas', at({ sample: 'node-cluster', strategy: 'replicas', n: budget }), `${budget} replicas × 1 CPU`));
  }
  qs.push(vsExpress('dotnet', dotnet1, `one .NET process (${budget} CPU)`));
  if (budget > 1) {
    qs.push({ comparison: `b${budget}.dotnet-replicas`, key: 'dotnet-replicas', a: at({ sample: 'dotnet-api', strategy: 'replicas', n: budget }), b: dotnet1, what: `${budget} .NET replicas × 1 CPU vs one .NET process` });
  }
  if (budget === 1) {
    // Where the framework's cost per request shows (light JSON, CPU-bound work), not slow I/O.
    const busy = ['light', 'pi'];
    qs.push(vsExpress('node-http', at({ sample: 'node-replicas', strategy: 'one process' }), 'one plain node:http process', { workloads: busy }));
    qs.push(vsExpress('cluster-control', at({ sample: 'node-cluster', strategy: 'cluster', n: 2 }), 'a cluster of 2 on 1 CPU (control: oversubscribed)', { workloads: busy, control: 'the cluster of 2 workers on a 1-CPU budget: by construction it can at best equal one process' }));
  }
  return qs;
}

const cellId = (workload, t) => `${workload}:${t.id}`;

function closedCell(scenario, workload, t, extra = {}) {
  const path = workloadPath(t.sample, workload, WORKLOADS[workload].params);
  if (!path) return null;
  return { id: cellId(workload, t), scenario, kind: 'closed', workload, path, topology: t, connections: WORKLOADS[workload].connections, needsDb: workload === 'db', ...extra };
}

// Which workloads each budget's questions are asked on. The default run (15 minutes on 2 cores)
// asks every strategy of light JSON, where the per-request overhead decides, CPU-bound work and
// slow I/O; p99 and CPU per request at a fixed rate of light JSON only. The full run adds the
// database read (which needs MongoDB for the Node side, and a minute of warm-up for .NET's) and
// the fixed-rate windows of every workload.
const ALL = ['light', 'pi', 'delay', 'db'];
// Taken from the windows at a fixed rate where a workload has them. At saturation the topology
// spends its whole budget whatever it does, so its CPU per request is only the inverse of its
// throughput; at a fixed rate below capacity it is what a request costs.
const FIXED_RATE_METRICS = new Set(['p99', 'cpu']);
const ASKED = { quick: ['light', 'pi', 'delay'], full: ALL };

/** Same app, same budget: the ratio of the CPUs each side can keep busy (one JS thread per Node process). */
function limitOf(a, b, budget) {
  if (a.sample !== b.sample) return null;
  const ratio = usableCpus(a) / usableCpus(b);
  return { ratio, why: `the same app on the same ${budget}-CPU budget: at most ×${Number(ratio.toFixed(2))} of the CPU to use` };
}

function verdicts({ mode, budgets, params }) {
  const cells = new Map();
  const questions = [];
  // Multi-core questions first: they are what the run is for.
  for (const { budget, cpuset } of [...budgets].sort((x, y) => y.budget - x.budget)) {
    for (const c of strategiesAt(budget, cpuset)) {
      for (const workload of ASKED[mode].filter((w) => !c.workloads || mode === 'full' || c.workloads.includes(w))) {
        const rounds = params.roundsByWorkload?.[workload];
        const latencyRounds = params.latencyRoundsByWorkload?.[workload] ?? params.latencyRounds ?? 0;
        const extra = { latencyRounds, budget, ...(rounds ? { rounds } : {}), ...(params.closedSliceS ? { sliceS: params.closedSliceS } : {}) };
        const a = closedCell('verdicts', workload, c.a, extra);
        const b = closedCell('verdicts', workload, c.b, extra);
        if (!a || !b) continue;
        cells.set(a.id, a);
        cells.set(b.id, b);
        const limit = limitOf(c.a, c.b, budget);
        for (const [metric, m] of Object.entries(METRICS)) {
          // p99 and CPU per request are asked where they are measured at a fixed rate (at saturation
          // the CPU per request is the inverse of the throughput, asked already).
          if (FIXED_RATE_METRICS.has(metric) && !latencyRounds) continue;
          const atFixedRate = latencyRounds > 0 && FIXED_RATE_METRICS.has(metric);
          questions.push({
            id: `${workload}.${c.comparison}.${metric}`,
            question: `${WORKLOADS[workload].title}, ${m.title}${atFixedRate ? ' at a fixed rate below both sides\' capacity' : ''}: ${c.what}, behind nginx, ${budget} CPU each`,
            workload, comparison: c.comparison, strategy: c.key, budget, column: c.key, metric, better: m.better,
            a: a.id, b: b.id,
            ...(c.control ? { control: c.control } : {}),
            ...(atFixedRate ? { latencyAt: 'fixed rate' } : {}),
            limit: metric === 'throughput' ? limit : null,
          });
        }
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
  // Kept in plan order: by budget, then strategy, each workload's cells beside the baseline they
  // are compared with (a pair is measured seconds apart in every round).
  return { cells: [...cells.values()], comparisons: questions, checks, scaling: scalingOf(questions, cells) };
}

function openloop({ budgets }) {
  const top = budgets.reduce((x, y) => (y.budget > x.budget ? y : x));
  const qs = strategiesAt(top.budget, top.cpuset);
  const wanted = [qs[0].b, ...qs.map((q) => q.a)];
  const cells = wanted.map((t) => ({ ...closedCell('openloop', 'pi', t), kind: 'openloop', id: `openloop.pi:${t.id}` }));
  return { cells, comparisons: [], checks: [] };
}

// Each strategy's throughput at budget B against B × the same app's one process at budget 1, per
// workload, from cells of the same scenario (so their rounds pair up): its scaling efficiency.
function scalingOf(questions, cells) {
  const all = [...cells.values()];
  const baseOf = (c) => all.find((x) => x.workload === c.workload && x.topology.sample === c.topology.sample && x.topology.strategy === 'one process' && x.budget === 1);
  const out = new Map();
  for (const q of questions.filter((x) => x.metric === 'throughput')) {
    for (const id of [q.a, q.b]) {
      const c = cells.get(id);
      const base = baseOf(c);
      if (!base || base.id === c.id || out.has(c.id)) continue;
      out.set(c.id, { id: `${c.workload}.${c.topology.id}.scaling`, workload: c.workload, cell: c.id, base: base.id, budget: c.budget, sample: c.topology.sample, strategy: c.topology.strategy, topology: c.topology.id, processes: c.topology.processes });
    }
  }
  return [...out.values()];
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
    // The default run's 15 minutes go to the verdicts at every budget.
    fullOnly: true,
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
 * @param {{ full?: boolean, scenario?: string, sample?: string, budget?: number, budgets?: { budget: number, cpuset: string }[], processes?: number, overrides?: object }} [options]
 */
export function plan({ full = false, scenario, sample, budget, budgets, processes, overrides = {} } = {}) {
  const mode = full ? 'full' : 'quick';
  const params = paramsOf(mode, overrides);
  if (scenario && !SCENARIOS[scenario]) throw new Error(`unknown scenario "${scenario}" (one of: ${Object.keys(SCENARIOS).join(', ')})`);
  const names = scenario ? [scenario] : Object.keys(SCENARIOS).filter((k) => full || !SCENARIOS[k].fullOnly);
  const scenarios = names.map((name) => {
    const s = SCENARIOS[name];
    const built = s.build({ mode, budget, budgets: budgets ?? [{ budget, cpuset: 'sut' }], n: processes, params });
    let cells = built.cells;
    if (sample) cells = cells.filter((c) => c.topology.sample === sample);
    const ids = new Set(cells.map((c) => c.id));
    const known = new Set([...ids, ...(built.derivedIds ?? [])]);
    return {
      name, title: s.title, description: s.description, interleaved: s.interleaved, experiment: s.experiment && { ...s.experiment, deviations: built.deviations ?? [] }, derive: built.derive,
      cells,
      comparisons: built.comparisons.filter((q) => known.has(q.a) && known.has(q.b)),
      checks: built.checks.filter((q) => ids.has(q.a) && ids.has(q.b)),
      scaling: (built.scaling ?? []).filter((x) => ids.has(x.cell) && ids.has(x.base)),
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
