// The run stage of `make bench`: the plan in, its measured cells out, with what they were measured
// by and around. Opens the engines the plan's cells name, pins the generator, measures the
// generator's ceiling and then every scenario (index.js), and releases all it started.
import path from 'node:path';
import { measureCeilings } from './generator-ceiling.js';
import { runPlan, stopAll, estimateSeconds } from './index.js';
import { PACED_CEILING_S } from './estimate.js';
import { collectMeta, boxSnapshot, boxReport, busyShare } from './machine-facts.js';
import { startCoreProbe, summariseCoreSpeed } from './core-speed.js';
import { progress } from './progress.js';
import { openEngine } from './open-engine.js';
import { pinGenerator } from '../plan/cpu-budgets.js';
import { generatorFlags } from '../tools/generator-heap.js';

const cellsOf = (plan) => plan.scenarios.flatMap((s) => s.cells);

// The engines the plan's cells name (cell.engine; the run's own where they name none).
const enginesOf = (plan) => [...new Set(cellsOf(plan).map((c) => c.engine).filter(Boolean))];

// The load generators the plan's cells use (the drills bring their own client): each gets its ceiling,
// the paced one too where cells search a capacity or take latency windows at a fixed rate.
function toolsOf(plan, tool, paced) {
  const cells = cellsOf(plan);
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

// The run's engine, and the others its cells name (the drills run on both): opened before the
// generator is pinned (a private Docker daemon started later would inherit the generator's CPUs).
// `unavailable` maps another engine to why it could not be opened: its cells are skipped, the run goes on.
async function openEngines(plan, engineChoice, ui) {
  const engines = [await openEngine(engineChoice, { log: ui.log })];
  const unavailable = {};
  for (const name of enginesOf(plan).filter((x) => x !== engines[0].record.name)) {
    try {
      engines.push(await openEngine({ engine: name, why: "the plan's cells on it" }, { log: ui.log }));
    } catch (e) {
      unavailable[name] = e.message.split('\n')[0];
      ui.log(`engine ${name}: not here (${unavailable[name]}); its cells are skipped`);
    }
  }
  return { engines, unavailable };
}

// The measuring itself: pin the generator, measure its ceilings, run the plan; then stop the
// progress line, unpin and release the engines whatever happened. `pins.unpin` is set to the
// pinning's release so that a stop signal can undo it too.
async function measurePinned(plan, { isolation, tool, pacedTool, runBase }, { engines, unavailable, pins, ui }) {
  const [engine] = engines;
  const pinned = pinGenerator(isolation);
  pins.unpin = pinned.release;
  const iso = pinned.record;
  if (!iso.pinned) ui.log(`NOT pinned: ${'reason' in iso ? iso.reason : 'unknown'}; every result is flagged`);
  const p = plan.params;
  try {
    const ceilings = await measureCeilings(toolsOf(plan, tool, pacedTool), {
      runner: engine.runner,
      runDir: path.join(runBase, 'ceiling'),
      isolation: iso,
      durationS: Math.max(1, Math.min(p.ceilingS, p.windowS)),
      onStep: ui.phase,
    });
    ui.tick(2 * p.ceilingS + 2 + PACED_CEILING_S);
    const runners = Object.fromEntries(engines.map((e) => [e.record.name, e.runner]));
    const run = {
      runner: engine.runner, runners, unavailable, isolation: iso, tool, pacedTool, ceilings, runBase, hooks: ui,
    };
    return { cells: await runPlan(plan, run), ceilings, isolation: iso };
  } finally {
    ui.stop();
    pins.unpin();
    for (const e of engines) await e.release();
  }
}

/**
 * Measures the plan: its cells (each ok | failed | skipped, with its rounds), the generator's
 * ceilings, the pinned isolation, the box and the versions around the run, when it started, the
 * engines it ran on and the load tools.
 * @param {any} plan  plan/scenarios.js's
 * @param {{ engineChoice: { engine: string, why: string }, isolation: any, tool: string, pacedTool: string,
 *   runBase: string, moves: boolean, waitQuiet: boolean }} how  isolation: the placement, not pinned yet;
 *   runBase: the topologies' run folders; moves: the engine moves a deployment between budgets;
 *   waitQuiet: wait for a busy machine to calm down first (a whole run)
 */
export async function measurePlan(plan, { engineChoice, isolation, tool, pacedTool, runBase, moves, waitQuiet }) {
  const ui = progress(estimateSeconds(plan, { moves }));
  const { engines, unavailable } = await openEngines(plan, engineChoice, ui);
  const pins = { unpin: () => {} };
  onStopSignals(ui, async () => {
    pins.unpin();
    for (const e of engines) await e.release();
  });
  if (engines[0].record.name === 'processes') ui.log(`engine: processes (${engines[0].record.chosen})`);
  if (waitQuiet) await waitForQuiet(ui);
  const startedAt = new Date().toISOString();
  // Measured around the run: the box, the core speed on the apps' CPUs, the versions.
  const before = { ...boxSnapshot(), busyShare: await busyShare(1000) };
  const sutCpus = isolation.shared ? null : isolation.sutCpus;
  // Started before this process is pinned to the generator's CPUs: a child starts in its parent's cpuset.
  const probe = sutCpus === null ? null : startCoreProbe(sutCpus);
  const result = await measurePinned(plan, { isolation, tool, pacedTool, runBase }, { engines, unavailable, pins, ui });
  const coreSpeed = summariseCoreSpeed(await probe?.stop(), { cpus: sutCpus, withReadings: true });
  const box = boxReport(before, boxSnapshot(), undefined, coreSpeed);
  const meta = await collectMeta();
  const records = engines.map((e) => e.record);
  return { ...result, box, meta, startedAt, engines: records, tool, pacedTool, generatorNodeFlags: generatorFlags() };
}
