// Runs a plan. For each scenario: start every deployment it needs (all up at once, each pinned to
// the CPUs of the system under test under the same budget), verify each cell's answer, then block
// by block (the cells its questions pair) warm each cell up and measure in interleaved rounds —
// A B C, then C B A, … — so drift of the machine lands on every topology alike. A cell that fails
// is recorded and the run goes on; a failing load generator stops everything.
import path from 'node:path';
import { rm, rmdir } from 'node:fs/promises';
import { deploymentKey } from './topologies.js';
import { startDeployment } from './deployments.js';
import { verify, everyProcessServes } from './verify.js';
import { blocksOf, warmUpOrder } from './blocks.js';
import { closedWindow, combineWindows, latencyBlock, sliceOrder, sliceSeed, fixedCount, fixedRateRun, searchRate, latencyRate, latencyRounds } from './measure.js';
import { getTool } from './tools/index.js';
import { GeneratorError } from './tools/errors.js';
import { summary, round, median } from './stats.js';
import { startNaiveBalancer } from './naive-balancer.js';
import { faultDrill } from './drills/fault.js';
import { rolloutDrill } from './drills/rollout.js';
import { describeSample } from './samples.js';
import { WORKLOADS } from './workloads.js';
import { availableCpus, formatCpuList } from '../../runner/index.js';

export { stopAll } from './cleanup.js';

/** Seconds a plan will take, roughly: for the estimate before it starts and the time left during it. */
const BUILD_S = 45;
const START_S = 3;
const startupSeconds = (deployments, builds) => deployments * START_S + (builds ? BUILD_S : 0);

export function estimateSeconds(plan, { buildS = BUILD_S, startS = START_S } = {}) {
  const p = plan.params;
  let s = 2 * p.ceilingS + 2;
  const samples = new Set();
  for (const sc of plan.scenarios) {
    const deps = new Set(sc.cells.map((c) => deploymentKey(c.topology)));
    for (const c of sc.cells) samples.add(c.topology.sample);
    s += deps.size * startS;
    const seen = new Set();
    for (const c of sc.cells) {
      const key = deploymentKey(c.topology);
      s += costOf(c, p, !seen.has(key));
      seen.add(key);
    }
  }
  return Math.round(s + (samples.has('dotnet-api') ? buildS : 0));
}

const roundsOf = (c, p) => c.rounds ?? p.rounds;
const windowOf = (c, p) => c.windowS ?? p.windowS;

// The seconds of load a started deployment needs before it is steady (x-bench.warmup_min_s):
// `process` once per deployment, or `process_per_cpu` for each process that shares a CPU (V8
// optimises each process on its own: a cluster of 2 on one CPU needs twice the wall time).
export function processWarmupFloor(t) {
  const floors = describeSample(t.sample).warmupMinS;
  const perCpu = floors.process_per_cpu ? floors.process_per_cpu * Math.max(1, Math.ceil(t.processes / (t.budgetCpus || 1))) : 0;
  return Math.max(floors.process ?? 0, perCpu);
}

// The least seconds a cell's warm-up takes: its workload's floor, and on the deployment's first
// warm-up the runtime's.
function warmupFloor(cell, firstOnDeployment) {
  return Math.max(describeSample(cell.topology.sample).warmupMinS[cell.workload] ?? 0, firstOnDeployment ? processWarmupFloor(cell.topology) : 0);
}

const warmupCost = (cell, p, firstOnDeployment) => Math.max(p.warmupExpectS ?? p.warmupS, warmupFloor(cell, firstOnDeployment));

// A cell's latency window at a fixed rate: whole slices of latencySliceS, taken in turn with the others.
const PACED_OVERHEAD_S = 0.05; // per slice
const latencySlicesOf = (c, p) => Math.max(1, Math.round((p.latencyWindowS ?? windowOf(c, p)) / p.latencySliceS));
const latencyWindowCost = (c, p) => latencySlicesOf(c, p) * (p.latencySliceS + PACED_OVERHEAD_S) + (p.latencyWarmS ?? 0);
const latencyCost = (cell, p) => latencyRounds(roundsOf(cell, p), cell.latencyRounds).size * latencyWindowCost(cell, p);

// A cell's saturated window in a round: whole or in slices of cell.sliceS (each a wrk run of its own).
const slicesOf = (c, p) => (c.sliceS ? Math.max(1, Math.round(windowOf(c, p) / c.sliceS)) : 1);
// A sliced window: wrk's start and stop around each slice; a whole one: its re-warm first.
const closedCost = (c, p) => (c.sliceS ? slicesOf(c, p) * (c.sliceS + 0.06) : windowOf(c, p) + p.rewarmS + 0.4);

function costOf(cell, p, firstOnDeployment = false) {
  if (cell.kind === 'closed') return warmupCost(cell, p, firstOnDeployment) + roundsOf(cell, p) * closedCost(cell, p) + latencyCost(cell, p);
  if (cell.kind === 'count') return 2 + roundsOf(cell, p) * (cell.expectS ?? 8);
  if (cell.kind === 'openloop') return 2 + p.maxSteps * (p.stepS + 1.5);
  if (cell.kind === 'fixedrate') return 5 + cell.requests / Math.min(cell.rate, cell.expectRps ?? cell.rate);
  if (cell.kind === 'fault') return 3 + cell.kills * (cell.topology.runtime === 'dotnet' ? 5 : 3);
  if (cell.kind === 'rollout') return 3 + cell.topology.processes * (cell.topology.runtime === 'dotnet' ? 4 : 2);
  return 15;
}

// Median and spread of the figures every window has: req/s, latency, CPU per request; failures summed.
function figures(windows) {
  const over = (f, digits = 2) => summary(windows.map(f), digits);
  return {
    rps: over((w) => w.rps, 1),
    latencyMs: { p50: over((w) => w.latencyMs.p50), p90: over((w) => w.latencyMs.p90), p99: over((w) => w.latencyMs.p99), max: over((w) => w.latencyMs.max) },
    cpuPerRequestUs: over((w) => w.cpuPerRequestUs),
    errors: windows.reduce((s, w) => s + w.errors, 0),
  };
}

/** A cell's figures over its rounds: median and spread of each. */
export function summariseRounds(rounds) {
  const paced = rounds.filter((r) => r.paced).map((r) => r.paced);
  return {
    ...figures(rounds),
    memoryMiB: summary(rounds.map((r) => r.memoryMiB), 1),
    requests: rounds.reduce((s, r) => s + r.requests, 0),
    // The latency windows at a fixed rate, over the rounds that had one.
    ...(paced.length ? { paced: { rate: paced[0].rate, rounds: paced.length, ...figures(paced), held: paced.every((w) => w.held) } } : {}),
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
      if (!deps.has(key)) deps.set(key, { key, sample: c.topology.sample, env: c.topology.env, cpuset: c.topology.cpuset, budget: c.budget, cells: [] });
      deps.get(key).cells.push(c);
    }
    const records = new Map(scenario.cells.map((c) => [c.id, { ...c, status: 'pending', rounds: [] }]));
    const balancers = [];
    try {
      // One deployment per sample first (it builds, if its sample has a build step), then the rest
      // at once: starting is mostly waiting for health checks.
      const all = [...deps.values()];
      for (const d of all) { n += 1; d.runDir = path.join(ctx.runBase, `d${n}`); }
      const noDatabase = new Map(); // sample -> why its database can't run here, once a start found out
      const start = async (d) => {
        ctx.hooks.phase?.(`starting ${d.sample} (${d.cells[0].topology.label})`);
        try {
          d.handle = await startDeployment(d, {
            runDir: d.runDir, ...placement(d, ctx.isolation),
            build: !built.has(d.sample), needsDb: d.cells.some((c) => c.needsDb), knownDatabaseError: noDatabase.get(d.sample) ?? null, log: ctx.hooks.log,
          });
          if (d.handle.databaseError) noDatabase.set(d.sample, d.handle.databaseError);
        } catch (e) {
          // A process manager this machine can't run (reusePort before Node 22.12 or off Linux, PM2
          // not installed) is skipped with its one line; the rest of the run goes on.
          const optional = OPTIONAL_STRATEGIES.has(d.cells[0].topology.strategy);
          const why = optional ? `${d.cells[0].topology.strategy} skipped: ${whatItSaid(e.message)}` : e.message;
          for (const c of d.cells) Object.assign(records.get(c.id), { status: optional ? 'skipped' : 'failed', error: why });
          ctx.hooks.log?.(optional ? why : `failed: ${e.message}`);
          return;
        }
        for (const c of d.cells) await prepare(c, records.get(c.id), d.handle, balancers);
      };
      const first = all.filter((d, i) => all.findIndex((x) => x.sample === d.sample) === i);
      const buildsDotnet = first.some((d) => d.sample === 'dotnet-api' && !built.has(d.sample));
      for (const d of first) { await start(d); built.add(d.sample); }
      await Promise.all(all.filter((d) => !first.includes(d)).map(start));
      ctx.hooks.tick?.(startupSeconds(all.length, buildsDotnet));
      skipOrphans(scenario, records);
      const live = scenario.cells.filter((c) => records.get(c.id).status === 'pending');
      const run = scenarioRun(records, deps, plan.params, ctx);
      const { depOf } = run;
      // Instances an experiment kills go down after every answer was verified, before anything is measured.
      // Killed as `docker kill` does, so the sample's restart policy does not bring them back.
      for (const c of live.filter((x) => x.kill)) await guarded(records.get(c.id), () => depOf(c).killHeld(c.kill));
      const rounded = live.filter((c) => c.kind === 'closed' || c.kind === 'count');
      if (scenario.interleaved) await interleave(run, rounded, scenario.comparisons ?? []);
      await oneByOne(run, live.filter((c) => !scenario.interleaved || !rounded.includes(c)));
      for (const extra of scenario.derive?.(records) ?? []) records.set(extra.id, extra);
    } finally {
      ctx.hooks.phase?.(`stopping ${scenario.name}`);
      for (const b of balancers) await b.stop();
      for (const d of deps.values()) {
        if (!d.handle) continue;
        const failed = d.cells.some((c) => records.get(c.id).status === 'failed');
        await d.handle.stop().catch((e) => ctx.hooks.log?.(`stopping ${d.sample}: ${e.message}`));
        // Logs are kept only where something went wrong.
        if (!failed) await rm(d.runDir, { recursive: true, force: true });
      }
    }
    out.push(...records.values());
  }
  await rmdir(ctx.runBase).catch(() => {});
  return out;
}

const OPTIONAL_STRATEGIES = new Set(['reuseport', 'pm2']);
// What a process that would not start said last (the runner's error carries it after the exit),
// without the run folder's paths: one line for the output and results.json.
function whatItSaid(message) {
  const last = String(message).split('\n').map((l) => l.trim()).filter(Boolean).at(-1) ?? String(message);
  const m = /exited before it was healthy \(([^)]*)\)(?:: (.*))?$/.exec(last);
  return m ? (m[2] ? `${m[2]} (${m[1]})` : m[1]) : last.replace(/\/\S+\//g, '');
}

// Everything one scenario's measurement needs, in one object: each cell's record, the deployment it
// runs on, the mode's parameters and the run's context (tools, isolation, progress hooks).
function scenarioRun(records, deps, params, ctx) {
  const depOf = (c) => deps.get(deploymentKey(c.topology)).handle;
  return {
    records,
    params,
    ctx,
    threads: ctx.isolation.generatorThreads,
    depOf,
    toolOf: (c) => c.tool ?? ctx.tool,
    // CPU time and memory of the services the cell's topology covers, read around each window.
    usageOf: (c) => () => depOf(c).usage(c.topology, c.workload),
  };
}

// Where a deployment runs: on the CPUs left to the system under test (pinned, under its budget), or
// on every CPU (cpuset 'all'): a verdict budget larger than what is left after the generator's
// CPUs, the generator then sharing them, or an experiment whose generator does next to nothing.
function placement(d, iso) {
  if (!iso.pinned) return { cpuset: undefined, budget: d.budget ?? iso.budgetCpus };
  if (d.cpuset === 'all') return { cpuset: formatCpuList(availableCpus()), budget: d.budget };
  return { cpuset: iso.sutCpus, budget: d.budget ?? iso.budgetCpus };
}

const readyProcesses = new WeakSet(); // deployments whose every process has answered

// Verify a cell's answer, and record what an experiment needs to know of the started deployment.
async function prepare(c, r, handle, balancers) {
  r.cpuLimits = handle.state.cpuLimits;
  if (c.needsDb && !handle.withDatabase) {
    Object.assign(r, { status: 'skipped', error: `no database here: ${handle.databaseError ?? 'the sample started without it'}` });
    return;
  }
  try {
    if (c.via === 'naive-rr') {
      const b = await startNaiveBalancer(handle.instanceUrls());
      balancers.push(b);
      r.url = `${b.url}${c.path}`;
    } else {
      r.url = `${handle.url(c.topology)}${c.path}`;
    }
    // Several processes behind one port: each must serve before any load goes through nginx.
    if (c.topology.workers > 1 && !readyProcesses.has(handle)) {
      await everyProcessServes(`${handle.url({ ...c.topology, viaNginx: false })}/`, c.topology.workers);
      readyProcesses.add(handle);
    }
    await verify(`${handle.url(c.topology)}${c.path}`, c.workload);
    if (c.recordDraw) r.draw = await handle.describeInstances();
  } catch (e) {
    Object.assign(r, { status: 'failed', error: e.message });
  }
}

// The cells of an interleaved scenario, block by block (blocks.js: the cells its questions pair):
// each block warmed up, then measured in its rounds, so no cell sits idle long between windows.
async function interleave(run, cells, comparisons) {
  const warmedProcesses = new Set(); // deployments whose runtime got its once-per-process warm-up
  for (const block of blocksOf(cells, comparisons)) await interleaveBlock(run, block, warmedProcesses);
  for (const c of cells) finish(run.records.get(c.id), { tool: run.toolOf(c), windowS: c.kind === 'count' ? null : windowOf(c, run.params), warmupS: run.params.warmupS, rewarmS: c.sliceS ? 0 : run.params.rewarmS, ceiling: run.ctx.ceilings?.[run.toolOf(c)] });
}

async function interleaveBlock(run, cells, warmedProcesses) {
  const { records, params: p, ctx, threads, toolOf } = run;
  const rounds = Math.max(...cells.map((c) => roundsOf(c, p)), 0);
  // Every cell of the block is warmed up to a steady rate before the first round, all of them
  // first: a runtime's background compiler (V8's optimising tiers, .NET's tier-1 JIT with dynamic
  // PGO) gets little of a saturated CPU quota, and finishes its queue only while the cell sits idle
  // — here, while the others warm up. Measured right after its own warm-up, a cell's first window
  // came out up to 2.7× below its later ones. The longest warm-ups first (a deployment's first one,
  // a minute per .NET process): a Node cell warmed before them sat idle through them past the
  // ~100 s after which V8's memory reducer shrinks an idle heap (blocks.js), and came out ×0.5–×0.6
  // of its later rounds in its first (light JSON at 2 CPUs, default run, 2026-11-26).
  const floorOf = (c) => warmupFloor(c, !warmedProcesses.has(deploymentKey(c.topology)));
  for (const c of warmUpOrder(cells, floorOf)) {
    const rec = records.get(c.id);
    if (c.kind === 'count' || rec.status === 'failed') continue;
    ctx.hooks.phase?.(`warm-up ${c.id}`);
    await guarded(rec, async () => {
      const floor = floorOf(c);
      warmedProcesses.add(deploymentKey(c.topology));
      rec.warmup = await warmUp(getTool(toolOf(c)), { url: rec.url, connections: c.connections, threads }, { ...p, warmupS: Math.max(p.warmupS, floor), warmupMaxS: Math.max(p.warmupMaxS, floor + 6) });
    });
    ctx.hooks.tick?.(rec.warmup?.seconds ?? p.warmupS);
  }
  // Latency is compared at a fixed rate below every side's capacity (at saturation a p99 is the
  // queue's, and swings ×3–×10 between rounds): one rate per workload, from the warm-ups.
  const rateOf = latencyRatesOf(cells.filter((c) => c.latencyRounds), records, p);
  const latencyIn = new Map(cells.map((c) => [c.id, latencyRounds(roundsOf(c, p), c.latencyRounds)]));
  for (let r = 1; r <= rounds; r += 1) {
    const order = r % 2 ? cells : [...cells].reverse();
    for (const c of order) {
      const rec = records.get(c.id);
      if (rec.status === 'failed' || r > roundsOf(c, p) || c.sliceS) continue;
      ctx.hooks.phase?.(`round ${r}/${rounds} ${c.id}`);
      const usage = run.usageOf(c);
      await guarded(rec, async () => {
        if (c.kind === 'count') {
          const w = await fixedCount({ url: rec.url, tool: toolOf(c), connections: c.connections, amount: c.amount, usage, timeline: true });
          rec.rounds.push({ round: r, at: new Date().toISOString(), ...w });
          return;
        }
        // A short re-warm before every window: the cell sat idle while the others were measured.
        if (p.rewarmS > 0) await rewarm(run, c);
        const w = await closedWindow({ url: rec.url, tool: toolOf(c), connections: c.connections, durationS: windowOf(c, p), threads, usage });
        rec.rounds.push({ round: r, at: new Date().toISOString(), ...w });
      });
      ctx.hooks.tick?.(c.kind === 'count' ? (c.expectS ?? 8) : closedCost(c, p));
    }
    const sliced = cells.filter((c) => c.sliceS && r <= roundsOf(c, p) && records.get(c.id).status !== 'failed');
    await slicedRound(run, r, rounds, sliced);
    await latencyRound(run, r, cells.filter((c) => latencyIn.get(c.id).has(r) && rateOf.has(rateKey(c))), rateOf);
  }
}

const rewarm = (run, c) => getTool(run.toolOf(c)).run({ url: run.records.get(c.id).url, connections: c.connections, durationS: run.params.rewarmS, threads: run.threads });

// The round's saturated windows of the cells that take them in slices (cell.sliceS): each cell's
// window as slices of sliceS, in turn with the other cells (in a fresh order every slice), so that the machine's
// changes of state — a neighbour's burst, steal — land on every cell of the round alike instead of
// on whichever one held a 5 s window then. The slices are added up into the round's window.
async function slicedRound(run, r, rounds, cells) {
  if (!cells.length) return;
  const { records, params: p, ctx, threads, toolOf } = run;
  const live = () => cells.filter((c) => records.get(c.id).status !== 'failed');
  // No re-warm first: every slice, the first too, follows the same wait while the others take
  // theirs, so a re-warm before the first would only make it unlike the rest (and cost a second a
  // cell: wrk runs whole seconds).
  const windows = new Map(cells.map((c) => [c.id, []]));
  const started = new Map(); // a cell's round begins with its first slice
  const n = Math.max(...cells.map((c) => slicesOf(c, p)));
  for (let s = 0; s < n; s += 1) {
    for (const c of sliceOrder(live(), sliceSeed(r, s))) {
      if (s >= slicesOf(c, p)) continue;
      const rec = records.get(c.id);
      if (s === 0) {
        ctx.hooks.phase?.(`round ${r}/${rounds} ${c.id}`);
        started.set(c.id, new Date().toISOString());
      }
      const usage = run.usageOf(c);
      await guarded(rec, async () => {
        const at = Date.now();
        windows.get(c.id).push({ ...await closedWindow({ url: rec.url, tool: toolOf(c), connections: c.connections, durationS: windowOf(c, p) / slicesOf(c, p), threads, usage }), at });
      });
    }
  }
  for (const c of live()) {
    const ws = windows.get(c.id);
    if (ws.length) records.get(c.id).rounds.push({ round: r, at: started.get(c.id), ...combineWindows(ws), slices: ws.length, sliceRps: ws.map((w) => w.rps), sliceCpuMs: ws.map((w) => w.cpuMs), sliceAt: ws.map((w) => w.at) });
    ctx.hooks.tick?.(closedCost(c, p));
  }
}

// The round's latency windows at a fixed rate, in one block of slices taken in turn (measure.js
// latencyBlock), each kept with the cell's closed window of the same round.
async function latencyRound(run, r, cells, rateOf) {
  const { records, params: p, ctx } = run;
  const live = cells.filter((c) => records.get(c.id).status !== 'failed' && records.get(c.id).rounds.at(-1)?.round === r);
  if (!live.length) return;
  ctx.hooks.phase?.(`round ${r} latency at a fixed rate: ${live.map((c) => c.id).join(', ')}`);
  const slices = Math.max(...live.map((c) => latencySlicesOf(c, p)));
  const byId = await latencyBlock({ targets: live.map((c) => ({ id: c.id, url: records.get(c.id).url, rate: rateOf.get(rateKey(c)), connections: c.connections, usage: run.usageOf(c) })), slices, sliceS: p.latencySliceS, round: r, warmS: p.latencyWarmS ?? 0 });
  for (const c of live) records.get(c.id).rounds.at(-1).paced = byId.get(c.id);
  ctx.hooks.tick?.(live.reduce((s, c) => s + latencyWindowCost(c, p), 0));
}

// A workload's cells at one budget share a fixed rate: its nominal rate per CPU × the budget.
const rateKey = (c) => `${c.workload}@${c.topology.budgetCpus ?? 1}`;

// rateKey -> the fixed rate its latency windows run at (from the slowest cell's warm-up).
function latencyRatesOf(cells, records, p) {
  const capacities = new Map();
  for (const c of cells) {
    // The median of its last three warm-up chunks: one 2 s chunk can be 20% off, and a rate that
    // moved from one 1-2-5 step to the next between runs would make them measure different things.
    const capacity = median(records.get(c.id).warmup?.rps?.slice(-3) ?? []);
    if (!Number.isFinite(capacity)) continue;
    capacities.set(rateKey(c), [...(capacities.get(rateKey(c)) ?? []), capacity]);
  }
  const rates = new Map();
  for (const [key, caps] of capacities) {
    const c = cells.find((x) => rateKey(x) === key);
    const nominal = (WORKLOADS[c.workload]?.latencyRatePerCpu ?? Infinity) * (c.topology.budgetCpus ?? 1);
    const rate = latencyRate(caps, p.latencyLoad, Math.max(1, Math.round(nominal)));
    if (rate) rates.set(key, rate);
  }
  return rates;
}

async function oneByOne(run, cells) {
  const { records, depOf, params: p, ctx, threads } = run;
  for (const c of cells) {
    const rec = records.get(c.id);
    ctx.hooks.phase?.(`${c.kind} ${c.id}`);
    const usage = run.usageOf(c);
    await guarded(rec, async () => {
      if (c.kind === 'openloop') {
        // Start below the closed-loop capacity measured here with the same pinning.
        const probe = await closedWindow({ url: rec.url, tool: ctx.tool, connections: c.connections, durationS: 2, threads });
        // Open loop proper: the paced generator sends on schedule and times from the intended send.
        const tool = c.tool ?? 'paced';
        const search = await searchRate({ url: rec.url, tool, startRate: probe.rps * 0.7, maxSteps: p.maxSteps, stepS: c.stepS ?? p.stepS, threads, onStep: (s) => ctx.hooks.log?.(`  ${c.id} ${s.rate}/s ${s.sustained ? 'sustained' : `not sustained (${s.why})`}`) });
        Object.assign(rec, { probeRps: probe.rps, ...search });
      } else if (c.kind === 'fixedrate') {
        Object.assign(rec, { tool: c.tool ?? ctx.pacedTool, ...await fixedRateRun({ url: rec.url, tool: c.tool ?? ctx.pacedTool, rate: c.rate, requests: c.requests, connections: c.connections, keepAlive: c.keepAlive, threads, usage }) });
      } else if (c.kind === 'fault' || c.kind === 'rollout') {
        const d = depOf(c);
        const post = describeSample(c.topology.sample).post;
        const mix = { get: c.path, post: post ? { path: post, body: '{"drill":true}', contentType: 'application/json' } : undefined, postShare: post ? c.postShare : 0 };
        const log = (l) => ctx.hooks.log?.(`  ${c.id}: ${l}`);
        rec.drill = c.kind === 'fault'
          ? await faultDrill({ runner: d.runner, runDir: d.runDir, url: rec.url, how: c.how, kills: c.kills, rate: c.rate, mix, log })
          : await rolloutDrill({ runner: d.runner, runDir: d.runDir, sample: c.topology.sample, url: rec.url, rate: c.rate, mix, log });
      } else if (c.kind === 'count') {
        const w = await fixedCount({ url: rec.url, tool: c.tool ?? ctx.pacedTool, connections: c.connections, amount: c.amount, usage, timeline: true });
        rec.rounds.push({ round: 1, at: new Date().toISOString(), ...w });
        finish(rec, { tool: c.tool ?? ctx.pacedTool, windowS: null, warmupS: 0, rewarmS: 0 });
        return;
      } else {
        throw new Error(`unknown cell kind ${c.kind}`);
      }
      rec.status = 'ok';
    });
    ctx.hooks.tick?.(costOf(c, p));
  }
}

/**
 * Warm a cell up until it is steady: chunks of warmupChunkS until two in a row agree within
 * `steady` (JIT tiers, connection and database pools, caches settle at different speeds: a Node
 * process in seconds, .NET's tiered compilation and a database pool in tens of seconds), at least
 * warmupS and at most warmupMaxS. Returns { seconds, steady, rps: [per chunk] }.
 */
export async function warmUp(tool, { url, connections, threads }, p, steady = 0.03) {
  const chunk = p.warmupChunkS ?? 2;
  const rps = [];
  let spent = 0;
  while (spent < (p.warmupMaxS ?? p.warmupS)) {
    const r = await tool.run({ url, connections, durationS: chunk, threads });
    rps.push(round(r.rps));
    spent += chunk;
    const [prev, last] = rps.slice(-2);
    if (spent >= p.warmupS && rps.length >= 2 && Math.abs(last - prev) <= steady * Math.max(last, prev)) return { seconds: spent, steady: true, rps };
  }
  return { seconds: spent, steady: false, rps };
}

// A cell every comparison of which lost its other side (e.g. the Node side of a database question
// where MongoDB can't run) measures nothing anyone reads: skip it and save its time.
function skipOrphans(scenario, records) {
  if (!scenario.comparisons.length) return;
  const alive = (id) => ['pending', 'ok'].includes(records.get(id)?.status);
  for (const c of scenario.cells) {
    const qs = scenario.comparisons.filter((q) => q.a === c.id || q.b === c.id);
    if (!qs.length || !alive(c.id) || c.keep) continue;
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

/** @param {object} rec @param {{ tool: string, windowS: number | null, warmupS: number, rewarmS: number, ceiling?: object }} how */
function finish(rec, { tool, windowS, warmupS, rewarmS, ceiling }) {
  if (rec.status === 'failed') return;
  if (rec.rounds.length === 0) { Object.assign(rec, { status: 'failed', error: 'no round completed' }); return; }
  if (rec.rounds.every((r) => r.requests === 0)) { Object.assign(rec, { status: 'failed', error: `no request completed in ${rec.rounds.length} round(s) at ${rec.connections} connections` }); return; }
  Object.assign(rec, { status: 'ok', tool, windowS, warmupS, rewarmS, ...summariseRounds(rec.rounds) });
  rec.generatorBound = Boolean(ceiling?.rps && rec.rps.median > 0.7 * ceiling.rps);
  // The generator's share of the machine in the cell's saturated windows (the median round).
  rec.generatorShare = median(rec.rounds.map((r) => r.generatorShare).filter(Number.isFinite));
  rec.ceilingShare = ceiling?.rps ? round(rec.rps.median / ceiling.rps, 3) : null;
}
