// What `make bench` measures: scenarios of cells. A cell is one topology under one workload; the
// cells of an interleaved scenario are measured in rounds (A B C, C B A, …) on deployments that
// are all up at once, pinned to the same CPUs under the same budget. Comparisons pair two cells
// of the same scenario, so their rounds pair up.
import { topology } from '../topologies/topology.js';
import { workloadPath, describeSample, listApps } from '../topologies/app-descriptions.js';
import { WORKLOADS, workloadSpec, requestOf } from '../workloads/index.js';
import { baselineOf, topologiesAt, pairsAt, workloadsOf, limitOf } from './questions.js';
import { strategiesFor, processesAt } from '../strategies/index.js';
import { drillCells } from '../drills/cells.js';
import { whyNoSwarm } from '../drills/swarm.js';
import { EXPERIMENTS } from '../experiments/index.js';
import { METRICS } from '../judge/compared-metrics.js';

const QUICK = {
  windowS: 1,
  warmupS: 4,
  warmupChunkS: 2,
  warmupMaxS: 6,
  warmupExpectS: 6,
  rewarmS: 1,
  rounds: 5,
  closedSliceS: 1,
  capacitySteps: 5,
  capacitySliceS: 1,
  capacityRange: [0.5, 1.1],
  sloP99Ms: 250,
  latencyRounds: 2,
  latencyWindowS: 2,
  latencyLoad: 0.8,
  latencySliceS: 1,
  latencyWarmS: 0,
  stepS: 5,
  maxSteps: 7,
  ceilingS: 3,
  experimentRounds: 3,
  kills: 2,
  drillEvents: 2,
};

export const MODES = {
  // Default: at most 15 minutes on a 2-core machine, every core strategy at every budget.
  // Warm-up: chunks of warmupChunkS until two agree within 3% (at least warmupS, at most warmupMaxS).
  // Saturated windows (throughput, CPU and memory at capacity): `rounds` rounds of windowS, each
  // taken in slices of closedSliceS in turn with the other cells of the round (run/interleave.js);
  // one 1 s slice per round in the default run: a cluster of 2 still spent up to ×1.8 of its later
  // CPU per request in a round's first slices (default run, 2026-11-25).
  // Capacity at the latency target (run/capacity.js): the highest fixed rate held with p99 under
  // sloP99Ms, nothing failed and 95% of it achieved, by bisection over capacityRange × the cell's
  // saturated throughput in capacitySteps slices of capacitySliceS.
  // Latency: in the last latencyRounds rounds, a window at one fixed rate per block — latencyLoad
  // of the weakest cell's capacity (run/latency.js) — in slices of latencySliceS, where the p99 and
  // the CPU per request below capacity are taken.
  // rewarmS: before a whole (unsliced) window only; 1 s, the least wrk runs (it counts whole seconds).
  quick: QUICK,
  // The full run: the same protocol with longer windows and warm-ups, fewer open-loop steps, more kills.
  full: {
    ...QUICK,
    windowS: 2,
    warmupS: 6,
    // Past 20 s a cell still not steady is noise, not a runtime warming up (the 50 ms wait's
    // 2,048 connections swing ×0.5–×3 between 2 s chunks); floors (x-bench) go past it.
    warmupMaxS: 20,
    warmupExpectS: 10,
    latencyWarmS: 0.5,
    maxSteps: 5,
    ceilingS: 5,
    kills: 3,
  },
};

function closedCell(scenario, workload, t, extra = {}) {
  const app = describeSample(t.sample);
  const spec = workloadSpec(app, workload);
  const path = workloadPath(t.sample, workload, spec.params);
  if (!path) return null;
  const request = requestOf(app, workload);
  return {
    id: `${workload}:${t.id}`,
    scenario,
    kind: 'closed',
    workload,
    path,
    ...(request ? { request } : {}),
    topology: t,
    connections: spec.connections,
    needsDb: Boolean(spec.database),
    ...extra,
  };
}

// Which workloads each budget's questions are asked on: the full run asks every workload at every
// budget; the default run (15 minutes on 2 cores) what each workload's record says (`defaultRun`:
// light JSON and CPU-bound work everywhere, slow I/O above one CPU, the database read never).
const ALL = Object.keys(WORKLOADS);
// Taken from the windows at a fixed rate where a workload has them. At saturation the topology
// spends its whole budget whatever it does, so its CPU per request is only the inverse of its
// throughput; at a fixed rate below capacity it is what a request costs.
const FIXED_RATE_METRICS = new Set(['p99', 'cpu']);
const askedAt = (mode, budget) => ALL.filter((w) => mode === 'full'
  || WORKLOADS[w].defaultRun === 'every budget' || (WORKLOADS[w].defaultRun === 'larger budgets' && budget > 1));
const askedFor = (mode, budget, pair) => askedAt(mode, budget).filter((w) => mode === 'full'
  || !WORKLOADS[w].defaultRunCoreOnly || (pair.a.strategy.core && pair.b.strategy.core));

function verdicts({ mode, budgets, params, apps }) {
  const cells = new Map();
  const questions = [];
  const base = baselineOf(apps);
  const { latencyRounds } = params;
  // Multi-core questions first: they are what the run is for.
  for (const { budget, cpuset } of [...budgets].sort((x, y) => y.budget - x.budget)) {
    const entries = topologiesAt(apps, { budget, cpuset, mode });
    for (const pair of pairsAt(entries, base)) {
      const asked = askedFor(mode, budget, pair);
      const shared = workloadsOf(pair.a.app, asked).filter((w) => workloadsOf(pair.b.app, asked).includes(w));
      for (const workload of shared) {
        const extra = {
          latencyRounds,
          budget,
          searchCapacity: params.capacitySteps > 0,
          ...(params.closedSliceS ? { sliceS: params.closedSliceS } : {}),
        };
        const a = closedCell('verdicts', workload, pair.a.t, extra);
        const b = closedCell('verdicts', workload, pair.b.t, extra);
        if (!a || !b) continue;
        cells.set(a.id, a);
        cells.set(b.id, b);
        const limit = limitOf(pair.a.t, pair.b.t, budget);
        const title = workloadSpec(pair.a.app, workload).title;
        for (const [metric, m] of Object.entries(METRICS)) {
          // p99 and CPU per request are asked where they are measured at a fixed rate (at saturation
          // the CPU per request is the inverse of the throughput, asked already).
          const atFixedRate = FIXED_RATE_METRICS.has(metric);
          if (atFixedRate && !latencyRounds) continue;
          if (metric === 'capacity' && !(params.capacitySteps > 0)) continue;
          const rate = atFixedRate ? " at a fixed rate below both sides' capacity" : '';
          questions.push({
            id: `${workload}.b${budget}.${pair.key}.${metric}`,
            question: `${title}, ${m.title}${rate}: ${pair.what}, behind nginx, ${budget} CPU each`,
            workload,
            comparison: `b${budget}.${pair.key}`,
            strategy: pair.a.strategy.key,
            budget,
            column: pair.key,
            metric,
            better: m.better,
            a: a.id,
            b: b.id,
            ...(atFixedRate ? { latencyAt: 'fixed rate' } : {}),
            limit: metric === 'throughput' ? limit : null,
          });
        }
      }
    }
  }
  // Kept in plan order: by budget, then strategy, each workload's cells beside the baseline they
  // are compared with (a pair is measured seconds apart in every round, so the machine's drift lands on both).
  return { cells: [...cells.values()], comparisons: questions, scaling: scalingOf(questions, cells) };
}

function openloop({ budgets, apps, mode }) {
  const top = budgets.reduce((x, y) => (y.budget > x.budget ? y : x));
  const entries = topologiesAt(apps, { ...top, mode });
  const cells = entries
    .map((e) => closedCell('openloop', 'pi', e.t))
    .filter(Boolean)
    .map((c) => ({ ...c, kind: 'openloop', id: `openloop.${c.id}` }));
  return { cells, comparisons: [] };
}

// Each strategy's throughput at budget B against B × the same app's one process at budget 1, per
// workload, from cells of the same scenario (so their rounds pair up): its scaling efficiency.
function scalingOf(questions, cells) {
  const throughput = new Set(questions.filter((q) => q.metric === 'throughput').flatMap((q) => [q.a, q.b]));
  return [...throughput].flatMap((id) => {
    const c = cells.get(id);
    const t = c.topology;
    const base = [...cells.values()].find((x) => x.workload === c.workload && x.topology.sample === t.sample
      && x.topology.strategy === 'one process' && x.budget === 1);
    if (!base || base.id === c.id) return [];
    return [{
      id: `${c.workload}.${t.id}.scaling`,
      workload: c.workload,
      cell: c.id,
      base: base.id,
      budget: c.budget,
      sample: t.sample,
      strategy: t.strategy,
      topology: t.id,
      processes: t.processes,
    }];
  });
}

// The drills: for every strategy of every app with a POST to mix in, a crash drill and a rolling
// restart (replicas: a graceful stop and a scale-down too) under a fixed rate of GETs and POSTs,
// counting what the store kept (drills/cells.js). The lone process is the counter-example. The
// full run drills on every engine it has (the processes engine and Docker): a deploy answer must
// rest on both, for every app the guide may recommend.
function drills({ budget, n, params, apps, engines = ['processes'] }) {
  const cells = [];
  // Last, after every Compose deployment's drills: leaving the Swarm again cuts the running Compose
  // projects' nginx off from their apps (every request 502 from then on, on the run's daemon: hand
  // run 2026-12-04), and the scenario's deployments stay up until it ends.
  const swarm = [];
  for (const app of apps.filter((x) => x.post || x.writes)) {
    for (const s of strategiesFor(app)) {
      const processes = processesAt(s, n);
      // The lone process, never a deploy answer, is the counter-example on the run's own engine only.
      for (const engine of engines.filter((e) => app.engines.includes(e) && (e === engines[0] || s.multiProcess))) {
        // Another engine than the run's own (Docker in the full run) gets the default run's kills: its
        // restarts take three times as long.
        const kills = engine === engines[0] ? params.kills : MODES.quick.kills;
        // The run's own engine (the first) carries none; another one is named on the cell and in its id.
        const named = (c) => ({ ...c, id: `${c.kind}:${engine}:${c.topology.id}@${budget}`, engine });
        const drilled = drillCells(app, s.slug, processes, budget, { kills, events: params.drillEvents });
        cells.push(...(engine === engines[0] ? drilled : drilled.map(named)));
      }
      // And the replicas' rolling update on Swarm, where Docker is drilled and the stack fits one node:
      // Swarm takes a task out of its DNS before stopping it, which Compose does not (drills/swarm.js
      // deploys the stack).
      const onSwarm = engines.includes('docker') && app.engines.includes('docker') && !whyNoSwarm(app, processes);
      if (s.slug === 'replicas' && onSwarm) {
        const [rollout] = drillCells(app, s.slug, processes, budget, { events: params.drillEvents })
          .filter((c) => c.kind === 'rollout');
        const id = `rollout:swarm:${rollout.topology.id}@${budget}`;
        swarm.push({ ...rollout, id, engine: 'docker', orchestrator: 'swarm', events: params.drillEvents });
      }
    }
  }
  return { cells: [...cells, ...swarm], comparisons: [] };
}

export const SCENARIOS = {
  verdicts: {
    title: 'The verdicts: one process, cluster, replicas and .NET on the same CPU budget',
    description:
      'Closed loop, interleaved rounds; each question pairs two topologies on the same CPU budget, like for like ' +
      '(direct with direct, through nginx with through nginx).',
    interleaved: true,
    build: verdicts,
  },
  drills: {
    title: 'When something dies, when you deploy: fault and rollout drills',
    description:
      'A fixed rate of GETs and POSTs while one instance or worker is killed with SIGKILL and brought back by its ' +
      'restart policy, K times, one at a time; then a rolling restart (make reload) per strategy under the same load.',
    interleaved: false,
    // The default run's 15 minutes go to the verdicts at every budget.
    fullOnly: true,
    build: drills,
  },
  // Capacity at the latency target is in every verdict cell now (run/capacity.js); this longer search
  // of 5 s steps on one workload stays for a run that asks for it (SCENARIO=openloop).
  openloop: {
    title: 'Highest sustained fixed rate (CPU-bound pi)',
    description:
      'Open loop with the paced generator (it sends on schedule whatever comes back, and times each request from ' +
      'its intended send: no coordinated omission); a step is sustained when the achieved rate is within 5% of the ' +
      'target, p99 < 500 ms and nothing failed; the search bisects between the last passing and the first failing ' +
      'rate.',
    interleaved: false,
    fullOnly: true,
    onRequest: true,
    build: openloop,
  },
  ...EXPERIMENTS,
};

// The mode's parameters with the command line's.
const paramsOf = (mode, overrides) => ({
  ...MODES[mode],
  ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
});

/**
 * The cells and comparisons to run. scenario: one name, or all of the mode's; sample: only cells
 * of that sample (and comparisons whose two cells remain).
 * apps: the app descriptions to plan over (default: every folder of this repository with an x-bench).
 * @param {{
 *   full?: boolean, scenario?: string, sample?: string, budget?: number,
 *   budgets?: { budget: number, cpuset: string }[], processes?: number, overrides?: object, apps?: any[],
 *   engines?: string[],
 * }} [options]
 */
export function plan({
  full = false,
  scenario,
  sample,
  budget,
  budgets,
  processes,
  overrides = {},
  apps = listApps().map((a) => describeSample(a)),
  engines,
} = {}) {
  const mode = full ? 'full' : 'quick';
  const params = paramsOf(mode, overrides);
  if (scenario && !SCENARIOS[scenario])
    throw new Error(`unknown scenario "${scenario}" (one of: ${Object.keys(SCENARIOS).join(', ')})`);
  const names = scenario
    ? [scenario]
    : Object.keys(SCENARIOS).filter((k) => !SCENARIOS[k].onRequest && (full || !SCENARIOS[k].fullOnly));
  const scenarios = names
    .map((name) => {
      const s = SCENARIOS[name];
      const built = s.build({
        mode,
        budget,
        budgets: budgets ?? [{ budget, cpuset: 'sut' }],
        n: processes,
        params,
        apps,
        engines,
      });
      const cells = built.cells.filter((c) => !sample || c.topology.sample === sample);
      const ids = new Set(cells.map((c) => c.id));
      const known = new Set([...ids, ...(built.derivedIds ?? [])]);
      return {
        name,
        title: s.title,
        description: s.description,
        interleaved: s.interleaved,
        experiment: s.experiment && { ...s.experiment, deviations: built.deviations ?? [] },
        derive: built.derive,
        cells,
        comparisons: built.comparisons.filter((q) => known.has(q.a) && known.has(q.b)),
        scaling: (built.scaling ?? []).filter((x) => ids.has(x.cell) && ids.has(x.base)),
      };
    })
    .filter((s) => s.cells.length);
  if (scenarios.length === 0)
    throw new Error(
      `nothing to run for${sample ? ` sample "${sample}"` : ''}${scenario ? ` scenario "${scenario}"` : ''}`,
    );
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
  if (!Array.isArray(spec?.scenarios) || spec.scenarios.length === 0)
    throw new Error('--matrix: expected {"scenarios": [...]} with at least one scenario');
  const scenarios = spec.scenarios.map((s, si) => {
    const name = s.name ?? `matrix-${si + 1}`;
    if (!Array.isArray(s.cells) || s.cells.length === 0) throw new Error(`--matrix: scenario ${name} has no cells`);
    const cells = s.cells.map((c, ci) => {
      workloadSpec(describeSample(c.topology.sample), c.workload); // unknown: one line naming the ones there are
      const t = topology({ budget, ...c.topology });
      const closed = (c.kind ?? 'closed') === 'closed';
      const cell = closedCell(name, c.workload, t, {
        kind: c.kind ?? 'closed',
        latencyRounds: closed ? params.latencyRounds : 0,
        ...(closed && params.closedSliceS ? { sliceS: params.closedSliceS } : {}),
        ...(c.connections ? { connections: c.connections } : {}),
      });
      if (!cell) throw new Error(`--matrix: ${name} cell ${ci}: ${t.sample} has no "${c.workload}" workload`);
      return cell;
    });
    const comparisons = (s.compare ?? []).flatMap((q) => {
      const [a, b] = [cells[q.a], cells[q.b]];
      if (!a || !b) throw new Error(`--matrix: ${name}: compare names a cell that doesn't exist`);
      const measured = (m) => m !== 'capacity' && (m !== 'p99' || (a.latencyRounds && b.latencyRounds));
      return (q.metrics ?? Object.keys(METRICS)).filter(measured).map((metric) => ({
        id: `${a.workload}.${a.topology.id}-vs-${b.topology.id}.${metric}`,
        question: `${a.topology.label} vs ${b.topology.label}, ${METRICS[metric].title} (${a.workload})`,
        workload: a.workload,
        comparison: `${a.topology.id}-vs-${b.topology.id}`,
        column: q.column ?? b.topology.label,
        metric,
        better: METRICS[metric].better,
        a: a.id,
        b: b.id,
        ...(FIXED_RATE_METRICS.has(metric) && a.latencyRounds && b.latencyRounds ? { latencyAt: 'fixed rate' } : {}),
        limit: q.limit && metric === 'throughput' ? { ratio: q.limit, why: q.why ?? 'given in the matrix' } : null,
      }));
    });
    return {
      name,
      title: s.title ?? name,
      description: s.description ?? 'cells from --matrix',
      interleaved: s.interleaved ?? true,
      cells,
      comparisons,
    };
  });
  return { mode: spec.mode ?? 'custom', params, scenarios };
}
