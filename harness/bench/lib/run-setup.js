// A run as the command line sets it, built once and taken apart by the CLI, each stage given its
// part: what to measure (the plan, over which apps), how (through which engine, on which CPUs the
// generator and the budgets, with which load tools, where the topologies' run folders go) and where
// the results go. Nothing below the CLI reads options, the environment or module state for these.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { plan as buildPlan, matrixPlan } from './plan/scenarios.js';
import { budgetChoice } from './plan/cpu-budgets.js';
import { describeSample, listApps } from './topologies/app-descriptions.js';
import { pacedToolName, TOOLS } from './tools/index.js';
import { selectEngine, runnerFor } from '../../runner/index.js';
import { REPO_ROOT } from '../../lib/repo-root.js';

/** The committed reference run: written only when asked for by name (--out docs/results). */
const REFERENCE_OUT = path.join(REPO_ROOT, 'docs', 'results');
const REFERENCE_GUIDE = path.join(REPO_ROOT, 'docs', 'decision-guide.md');

/**
 * Where a results folder goes: --out, else `fallback`; the guide --guide, else beside it (docs/ for
 * the committed reference run, whose numbers the repository's docs quote).
 * @param {{ out?: string, guide?: string }} opts @param {string} fallback
 */
export function resultsFolder({ out, guide }, fallback) {
  const outDir = path.resolve(out ?? fallback);
  const quoteDocs = outDir === REFERENCE_OUT;
  const guidePath = path.resolve(guide ?? (quoteDocs ? REFERENCE_GUIDE : path.join(outDir, 'decision-guide.md')));
  return { outDir, guidePath, repo: REPO_ROOT, quoteDocs };
}

function hasWrk() {
  try {
    execFileSync(TOOLS.wrk.bin(), ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    return e.status !== undefined && e.code !== 'ENOENT';
  }
}

// The engines the drills run on: the run's own, and in the full run the other one too (a deploy
// answer rests on both; where the other can't start the run says so and goes on).
const drillEngines = (main, full) => [main, ...(full ? ['processes', 'docker'].filter((e) => e !== main) : [])];

/**
 * The run from the parsed options (nothing is started) and their isolation, which the caller has
 * checked with isolationOf(). `measuring` is what run/measure-plan.js takes; `folder`, where
 * report/write-folder.js writes.
 */
export function runSetup(opts, isolation) {
  // ENGINE=foo: one line, exit 2; an app of yours decides by its kind (a Node folder, a container).
  const engineChoice = opts.engineWhy
    ? { engine: selectEngine(opts.engine).engine, why: opts.engineWhy }
    : selectEngine(opts.engine ?? process.env.ENGINE);
  // The apps of the run: --app's folder (generated or yours), or every app of the repository (--sample
  // picks among them in the plan).
  const apps = (opts.appDir ? [opts.appDir] : listApps()).map((a) => describeSample(a));
  // --warmup 0: no warm-up at all (the apps' own floors aside); else it is the minimum. --no-latency:
  // neither latency windows nor a capacity search, the two that need the paced generator.
  const overrides = {
    windowS: opts.window, warmupS: opts.warmup, warmupMaxS: opts.warmup === 0 ? 0 : undefined, rewarmS: opts.rewarm,
    rounds: opts.rounds, sloP99Ms: opts.sloP99,
    ...(opts.latency === false ? { latencyRounds: 0, capacitySteps: 0 } : {}),
  };
  const plan = opts.matrixSpec
    ? matrixPlan(opts.matrixSpec, { full: opts.full, budget: isolation.budgetCpus, overrides })
    : buildPlan({
      full: opts.full, scenario: opts.scenario, sample: opts.sample, budget: isolation.budgetCpus,
      budgets: isolation.budgets, processes: isolation.processes, overrides, apps,
      engines: drillEngines(engineChoice.engine, opts.full),
    });
  const tool = opts.tool ?? (hasWrk() ? 'wrk' : 'autocannon');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const whole = !opts.scenario && !opts.sample && !opts.matrixSpec && !opts.appDir;
  const name = opts.appDir ? `${apps[0].key}-${stamp}` : stamp;
  const measuring = {
    engineChoice, isolation, tool, pacedTool: pacedToolName(tool), waitQuiet: whole,
    runBase: path.resolve(opts.runDir ?? path.join(REPO_ROOT, '.run', 'bench-topologies', stamp)),
    // Whether the engine's Runner can move a running deployment between budgets (run/families.js).
    moves: isolation.budgets.length > 1
      && typeof /** @type {any} */ (runnerFor(engineChoice.engine)).place === 'function',
  };
  return {
    plan, apps, whole, measuring, budgetChoice: budgetChoice(isolation, opts.budgets !== undefined),
    folder: resultsFolder(opts, path.join(REPO_ROOT, '.run', 'bench', name)),
  };
}
