// Runs a plan: starts each topology once per scenario, runs its cells in order, stops it.
// A cell that fails is recorded and the run goes on; a failing load generator stops everything.
import path from 'node:path';
import { rm, rmdir } from 'node:fs/promises';
import { startTopology, topologyKey, describe, canRunAppOnly, stopRunDir } from './topologies.js';
import { pathFor } from './workloads.js';
import { closedLoop, fixedCount, searchRate } from './measure.js';
import { faultDrill } from './fault.js';
import { GeneratorError } from './tools/errors.js';
import { track } from './cleanup.js';
import { appMemory } from './memory.js';

export { stopAll } from './cleanup.js';

// One start per topology for the whole run: cells that share a topology run together, in plan
// order, except cells that kill instances, which go last so they don't disturb the others.
const destructive = (c) => c.kind === 'fault' || Boolean(c.before?.kill);
function groups(cells) {
  const byKey = new Map();
  for (const cell of cells) {
    const key = topologyKey(cell.topology);
    if (!byKey.has(key)) byKey.set(key, { key, cells: [] });
    byKey.get(key).cells.push(cell);
  }
  const out = [];
  for (const g of byKey.values()) {
    const calm = g.cells.filter((c) => !destructive(c));
    // After a kill the topology is not what later cells expect: each destructive cell gets a fresh start.
    if (calm.length) out.push({ key: g.key, cells: calm });
    for (const c of g.cells.filter(destructive)) out.push({ key: g.key, cells: [c] });
  }
  return out;
}

/** Progress units a cell will tick. */
export function unitsOf(cell, p) {
  if (cell.kind === 'closed') return cell.repeats ?? p.repeats;
  if (cell.kind === 'openloop') return p.maxSteps;
  if (cell.kind === 'fault') return Math.max(1, Math.floor((p.faultS - 1) / p.everyS));
  return 1;
}

function describeTopology(t) {
  return { key: topologyKey(t), label: describe(t), family: t.family ?? 'external', sample: t.sample ?? null, direct: Boolean(t.direct), env: t.env ?? {}, url: t.url ?? null };
}

async function runCell(cell, topo, ctx) {
  const { params: p, tool, ceilings, tick } = ctx;
  // A `url` topology takes the paths of the sample named by pathsFrom (default node-replicas).
  const sample = cell.topology.sample ?? cell.topology.pathsFrom ?? 'node-replicas';
  const route = pathFor(cell.workload, sample, cell.pathOverride ?? cell.topology.paths?.[cell.workload]);
  if (!route) throw new Error(`${sample} has no "${cell.workload}" workload`);
  const url = `${topo.url}${route}`;
  // The kill lands just before the measurement: nginx meets the dead instance on measured traffic.
  if (cell.before?.kill) await topo.signal(cell.before.kill, 'SIGKILL');
  const base = { path: route };
  switch (cell.kind) {
    case 'closed': {
      // Warm up each route once per topology start (JIT, connection pools, caches).
      const warmupS = ctx.warmed.has(route) ? 0 : (cell.warmupS ?? p.warmupS);
      ctx.warmed.add(route);
      const measured = await closedLoop({ url, workload: cell.workload, tool, connections: cell.connections, durationS: cell.durationS ?? p.durationS, warmupS, repeats: cell.repeats ?? p.repeats, ceilings, tick });
      return { ...base, ...measured, ...(topo.pids ? { memory: appMemory(topo.pids()) } : {}) };
    }
    case 'count':
      return { ...base, ...await fixedCount({ url, workload: cell.workload, tool, connections: cell.connections, amount: cell.amount, tick }) };
    case 'openloop': {
      // Start the search from the closed-loop capacity measured over one second.
      const probe = await closedLoop({ url, workload: cell.workload, tool, connections: cell.connections, durationS: 1, warmupS: 0, repeats: 1, ceilings });
      const start = Math.max(5, Math.round(probe.rps * 0.7));
      const search = await searchRate({ url, workload: cell.workload, tool, startRate: start, maxSteps: p.maxSteps, stepS: p.stepS, ceilings, tick });
      return { ...base, closedLoopRps: probe.rps, ...search };
    }
    case 'fault':
      return { ...base, ...await faultDrill({ topo, url, workload: cell.workload, tool, rate: p.faultRate, durationS: p.faultS, everyS: p.everyS, how: cell.how, tick }) };
    default:
      throw new Error(`unknown cell kind ${cell.kind}`);
  }
}

/**
 * Returns one result per cell, in plan order, each with status ok | failed | skipped (an optional
 * cell that could not run, e.g. no database here). hooks: {onGroup(label), tick(n), log(line)}
 */
export async function runPlan({ plan, tool, ceilings, runBase, hooks = {} }) {
  const results = [];
  const built = new Set();
  let gi = 0;
  for (const group of groups(plan.cells)) {
    gi += 1;
    const t = group.cells[0].topology;
    const runDir = path.join(runBase, `t${gi}`);
    hooks.onGroup?.(`${describe(t)} (${[...new Set(group.cells.map((c) => c.scenario))].join(', ')})`);
    let topo;
    // Tracked before up() returns, so Ctrl-C during a start still stops what was started.
    const untrack = t.sample ? track(() => stopRunDir(runDir)) : () => {};
    let startError;
    let dbError;
    const needsDb = group.cells.some((c) => c.workload === 'db');
    try {
      try {
        topo = await startTopology(t, { runDir, log: hooks.log, appOnly: !needsDb, build: !built.has(t.sample) });
      } catch (e) {
        // The database may not run on this machine: measure the rest without it.
        if (!needsDb || !canRunAppOnly(t) || group.cells.every((c) => c.workload === 'db')) throw e;
        dbError = e;
        hooks.log?.(`${describe(t)}: starting without its database (${e.message})`);
        topo = await startTopology(t, { runDir, log: hooks.log, appOnly: true, build: !built.has(t.sample) });
      }
      if (t.sample) built.add(t.sample);
    } catch (e) {
      startError = e;
    }
    const warmed = new Set();
    let allOk = true;
    try {
      for (const cell of group.cells) {
        const record = { id: cell.id, scenario: cell.scenario, kind: cell.kind, workload: cell.workload, topology: describeTopology(cell.topology), tags: cell.tags ?? {}, cpuLimits: topo?.cpuLimits ?? null };
        const units = unitsOf(cell, plan.params);
        let ticked = 0;
        const tick = () => { ticked += 1; hooks.tick?.(1); };
        try {
          if (startError) throw startError;
          if (dbError && cell.workload === 'db') throw new Error(`database unavailable: ${dbError.message}`);
          Object.assign(record, await runCell(cell, topo, { params: plan.params, tool, ceilings, tick, warmed }), { status: 'ok' });
        } catch (e) {
          if (e instanceof GeneratorError) throw e;
          record.status = cell.optional ? 'skipped' : 'failed';
          record.error = e.message;
          hooks.log?.(`${record.status}: ${cell.scenario} / ${describe(t)} / ${cell.workload}: ${e.message}`);
        }
        if (ticked < units) hooks.tick?.(units - ticked);
        if (record.status === 'failed') allOk = false;
        results.push(record);
      }
    } finally {
      if (topo) await topo.stop().catch((e) => hooks.log?.(`stopping ${describe(t)}: ${e.message}`));
      untrack();
      // Logs are kept only where something went wrong.
      if (allOk && !startError) await rm(runDir, { recursive: true, force: true });
    }
  }
  await rmdir(runBase).catch(() => {}); // only when empty: failed topologies keep their logs
  return results.sort((a, b) => a.id - b.id);
}

/** Rough wall-clock seconds for a plan (measurements plus ~2 s per topology start, more for .NET). */
export function estimateSeconds(plan) {
  const p = plan.params;
  let s = 3 * (p.ceilingS ?? 2);
  for (const g of groups(plan.cells)) s += g.cells[0].topology.sample === 'dotnet-api' ? 14 : 2;
  for (const c of plan.cells) {
    if (c.kind === 'closed') s += (c.warmupS ?? p.warmupS) / 2 + (c.repeats ?? p.repeats) * (c.durationS ?? p.durationS) + 0.5;
    else if (c.kind === 'openloop') s += 1 + p.maxSteps * (p.stepS + 0.5);
    else if (c.kind === 'fault') s += p.faultS + 1;
    else s += 3;
  }
  return Math.round(s);
}
