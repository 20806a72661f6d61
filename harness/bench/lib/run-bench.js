// A measuring run from its context (run-context.js): open the engine, pin the generator, measure the
// generator's ceiling and the plan, then build results.json and write the results folder.
import path from 'node:path';
import { measureCeilings } from './run/generator-ceiling.js';
import { runPlan, stopAll, estimateSeconds } from './run/index.js';
import { PACED_CEILING_S } from './run/estimate.js';
import { collectMeta, boxSnapshot, boxReport, busyShare } from './run/machine-facts.js';
import { startCoreProbe, summariseCoreSpeed } from './run/core-speed.js';
import { buildResults } from './judge/results-document.js';
import { loadSpread } from './judge/run-to-run-spread.js';
import { writeOutputs } from './report/write-folder.js';
import { summaryTable } from './report/table.js';
import { withPrices } from './report/cost.js';
import { sanitizeDoc } from './report/sanitize.js';
import { progress } from './run/progress.js';
import { pinGenerator } from './plan/cpu-budgets.js';
import { openEngine } from './run/open-engine.js';
import { baselineOf } from './plan/questions.js';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { generatorFlags } from './tools/generator-heap.js';

// The engines the plan's cells name (cell.engine; the run's own where they name none).
const enginesOf = (plan) => [
  ...new Set(
    plan.scenarios
      .flatMap((s) => s.cells)
      .map((c) => c.engine)
      .filter(Boolean),
  ),
];

// The load generators the plan's cells use (the drills bring their own client): each gets its ceiling,
// the paced one too where cells search a capacity or take latency windows at a fixed rate.
function toolsOf(plan, tool, paced) {
  const cells = plan.scenarios.flatMap((s) => s.cells);
  const used = cells.map((c) =>
    c.kind === 'closed' ? (c.tool ?? tool) : ['count', 'fixedrate'].includes(c.kind) ? (c.tool ?? paced) : null,
  );
  const open = cells.some((c) => c.searchCapacity || c.latencyRounds || c.kind === 'openloop');
  return [...new Set([...used.filter(Boolean), ...(open ? ['paced'] : [])])];
}

// A busy machine skews everything: wait a little for it to calm down, then go on and say so. The
// CPU in use now, not the load average: that one lags a minute behind (e.g. after a previous run).
async function waitForQuiet(ui, { maxS = 30 } = {}) {
  for (let waited = 0; waited < maxS; waited += 5) {
    const busy = await busyShare(1000);
    if (busy === null || busy < 0.5) return;
    ui.phase(`the machine is busy (${Math.round(busy * 100)}% of its CPU in use): waiting for it to calm down`);
    await new Promise((r) => setTimeout(r, 4000));
  }
}

// Ctrl-C or SIGTERM: stop what was started (topologies, the private daemon, the generator's cgroup).
function onStopSignals(ui, releaseAll) {
  let interrupted = false;
  const onSignal = (sig) => {
    if (interrupted) return;
    interrupted = true;
    ui.stop();
    process.stderr.write(`\nbench: ${sig}: stopping what was started…\n`);
    stopAll().finally(() => releaseAll().finally(() => process.exit(130)));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

// The figures of a finished run, measured around it: the box, the core speed, the versions.
async function measuredAround(ctx, run) {
  const before = { ...boxSnapshot(), busyShare: await busyShare(1000) };
  // Started before this process is pinned to the generator's CPUs: a child starts in its parent's cpuset.
  const probe = ctx.isolation.shared ? null : startCoreProbe(ctx.isolation.sutCpus);
  const result = await run();
  const coreSpeed = summariseCoreSpeed(await probe?.stop(), { cpus: ctx.isolation.sutCpus, withReadings: true });
  return { result, box: boxReport(before, boxSnapshot(), undefined, coreSpeed), meta: await collectMeta() };
}

// Cells of another engine (the drills run on both): opened before the generator is pinned (a
// private Docker daemon started later would inherit the generator's CPUs). `unavailable` maps an
// engine to why it could not be opened: its cells are skipped, the run goes on.
async function openOtherEngines(ctx, engine, ui) {
  const others = new Map();
  const unavailable = {};
  for (const name of enginesOf(ctx.plan).filter((x) => x !== engine.record.name)) {
    try {
      others.set(
        name,
        await openEngine({ engine: name, why: "the plan's cells on it" }, { log: (line) => ui.log(line) }),
      );
    } catch (e) {
      unavailable[name] = e.message.split('\n')[0];
      ui.log(`engine ${name}: not here (${unavailable[name]}); its cells are skipped`);
    }
  }
  return { others, unavailable };
}

// The measuring itself: pin the generator, measure its ceilings, run the plan; then stop the
// progress line, unpin and release the engines whatever happened. `pins.unpin` is set to the
// pinning's release so that a stop signal can undo it too.
async function measurePinned(ctx, { engine, others, unavailable, releaseAll, pins, ui }) {
  const pinned = pinGenerator(ctx.isolation);
  pins.unpin = pinned.release;
  const iso = pinned.record;
  if (!iso.pinned) ui.log(`NOT pinned: ${'reason' in iso ? iso.reason : 'unknown'}; every result is flagged`);
  const p = ctx.plan.params;
  try {
    const ceilings = await measureCeilings(toolsOf(ctx.plan, ctx.tool, ctx.pacedTool), {
      runner: engine.runner,
      runDir: path.join(ctx.runBase, 'ceiling'),
      isolation: iso,
      durationS: Math.max(1, Math.min(p.ceilingS, p.windowS)),
      onStep: ui.phase,
    });
    ui.tick(2 * p.ceilingS + 2 + PACED_CEILING_S);
    const runners = {
      [engine.record.name]: engine.runner,
      ...Object.fromEntries([...others].map(([k, e]) => [k, e.runner])),
    };
    const run = {
      runner: engine.runner,
      runners,
      unavailable,
      isolation: iso,
      tool: ctx.tool,
      pacedTool: ctx.pacedTool,
      ceilings,
      runBase: ctx.runBase,
      hooks: ui,
    };
    return { cells: await runPlan(ctx.plan, run), ceilings, isolation: iso };
  } finally {
    ui.stop();
    pins.unpin();
    await releaseAll();
  }
}

// The run's label when none is given: the machine, the mode, the day and how loaded the box was.
function defaultLabel(ctx, { meta, box, startedAt }) {
  const partial = ctx.whole ? '' : ' (partial run)';
  const steal = box.stealPct === null ? '' : `, ${box.stealPct}% steal`;
  return (
    `Run on ${meta.machine.hostname} (${meta.machine.cores} cores), ${ctx.plan.mode} mode${partial}, ` +
    `${startedAt.slice(0, 10)}, load ${box.loadBefore[0]} → ${box.loadAfter[0]}${steal}${box.busy ? ' (busy)' : ''}`
  );
}

// What judge/results-document.js knows nothing of: the engines, the budget choice, the generator's flags, the apps.
function addRunRecords(doc, ctx, { engine, others }) {
  doc.protocol.engine = engine.record; // docker | processes, how it was chosen
  if (others.size) doc.protocol.otherEngines = [...others.values()].map((e) => e.record);
  doc.protocol.budgetChoice = ctx.budgets;
  doc.protocol.generatorNodeFlags = generatorFlags(); // the generator threads' (tools/generator-heap.js)
  const base = baselineOf(ctx.apps);
  doc.apps = ctx.apps.map((a) => ({
    key: a.key,
    name: a.name,
    runtime: a.runtime,
    framework: a.framework,
    baseline: a === base,
    sample: path.relative(REPO_ROOT, a.dir) || a.dir,
  }));
}

// Prints the summary table and the files written, then the failed measurements: 1 if any, else 0.
function reportRun(doc, files) {
  console.log(summaryTable(doc));
  console.log(`\nwrote ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')}`);
  const failed = doc.cells.filter((c) => c.status === 'failed');
  if (!failed.length) return 0;
  console.error(`\nbench: ${failed.length} of ${doc.cells.length} measurements failed:`);
  for (const c of failed) console.error(`  - ${c.id}: ${c.error}`);
  return 1;
}

/**
 * Measures the plan and writes the results folder. Returns the exit code: 1 when a measurement
 * failed (the run is written all the same), else 0.
 * @param {import('./run-context.js').RunPlanContext} ctx
 * @param {{ label?: string, argv: string, prices: object | null }} how
 */
export async function runBench(ctx, { label, argv, prices }) {
  const ui = progress(estimateSeconds(ctx.plan, { moves: ctx.moves }));
  const engine = await openEngine(ctx.engineChoice, { log: (line) => ui.log(line) });
  const { others, unavailable } = await openOtherEngines(ctx, engine, ui);
  const releaseAll = async () => {
    for (const e of [engine, ...others.values()]) await e.release();
  };
  const pins = { unpin: () => {} };
  onStopSignals(ui, async () => {
    pins.unpin();
    await releaseAll();
  });
  if (engine.record.name === 'processes') ui.log(`engine: processes (${engine.record.chosen})`);
  if (ctx.whole) await waitForQuiet(ui);
  const startedAt = new Date().toISOString();
  const {
    result: { cells, ceilings, isolation },
    box,
    meta,
  } = await measuredAround(ctx, () => measurePinned(ctx, { engine, others, unavailable, releaseAll, pins, ui }));
  const doc = buildResults({
    plan: ctx.plan,
    cells,
    tool: ctx.tool,
    pacedTool: ctx.pacedTool,
    ceilings,
    isolation,
    box,
    meta,
    startedAt,
    spread: loadSpread(),
    label: label ?? defaultLabel(ctx, { meta, box, startedAt }),
    argv,
  });
  addRunRecords(doc, ctx, { engine, others });
  withPrices(sanitizeDoc(doc), prices);
  const files = await writeOutputs(doc, {
    outDir: ctx.outDir,
    guidePath: ctx.guidePath,
    repo: REPO_ROOT,
    quoteDocs: ctx.reference,
  });
  return reportRun(doc, files);
}
