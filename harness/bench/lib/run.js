// Runs a plan. For each scenario: start every deployment it needs (all up at once, each pinned to
// the CPUs of the system under test under the same budget), verify each cell's answer, warm each
// cell up, then measure in interleaved rounds — A B C, then C B A, … — so drift of the machine
// lands on every topology alike. A cell that fails is recorded and the run goes on; a failing load
// generator stops everything.
import path from 'node:path';
import { rm, rmdir } from 'node:fs/promises';
import { deploymentKey } from './topologies.js';
import { startDeployment } from './deployments.js';
import { verify } from './verify.js';
import { closedWindow, fixedCount, searchRate } from './measure.js';
import { getTool } from './tools/index.js';
import { GeneratorError } from './tools/errors.js';
import { summary, round } from './stats.js';

export { stopAll } from './cleanup.js';

/** Seconds a plan will take, roughly: for the estimate before it starts and the time left during it. */
export function estimateSeconds(plan, { buildS = 45, startS = 3 } = {}) {
  const p = plan.params;
  let s = 2 * p.ceilingS + 2;
  const samples = new Set();
  for (const sc of plan.scenarios) {
    const deps = new Set(sc.cells.map((c) => deploymentKey(c.topology)));
    for (const c of sc.cells) samples.add(c.topology.sample);
    s += deps.size * startS;
    for (const c of sc.cells) s += costOf(c, p);
  }
  return Math.round(s + (samples.has('dotnet-api') ? buildS : 0));
}

function costOf(cell, p) {
  if (cell.kind === 'closed') return p.warmupS + 0.5 + (cell.rounds ?? p.rounds) * ((cell.windowS ?? p.windowS) + p.rewarmS + 0.4);
  if (cell.kind === 'openloop') return 2 + p.maxSteps * (p.stepS + 1.5);
  if (cell.kind === 'count') return 10;
  return 15;
}

function usageFor(dep, t) {
  return () => dep.usage(t);
}

const METRIC_OF = { rps: (r) => r.rps, p50: (r) => r.latencyMs.p50, p90: (r) => r.latencyMs.p90, p99: (r) => r.latencyMs.p99, max: (r) => r.latencyMs.max, cpuPerRequestUs: (r) => r.cpuPerRequestUs, memoryMiB: (r) => r.memoryMiB };

/** A cell's figures over its rounds: median and spread of each. */
export function summariseRounds(rounds) {
  const over = (f, digits) => summary(rounds.map(f), digits);
  return {
    rps: over(METRIC_OF.rps, 1),
    latencyMs: { p50: over(METRIC_OF.p50, 2), p90: over(METRIC_OF.p90, 2), p99: over(METRIC_OF.p99, 2), max: over(METRIC_OF.max, 2) },
    cpuPerRequestUs: over(METRIC_OF.cpuPerRequestUs, 2),
    memoryMiB: over(METRIC_OF.memoryMiB, 1),
    requests: rounds.reduce((s, r) => s + r.requests, 0),
    errors: rounds.reduce((s, r) => s + r.errors, 0),
  };
}

/**
 * Runs every scenario of the plan. ctx: { tool, pacedTool, ceilings, isolation, runBase, hooks:
 * { phase(label), tick(seconds), log(line) } }. Returns the cells, each with status
 * ok | failed | skipped and its rounds.
 */
export async function runPlan(plan, ctx) {
  const out = [];
  const built = new Set();
  let n = 0;
  for (const scenario of plan.scenarios) {
    const deps = new Map();
    for (const c of scenario.cells) {
      const key = deploymentKey(c.topology);
      if (!deps.has(key)) deps.set(key, { key, sample: c.topology.sample, env: c.topology.env, cells: [] });
      deps.get(key).cells.push(c);
    }
    const records = new Map(scenario.cells.map((c) => [c.id, { ...c, status: 'pending', rounds: [] }]));
    try {
      for (const d of deps.values()) {
        n += 1;
        const runDir = path.join(ctx.runBase, `d${n}`);
        ctx.hooks.phase?.(`starting ${d.sample} (${d.cells[0].topology.label})`);
        try {
          d.handle = await startDeployment(d, {
            runDir, cpuset: ctx.isolation.pinned ? ctx.isolation.sutCpus : undefined, budget: ctx.isolation.budgetCpus,
            build: !built.has(d.sample), needsDb: d.cells.some((c) => c.needsDb), log: ctx.hooks.log,
          });
          d.runDir = runDir;
          built.add(d.sample);
        } catch (e) {
          for (const c of d.cells) Object.assign(records.get(c.id), { status: 'failed', error: e.message });
          ctx.hooks.log?.(`failed: ${e.message}`);
          continue;
        }
        for (const c of d.cells) {
          const r = records.get(c.id);
          r.cpuLimits = d.handle.state.cpuLimits;
          if (c.needsDb && !d.handle.withDatabase) {
            Object.assign(r, { status: 'skipped', error: `no database here: ${d.handle.databaseError ?? 'the sample started without it'}` });
            continue;
          }
          try {
            r.url = `${d.handle.url(c.topology)}${c.path}`;
            await verify(r.url, c.workload);
          } catch (e) {
            Object.assign(r, { status: 'failed', error: e.message });
          }
        }
      }
      skipOrphans(scenario, records);
      const live = scenario.cells.filter((c) => records.get(c.id).status === 'pending');
      const depOf = (c) => deps.get(deploymentKey(c.topology)).handle;
      if (scenario.interleaved) await interleave(live, records, depOf, plan.params, ctx);
      else await oneByOne(live, records, depOf, plan.params, ctx);
    } catch (e) {
      if (e instanceof GeneratorError) throw e;
      throw e;
    } finally {
      ctx.hooks.phase?.(`stopping ${scenario.name}`);
      for (const d of deps.values()) {
        if (!d.handle) continue;
        const failed = d.cells.some((c) => records.get(c.id).status === 'failed');
        await d.handle.stop().catch((e) => ctx.hooks.log?.(`stopping ${d.sample}: ${e.message}`));
        // Logs are kept only where something went wrong.
        if (!failed) await rm(d.runDir, { recursive: true, force: true });
      }
    }
    for (const c of scenario.cells) out.push(records.get(c.id));
  }
  await rmdir(ctx.runBase).catch(() => {});
  return out;
}

async function interleave(cells, records, depOf, p, ctx) {
  const gen = getTool(ctx.tool);
  const threads = ctx.isolation.generatorThreads;
  const windowOf = (c) => c.windowS ?? p.windowS;
  for (const c of cells) {
    ctx.hooks.phase?.(`warm-up ${c.id}`);
    await guarded(records.get(c.id), () => gen.run({ url: records.get(c.id).url, connections: c.connections, durationS: p.warmupS, threads }));
    ctx.hooks.tick?.(p.warmupS + 0.5);
  }
  const rounds = Math.max(...cells.map((c) => c.rounds ?? p.rounds), 0);
  for (let r = 1; r <= rounds; r += 1) {
    const order = r % 2 ? cells : [...cells].reverse();
    for (const c of order) {
      const rec = records.get(c.id);
      if (rec.status === 'failed' || r > (c.rounds ?? p.rounds)) continue;
      ctx.hooks.phase?.(`round ${r}/${rounds} ${c.id}`);
      await guarded(rec, async () => {
        if (p.rewarmS > 0) await gen.run({ url: rec.url, connections: c.connections, durationS: p.rewarmS, threads });
        const w = await closedWindow({ url: rec.url, tool: ctx.tool, connections: c.connections, durationS: windowOf(c), threads, usage: usageFor(depOf(c), c.topology) });
        rec.rounds.push({ round: r, at: new Date().toISOString(), ...w });
      });
      ctx.hooks.tick?.(windowOf(c) + p.rewarmS + 0.4);
    }
  }
  for (const c of cells) finish(records.get(c.id), { tool: ctx.tool, windowS: windowOf(c), warmupS: p.warmupS, rewarmS: p.rewarmS, ceiling: ctx.ceilings?.[ctx.tool] });
}

async function oneByOne(cells, records, depOf, p, ctx) {
  const threads = ctx.isolation.generatorThreads;
  for (const c of cells) {
    const rec = records.get(c.id);
    ctx.hooks.phase?.(`${c.kind} ${c.id}`);
    await guarded(rec, async () => {
      if (c.kind === 'openloop') {
        // Start below the closed-loop capacity measured here with the same pinning.
        const probe = await closedWindow({ url: rec.url, tool: ctx.tool, connections: c.connections, durationS: p.rewarmS + 2, threads });
        const tool = c.tool ?? ctx.pacedTool;
        const search = await searchRate({ url: rec.url, tool, startRate: probe.rps * 0.7, maxSteps: p.maxSteps, stepS: c.stepS ?? p.stepS, threads, onStep: (s) => ctx.hooks.log?.(`  ${c.id} ${s.rate}/s ${s.sustained ? 'sustained' : `not sustained (${s.why})`}`) });
        Object.assign(rec, { probeRps: probe.rps, ...search });
      } else if (c.kind === 'count') {
        Object.assign(rec, await fixedCount({ url: rec.url, tool: c.tool ?? ctx.pacedTool, connections: c.connections, amount: c.amount, threads, usage: usageFor(depOf(c), c.topology) }));
      } else {
        throw new Error(`unknown cell kind ${c.kind}`);
      }
      rec.status = 'ok';
    });
    ctx.hooks.tick?.(costOf(c, p));
  }
}

// A cell every comparison of which lost its other side (e.g. the Node side of a database question
// where MongoDB can't run) measures nothing anyone reads: skip it and save its time.
function skipOrphans(scenario, records) {
  if (!scenario.comparisons.length) return;
  const alive = (id) => ['pending', 'ok'].includes(records.get(id)?.status);
  for (const c of scenario.cells) {
    const qs = scenario.comparisons.filter((q) => q.a === c.id || q.b === c.id);
    if (!qs.length || !alive(c.id)) continue;
    const partners = qs.map((q) => (q.a === c.id ? q.b : q.a));
    if (partners.every((id) => !alive(id))) {
      Object.assign(records.get(c.id), { status: 'skipped', error: `nothing to compare it with here (${partners.map((id) => `${id}: ${records.get(id)?.error ?? records.get(id)?.status}`).join('; ')})` });
    }
  }
}

// A failing cell is recorded; a failing generator stops the run.
async function guarded(rec, fn) {
  if (rec.status === 'failed') return;
  try {
    await fn();
  } catch (e) {
    if (e instanceof GeneratorError) throw e;
    Object.assign(rec, { status: 'failed', error: e.message });
  }
}

function finish(rec, { tool, windowS, warmupS, rewarmS, ceiling }) {
  if (rec.status === 'failed') return;
  if (rec.rounds.length === 0) { Object.assign(rec, { status: 'failed', error: 'no round completed' }); return; }
  if (rec.rounds.every((r) => r.requests === 0)) { Object.assign(rec, { status: 'failed', error: `no request completed in ${rec.rounds.length} × ${windowS} s at ${rec.connections} connections` }); return; }
  Object.assign(rec, { status: 'ok', tool, windowS, warmupS, rewarmS, ...summariseRounds(rec.rounds) });
  rec.generatorBound = Boolean(ceiling?.rps && rec.rps.median > 0.7 * ceiling.rps);
  rec.ceilingShare = ceiling?.rps ? round(rec.rps.median / ceiling.rps, 3) : null;
}
