#!/usr/bin/env node
// make bench: measures the samples through the local runner with the load generator on CPUs of its
// own, in interleaved rounds, and writes results.json, the charts, report.md and the decision guide.
import { Command, InvalidArgumentError, Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { plan as buildPlan, matrixPlan, SCENARIOS } from './lib/plan.js';
import { planIsolation, pinGenerator, parseBudgets } from './lib/isolation.js';
import { measureCeilings } from './lib/ceiling.js';
import { runPlan, stopAll, estimateSeconds } from './lib/run.js';
import { collectMeta, boxSnapshot, boxReport, busyShare } from './lib/meta.js';
import { startCoreProbe, summariseCoreSpeed } from './lib/core-speed.js';
import { buildResults, SCHEMA } from './lib/results.js';
import { judge } from './lib/judge.js';
import { loadSpread, describeSpread } from './lib/repeatability.js';
import { writeOutputs } from './lib/output.js';
import { summaryTable } from './lib/report/table.js';
import { parsePrices, withPrices } from './lib/report/cost.js';
import { sanitizeDoc } from './lib/report/sanitize.js';
import { pacedToolName } from './lib/tools/index.js';
import { GeneratorError } from './lib/tools/errors.js';
import { progress } from './lib/progress.js';
import { resolveSample, selectEngine } from '../runner/index.js';
import { useEngine, releaseEngine } from './lib/deployments.js';
import { relaunchWithHeap } from './lib/generator-heap.js';
import { appOptions, appFromOptions, checkApp } from './lib/apps/cli.js';
import { fileURLToPath } from 'node:url';

// loadtest uses a deprecated Node API; its warning would only clutter the progress display.
if (!process.noDeprecation) process.noDeprecation = true;

const REPO = path.resolve(new URL('../..', import.meta.url).pathname);
const DEFAULT_OUT = path.join(REPO, 'docs', 'results');
const DEFAULT_GUIDE = path.join(REPO, 'docs', 'decision-guide.md');

const positive = (name, { integer = false } = {}) => (v) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new InvalidArgumentError(`${name} must be a positive ${integer ? 'whole ' : ''}number`);
  return n;
};

function hasWrk() {
  try { execFileSync(process.env.WRK_BIN || 'wrk', ['--version'], { stdio: 'ignore' }); return true; } catch (e) { return e.status !== undefined && e.code !== 'ENOENT'; }
}

const program = new Command()
  .name('bench')
  .description('The verdicts (one process, cluster, replicas, .NET on the same CPU budget) and the published experiments; writes results, charts, report and decision guide.')
  .option('--full', 'the long run: longer windows, more rounds, every question and scenario', false)
  .addOption(new Option('--scenario <name>', 'run one scenario').choices(Object.keys(SCENARIOS)))
  .option('--sample <dir>', 'run only the cells of one sample (node-replicas, node-cluster, dotnet-api)')
  .addOption(new Option('--tool <name>', 'closed-loop load generator (default: wrk if installed, else autocannon)').choices(['wrk', 'autocannon']))
  .option('--budgets <list>', 'CPU budgets the verdicts sweep, e.g. 1,2 (default: 1, 2, 4, … up to the CPUs left after the load generator\'s; on 2 cores 1 and 2, the generator sharing the second)')
  .option('--engine <name>', 'docker | processes: what runs the topologies (default: docker when an engine answers, else processes)')
  .option('--budget <cpus>', 'CPU budget of the drills and experiments (default: every CPU left after the load generator\'s)', positive('--budget'))
  .option('--out <dir>', 'output folder (default: docs/results for a whole run, .run/bench/<time> for a partial one)')
  .option('--guide <file>', 'where to write the decision guide (default: docs/decision-guide.md with the default --out, else <out>/decision-guide.md)')
  .option('--matrix <file>', 'run the scenarios in a JSON file instead of the built-in ones (see harness/bench/README.md)')
  .option('--window <s>', 'seconds per measured window', positive('--window'))
  .option('--warmup <s>', 'seconds of warm-up per cell', (v) => (Number(v) === 0 ? 0 : positive('--warmup')(v)))
  .option('--rewarm <s>', 'seconds of warm-up before each window', (v) => (Number(v) === 0 ? 0 : positive('--rewarm')(v)))
  .option('--rounds <n>', 'interleaved rounds', positive('--rounds', { integer: true }))
  .option('--label <text>', 'label for this run in the report')
  .option('--run-dir <dir>', 'where the topologies\' run folders and logs go (default: .run/bench-topologies/<time>)')
  .option('--list', 'print the plan and its estimated time, then exit', false)
  .option('--price-vcpu-hour <price>', 'your price of one vCPU-hour: the guide adds money per million requests (no default)', positive('--price-vcpu-hour'))
  .option('--price-gib-hour <price>', 'your price of one GiB-hour of memory (no default)', positive('--price-gib-hour'))
  .option('--from <results.json>', 'measure nothing: the verdicts again from the measured cells (by the current rule), then the report, charts and guide')
  // Misuse gets one line (the help is one --help away).
  .configureOutput({ outputError: (str, write) => write(`${str.trim()} (bench --help lists the options)\n`) });
appOptions(program); // --app, --paths, --health, --start, --service, --reuse-port: your own service (lib/apps/)

// The load generators the plan's cells use (the drills bring their own client): each gets its ceiling.
function toolsOf(plan, tool, paced) {
  const used = plan.scenarios.flatMap((s) => s.cells).map((c) => (c.kind === 'closed' ? c.tool ?? tool : ['openloop', 'count', 'fixedrate'].includes(c.kind) ? c.tool ?? paced : null));
  return [...new Set(used.filter(Boolean))];
}

async function rerender(opts) {
  let doc;
  try { doc = JSON.parse(await readFile(opts.from, 'utf8')); } catch (e) { throw new Error(`--from ${opts.from}: ${e.message}`, { cause: e }); }
  if (![2, SCHEMA].includes(doc.schema) || !Array.isArray(doc.cells)) throw new Error(`--from ${opts.from}: not a results file of this benchmark (schema 2 or ${SCHEMA})`);
  if (opts.label) doc.label = opts.label; // relabel a kept run, e.g. the committed reference run
  // From the measured cells, by the current rule and the current spreads over repeated runs.
  doc.protocol.betweenRuns = describeSpread(loadSpread());
  doc = judge(doc);
  withPrices(sanitizeDoc(doc), parsePrices(opts)); // no machine paths or log lines in the docs; prices are the reader's
  const outDir = path.resolve(opts.out ?? path.dirname(opts.from));
  const guidePath = path.resolve(opts.guide ?? (outDir === DEFAULT_OUT ? DEFAULT_GUIDE : path.join(outDir, 'decision-guide.md')));
  const files = await writeOutputs(doc, { outDir, guidePath, repo: REPO, quoteDocs: outDir === DEFAULT_OUT });
  console.log(`wrote ${files.join(', ')}`);
  return 0;
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

async function main() {
  program.parse();
  const opts = program.opts();
  let engineChoice = selectEngine(opts.engine ?? process.env.ENGINE); // ENGINE=foo: one line, exit 2
  // --app: the user's service as a generated app folder (bad input: one line, exit 2); its kind sets the engine.
  const app = await appFromOptions(opts, { engine: opts.engine ?? process.env.ENGINE, log: (line) => console.log(line) });
  if (app) engineChoice = { engine: app.engine, why: app.kind === 'node' ? 'a Node folder runs as local processes' : 'a container app runs on Docker' };
  if (opts.from) return rerender(opts);
  if (opts.sample) resolveSample(opts.sample); // one line naming the samples there are
  const spread = loadSpread(); // read before measuring: a broken file stops the run now, not after it
  const iso = planIsolation({ budget: opts.budget, budgets: opts.budgets === undefined ? undefined : parseBudgets(opts.budgets) });
  // --warmup 0: no warm-up at all (the samples' own floors aside); else it is the minimum.
  const overrides = { windowS: opts.window, warmupS: opts.warmup, warmupMaxS: opts.warmup === 0 ? 0 : undefined, rewarmS: opts.rewarm, rounds: opts.rounds };
  let plan;
  if (opts.matrix) {
    let spec;
    try { spec = JSON.parse(await readFile(opts.matrix, 'utf8')); } catch (e) { throw new Error(`--matrix ${opts.matrix}: ${e.message}`, { cause: e }); }
    plan = matrixPlan(spec, { full: opts.full, budget: iso.budgetCpus, overrides });
  } else {
    plan = buildPlan({ full: opts.full, scenario: opts.scenario, sample: opts.sample ?? app?.dir, budget: iso.budgetCpus, budgets: iso.budgets, processes: iso.processes, overrides });
  }
  const tool = opts.tool ?? (hasWrk() ? 'wrk' : 'autocannon');
  const paced = pacedToolName(tool);
  const whole = !opts.scenario && !opts.sample && !opts.matrix && !app;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.resolve(opts.out ?? (whole ? DEFAULT_OUT : app?.out ?? path.join(REPO, '.run', 'bench', stamp)));
  const guidePath = path.resolve(opts.guide ?? (outDir === DEFAULT_OUT ? DEFAULT_GUIDE : path.join(outDir, 'decision-guide.md')));
  const total = estimateSeconds(plan);

  if (opts.list) {
    const budgets = iso.budgets.map((b) => `${b.budget} CPU${b.cpuset === 'all' ? ' (every CPU, shared with the generator)' : ` (CPU ${iso.sutCpus})`}`).join(', ');
    console.log(`engine ${engineChoice.engine} (${engineChoice.why}); mode ${plan.mode}: ${plan.params.rounds} rounds × ${plan.params.windowS} s windows (warm-up ${plan.params.warmupS} s, ${plan.params.rewarmS} s before each whole window); generator on CPU ${iso.generatorCpus}; verdict budgets ${budgets}`);
    for (const s of plan.scenarios) {
      console.log(`\n${s.name}: ${s.title}`);
      for (const c of s.cells) console.log(`  ${c.id.padEnd(40)} ${c.kind.padEnd(8)} ${c.topology.label}`);
      if (s.comparisons.length) console.log(`  ${s.comparisons.length} verdicts`);
    }
    console.log(`\n${plan.scenarios.reduce((n, s) => n + s.cells.length, 0)} cells, tool ${tool} (+ paced for latency at a fixed rate and the open loop, ${paced} for the experiments' fixed rates), about ${Math.ceil(total / 60)} min`);
    return 0;
  }

  const ui = progress(total);
  let interrupted = false;
  let release = () => {};
  const onSignal = (sig) => {
    if (interrupted) return;
    interrupted = true;
    ui.stop();
    process.stderr.write(`\nbench: ${sig}: stopping what was started…\n`);
    stopAll().finally(() => { release(); process.exit(130); });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const startedAt = new Date().toISOString();
  // Before the generator is pinned: a private Docker daemon started now keeps every CPU.
  const engine = await useEngine(engineChoice, { log: (line) => ui.log(line) });
  if (engine.name === 'processes') ui.log(`engine: processes (${engine.chosen})`);
  if (app) await checkApp(app, { log: (line) => ui.log(line) }); // healthy, every path below 400: else one line, exit 2
  if (whole) await waitForQuiet(ui);
  const before = { ...boxSnapshot(), busyShare: await busyShare(1000) };
  // Started before this process is pinned to the generator's CPUs: a child starts in its parent's cpuset.
  const probe = iso.shared ? null : startCoreProbe(iso.sutCpus);
  const pinned = pinGenerator(iso);
  release = pinned.release;
  const isolation = pinned.record;
  if (!isolation.pinned) ui.log(`NOT pinned: ${'reason' in isolation ? isolation.reason : 'unknown'}; every result is flagged`);
  const runBase = path.resolve(opts.runDir ?? path.join(REPO, '.run', 'bench-topologies', stamp));
  let cells;
  let ceilings;
  try {
    ceilings = await measureCeilings(toolsOf(plan, tool, paced), { runDir: path.join(runBase, 'ceiling'), isolation, durationS: Math.max(1, Math.min(plan.params.ceilingS, plan.params.windowS)), onStep: ui.phase });
    ui.tick(2 * plan.params.ceilingS + 2);
    cells = await runPlan(plan, { tool, pacedTool: paced, ceilings, isolation, runBase, hooks: ui });
  } finally {
    ui.stop();
    release();
    await releaseEngine();
  }
  const coreSpeed = summariseCoreSpeed(await probe?.stop(), { cpus: iso.sutCpus, withReadings: true });
  const box = boxReport(before, boxSnapshot(), undefined, coreSpeed);
  const meta = await collectMeta();
  const partial = whole ? '' : ' (partial run)';
  const doc = buildResults({
    plan, cells, tool, pacedTool: paced, ceilings, isolation, box, meta, startedAt, spread,
    label: opts.label ?? `Run on ${meta.machine.hostname} (${meta.machine.cores} cores), ${plan.mode} mode${partial}, ${startedAt.slice(0, 10)}, load ${box.loadBefore[0]} → ${box.loadAfter[0]}${box.stealPct === null ? '' : `, ${box.stealPct}% steal`}${box.busy ? ' (busy)' : ''}`,
    argv: process.argv.slice(2).map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' '),
  });
  doc.protocol.engine = engine; // docker | processes, how it was chosen (results.js knows nothing of it)
  doc.protocol.generatorNodeFlags = process.execArgv; // the paced generator's process (lib/generator-heap.js)
  withPrices(sanitizeDoc(doc), parsePrices(opts));
  const files = await writeOutputs(doc, { outDir, guidePath, repo: REPO, quoteDocs: outDir === DEFAULT_OUT });
  console.log(summaryTable(doc));
  console.log(`\nwrote ${files.join(', ')}`);
  const failed = doc.cells.filter((c) => c.status === 'failed');
  if (failed.length) {
    console.error(`\nbench: ${failed.length} of ${doc.cells.length} measurements failed:`);
    for (const c of failed) console.error(`  - ${c.id}: ${c.error}`);
    return 1;
  }
  return 0;
}

const relaunched = relaunchWithHeap(fileURLToPath(import.meta.url));
if (relaunched) relaunched.then((code) => process.exit(code));
else main().then((code) => process.exit(code), async (e) => {
  await stopAll();
  const kind = e instanceof GeneratorError ? 'load generator failed' : 'error';
  console.error(`bench: ${kind}: ${e.message}`);
  process.exit(2);
});
