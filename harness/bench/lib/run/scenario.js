// A plan, one scenario after another: start every deployment its cells need (each pinned to the CPUs of
// the system under test under its budget; an interleaved one as its blocks reach it), verify each
// cell's answer, measure (interleaved or one by one), then stop what was started. A cell that fails is
// recorded and the run goes on.
import path from 'node:path';
import { rm, rmdir } from 'node:fs/promises';
import { startDeployment } from './deployments.js';
import { verify, everyProcessServes } from './check-responses.js';
import { startNaiveBalancer } from '../experiments/naive-balancer.js';
import { describeSample } from '../topologies/app-descriptions.js';
import { strategyOf } from '../strategies/index.js';
import { guarded } from './record.js';
import { startupSeconds } from './estimate.js';
import { interleave } from './interleave.js';
import { oneByOne } from './one-by-one.js';
import { familyKeysOf, deploymentKeyOf, canPlace, cellPlacement } from './families.js';
import { metricsReader } from './app-metrics.js';

// What a process that would not start said last (the runner's error carries it after the exit),
// without the run folder's paths: one line for the output and results.json.
export function whatItSaid(message) {
  const last =
    String(message)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? String(message);
  const m = /exited before it was healthy \(([^)]*)\)(?:: (.*))?$/.exec(last);
  return m ? (m[2] ? `${m[2]} (${m[1]})` : m[1]) : last.replace(/\/\S+\//g, '');
}

// Where a deployment runs: on the CPUs left to the system under test (pinned, under its budget), or
// on every CPU (cpuset 'all'): a verdict budget larger than what is left after the generator's
// CPUs, the generator then sharing them, or an experiment whose generator does next to nothing.
function placement(d, iso) {
  const { cpuset, budget } = cellPlacement(d.cells[0], iso);
  return iso.pinned ? { cpuset, budget } : { cpuset: undefined, budget: d.budget ?? iso.budgetCpus };
}

// The deployments a scenario's cells run on: one per distinct topology start on one engine (keyOf:
// deploymentKeyOf, or familyKeysOf where a deployment is moved between budgets).
function deploymentsOf(scenario, runBase, counter, keyOf) {
  const deps = new Map();
  // A Swarm drill deploys its own stack (drills/swarm.js).
  for (const c of scenario.cells.filter((x) => x.orchestrator !== 'swarm')) {
    const key = keyOf(c);
    if (!deps.has(key)) {
      counter.n += 1;
      deps.set(key, {
        sample: c.topology.sample,
        env: c.topology.env,
        budget: c.budget,
        engine: c.engine ?? null,
        cells: [],
        runDir: path.join(runBase, `d${counter.n}`),
      });
    }
    deps.get(key).cells.push(c);
  }
  return deps;
}

// Starts one deployment and verifies its cells; a strategy the machine can't run (reusePort before
// Node 22.12 or off Linux, PM2 not installed) is skipped with its one line, the rest goes on.
async function start(run, d, { build, noDatabase }) {
  const { ctx, records } = run;
  if (d.engine && !ctx.runners?.[d.engine]) {
    const why = `the ${d.engine} engine is not here: ${ctx.unavailable?.[d.engine] ?? 'not opened'}`;
    for (const c of d.cells) Object.assign(records.get(c.id), { status: 'skipped', error: why });
    return;
  }
  ctx.hooks.phase?.(`starting ${describeSample(d.sample).folder} (${d.cells[0].topology.label})`);
  try {
    d.handle = await startDeployment(d.engine ? ctx.runners[d.engine] : ctx.runner, d, {
      runDir: d.runDir,
      ...placement(d, ctx.isolation),
      build,
      // Drills want the store (to count writes) but run without it: up with it, alone if it fails.
      needsDb: d.cells.some((c) => c.needsDb || c.wantsDb),
      knownDatabaseError: noDatabase.get(d.sample) ?? null,
      log: ctx.hooks.log,
    });
    if (d.handle.databaseError) noDatabase.set(d.sample, d.handle.databaseError);
    d.placed = cellPlacement(d.cells[0], ctx.isolation);
  } catch (e) {
    const optional = Boolean(strategyOf(d.cells[0].topology.strategy).optional);
    const outcome = optional
      ? { status: 'skipped', error: `${d.cells[0].topology.strategy} skipped: ${whatItSaid(e.message)}` }
      : { status: 'failed', error: e.message, lastLog: whatItSaid(e.message) };
    for (const c of d.cells) Object.assign(records.get(c.id), outcome);
    ctx.hooks.log?.(optional ? outcome.error : `failed: ${e.message}`);
    return;
  }
  for (const c of d.cells) await prepare(c, records.get(c.id), d.handle, run.balancers);
}

// The store a database-bound cell talked to, as the app says (x-bench.database_info), or why not known.
async function databaseOf(handle, c) {
  const path = describeSample(c.topology.sample).databaseInfo;
  if (!path) return { known: false, why: 'the app has no x-bench.database_info path' };
  try {
    const res = await fetch(`${handle.url(c.topology)}${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = /** @type {{ provider?: string, serverVersion?: string }} */ (await res.json());
    return res.ok
      ? { known: true, provider: body.provider, serverVersion: body.serverVersion }
      : { known: false, why: `GET ${path} answered ${res.status}` };
  } catch (e) {
    return { known: false, why: `GET ${path}: ${e.message}` };
  }
}

const readyProcesses = new WeakSet(); // deployments whose every process has answered

// Verify a cell's answer, and record what an experiment needs to know of the started deployment.
async function prepare(c, r, handle, balancers) {
  r.cpuLimits = handle.state.cpuLimits;
  if (c.needsDb && !handle.withDatabase) {
    Object.assign(r, {
      status: 'skipped',
      error: `no database here: ${handle.databaseError ?? 'the sample started without it'}`,
    });
    return;
  }
  await guarded(r, async () => {
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
    await verify(`${handle.url(c.topology)}${c.path}`, c.workload, { request: c.request ?? null });
    if (c.recordDraw) r.draw = await handle.describeInstances();
    if (c.needsDb) r.database = await databaseOf(handle, c);
  });
}

// A cell every comparison of which lost its other side (e.g. the Node side of a database question
// where MongoDB can't run) measures nothing anyone reads: skip it and save its time.
function skipOrphans(scenario, records) {
  const alive = (id) => ['pending', 'ok'].includes(records.get(id)?.status);
  for (const c of scenario.cells) {
    const partners = scenario.comparisons.filter((q) => q.a === c.id || q.b === c.id)
      .map((q) => (q.a === c.id ? q.b : q.a));
    if (!partners.length || !alive(c.id) || c.keep || partners.some(alive)) continue;
    const why = partners.map((id) => `${id}: ${records.get(id)?.error ?? records.get(id)?.status}`).join('; ');
    Object.assign(records.get(c.id), { status: 'skipped', error: `nothing to compare it with here (${why})` });
  }
}

// How a cell is loaded, kept with it (results describe themselves): the closed-loop tool with its
// threads and connections; the paced generator's connections for capacity and latency windows.
function loadOf(c, ctx) {
  const connections = 'as many as the rate keeps in flight for 100 ms, at least 64';
  return {
    ...(c.kind === 'closed'
      ? { closed: { tool: c.tool ?? ctx.tool, threads: ctx.isolation.generatorThreads, connections: c.connections } }
      : {}),
    ...(c.searchCapacity || c.latencyRounds ? { paced: { tool: 'paced', threads: 1, connections } } : {}),
  };
}

// Starts the deployments given that are not started yet: one per app first (it builds, if the app
// has a build step), then the rest at once: starting is mostly waiting for health checks.
async function startDeployments(run, wanted, { built, noDatabase }) {
  const all = [...new Set(wanted)].filter((d) => d && !d.started);
  if (!all.length) return;
  for (const d of all) d.started = true;
  const first = all.filter((d, i) => all.findIndex((x) => x.sample === d.sample) === i);
  const builds = first.some((d) => describeSample(d.sample).builds && !built.has(d.sample));
  for (const d of first) {
    await start(run, d, { build: !built.has(d.sample), noDatabase });
    built.add(d.sample);
  }
  await Promise.all(all.filter((d) => !first.includes(d)).map((d) => start(run, d, { build: false, noDatabase })));
  run.ctx.hooks.tick?.(startupSeconds(all.length, builds));
}

/**
 * Runs every scenario of the plan, as measure-plan.js opened the run (ctx: the engines' Runners, the
 * pinned isolation, the tools and their ceilings, the run folders and the progress hooks). Returns the
 * cells, each with status ok | failed | skipped and its rounds.
 */
export async function runPlan(plan, ctx) {
  const out = [];
  // The apps already built in this run (a build step runs once); a counter that numbers the run folders.
  const state = { built: new Set(), counter: { n: 0 } };
  for (const scenario of plan.scenarios) out.push(...await runScenario(scenario, plan.params, ctx, state));
  await rmdir(ctx.runBase).catch(() => {});
  return out;
}

// Runs one scenario: returns its cells' records.
async function runScenario(scenario, params, ctx, { built, counter }) {
  const movable = canPlace(scenario, ctx.runner, ctx.isolation);
  const keyOf = movable ? familyKeysOf(scenario) : deploymentKeyOf;
  const deps = deploymentsOf(scenario, ctx.runBase, counter, keyOf);
  const records = new Map(
    scenario.cells.map((c) => [c.id, { ...c, status: 'pending', rounds: [], load: loadOf(c, ctx) }]),
  );
  const deploymentOf = (c) => deps.get(keyOf(c));
  const depOf = (c) => deploymentOf(c).handle;
  const noDatabase = new Map(); // app -> why its database can't run here, once a start found out
  const run = {
    records,
    params,
    ctx,
    deploymentOf,
    // The engine moves a running deployment (run/families.js): between budgets, and to lend a
    // warm-up the CPUs of its cpuset (run/warmup.js lentCpus).
    canPlace: movable,
    balancers: [],
    threads: ctx.isolation.generatorThreads,
    toolOf: (c) => c.tool ?? ctx.tool,
    // CPU time and memory of the services the cell's topology covers, read around each window.
    usageOf: (c) => () => depOf(c).usage(c.topology, c.workload),
    // The samples' own /metrics around each saturated window, where the app serves them.
    appMetricsOf: (c) => (depOf(c).appMetricsUrls?.().length
      ? {
        read: metricsReader(() => depOf(c).appMetricsUrls()),
        usage: run.usageOf(c),
        processesPerInstance: c.topology.workers,
      }
      : null),
    // Starts the deployments of `cells` not started yet; returns those of them still pending.
    ready: async (cells) => {
      await startDeployments(run, cells.map(deploymentOf), { built, noDatabase });
      skipOrphans(scenario, records);
      return cells.filter((c) => records.get(c.id).status === 'pending');
    },
  };
  try {
    // An interleaved scenario starts its deployments as its blocks reach them (interleave.js: right
    // before their first warm-up), not all at once here.
    if (!scenario.interleaved || scenario.cells.some((c) => c.kill)) await run.ready(scenario.cells);
    const live = scenario.cells.filter((c) => records.get(c.id).status === 'pending');
    // Instances an experiment kills go down after every answer was verified, before anything is
    // measured; killed as `docker kill` does, so the app's restart policy does not bring them back.
    for (const c of live.filter((x) => x.kill)) await guarded(records.get(c.id), () => depOf(c).killHeld(c.kill));
    const rounded = live.filter((c) => c.kind === 'closed' || c.kind === 'count');
    if (scenario.interleaved) await interleave(run, rounded, scenario.comparisons ?? []);
    const rest = live.filter((c) => !scenario.interleaved || !rounded.includes(c));
    await oneByOne(run, await run.ready(rest));
    for (const extra of scenario.derive?.(records) ?? []) records.set(extra.id, extra);
  } finally {
    ctx.hooks.phase?.(`stopping ${scenario.name}`);
    for (const b of run.balancers) await b.stop();
    for (const d of deps.values()) {
      if (!d.handle) continue;
      const failed = d.cells.some((c) => records.get(c.id).status === 'failed');
      await d.handle.stop().catch((e) => ctx.hooks.log?.(`stopping ${d.sample}: ${e.message}`));
      // Logs are kept only where something went wrong.
      if (!failed) await rm(d.runDir, { recursive: true, force: true });
    }
  }
  return [...records.values()];
}
