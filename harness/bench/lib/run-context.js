// A run's context, built once from the command line and handed down: what to measure (the plan,
// over which apps), where (the isolation: the generator's CPUs and the budgets), with what (the
// load tools), through which engine, and where the results go. Nothing below the CLI reads options,
// the environment or module state for any of these.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { plan as buildPlan, matrixPlan } from './plan/scenarios.js';
import { isolationOf, budgetChoice } from './plan/cpu-budgets.js';
import { describeSample, listApps } from './topologies/app-descriptions.js';
import { pacedToolName } from './tools/index.js';
import { selectEngine, runnerFor } from '../../runner/index.js';
import { REPO_ROOT } from '../../lib/repo-root.js';

/** The committed reference run: written only when asked for by name (--out docs/results). */
export const REFERENCE_OUT = path.join(REPO_ROOT, 'docs', 'results');
export const REFERENCE_GUIDE = path.join(REPO_ROOT, 'docs', 'decision-guide.md');

/**
 * @typedef {object} RunPlanContext
 * @property {{ engine: string, why: string }} engineChoice
 * @property {any} plan
 * @property {any} isolation   planIsolation()'s placement, not pinned yet
 * @property {{ budgets: number[], why: string }} budgets
 * @property {any[]} apps
 * @property {string} tool       the closed-loop generator
 * @property {string} pacedTool  the experiments' fixed-rate generator
 * @property {string} outDir     where results.json, the charts, report.md and the guide go
 * @property {string} guidePath
 * @property {boolean} reference  outDir is the committed reference run (docs quote it)
 * @property {string} stamp
 * @property {string} runBase    the topologies' run folders
 * @property {boolean} whole     every scenario of the mode, every app
 * @property {boolean} moves     the Runner moves a deployment between budgets (one warm-up per family)
 */

function hasWrk() {
  try {
    execFileSync(process.env.WRK_BIN || 'wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    return e.status !== undefined && e.code !== 'ENOENT';
  }
}

/** The apps of the run: --app's folder (generated or yours), --sample's, or every app of the repository. */
function appsOf(opts) {
  if (opts.appDir) return [describeSample(opts.appDir)];
  return listApps().map((a) => describeSample(a));
}

// The engines the drills run on: the run's own, and in the full run the other one too (a deploy
// answer rests on both; where the other can't start the run says so and goes on).
const drillEngines = (main, full) => [main, ...(full ? ['processes', 'docker'].filter((e) => e !== main) : [])];

/**
 * Builds the run's context from the parsed options (nothing is started); `isolation`, when the
 * caller has checked the options with isolationOf() already.
 */
export function runContext(opts, { now = new Date(), isolation = isolationOf(opts) } = {}) {
  // ENGINE=foo: one line, exit 2; an app of yours decides by its kind (a Node folder, a container).
  const engineChoice = opts.engineWhy
    ? { engine: selectEngine(opts.engine).engine, why: opts.engineWhy }
    : selectEngine(opts.engine ?? process.env.ENGINE);
  const apps = appsOf(opts);
  // --warmup 0: no warm-up at all (the apps' own floors aside); else it is the minimum.
  const overrides = {
    windowS: opts.window, warmupS: opts.warmup, warmupMaxS: opts.warmup === 0 ? 0 : undefined, rewarmS: opts.rewarm,
    rounds: opts.rounds, sloP99Ms: opts.sloP99,
  };
  const plan = opts.matrixSpec
    ? matrixPlan(opts.matrixSpec, { full: opts.full, budget: isolation.budgetCpus, overrides })
    : buildPlan({
      full: opts.full, scenario: opts.scenario, sample: opts.sample, budget: isolation.budgetCpus,
      budgets: isolation.budgets, processes: isolation.processes, overrides, apps,
      engines: drillEngines(engineChoice.engine, opts.full),
    });
  const tool = opts.tool ?? (hasWrk() ? 'wrk' : 'autocannon');
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const whole = !opts.scenario && !opts.sample && !opts.matrixSpec && !opts.appDir;
  const name = opts.appDir ? `${apps[0].key}-${stamp}` : stamp;
  const outDir = path.resolve(opts.out ?? path.join(REPO_ROOT, '.run', 'bench', name));
  const reference = outDir === REFERENCE_OUT;
  return {
    // Whether the engine's Runner can move a running deployment between budgets (run/families.js).
    moves: isolation.budgets.length > 1
      && typeof /** @type {any} */ (runnerFor(engineChoice.engine)).place === 'function',
    engineChoice, plan, isolation, apps, tool, pacedTool: pacedToolName(tool), stamp, whole, reference, outDir,
    budgets: budgetChoice(isolation, opts.budgets !== undefined),
    guidePath: path.resolve(opts.guide ?? (reference ? REFERENCE_GUIDE : path.join(outDir, 'decision-guide.md'))),
    runBase: path.resolve(opts.runDir ?? path.join(REPO_ROOT, '.run', 'bench-topologies', stamp)),
  };
}
