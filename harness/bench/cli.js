#!/usr/bin/env node
// make bench: measures the apps (this repository's samples, or yours with APP=) under each scaling
// strategy at each CPU budget, with the load generator on CPUs of its own, in interleaved rounds, and
// writes a results folder: results.json, the charts, report.md and the decision guide.
// make report: the same folder again from a results.json, without measuring (--from).
// The command line is checked first, on light modules only (commander, the plan's names, the
// budgets, the sample, the results file of --from); the modules that measure and render (d3, the
// HDR histograms, the tools, the runners) load only after that: a misuse costs one short start.
import { Command, Option } from 'commander';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SCENARIOS } from './lib/plan/scenarios.js';
import { describeSample } from './lib/topologies/app-descriptions.js';
import { isolationOf } from './lib/plan/cpu-budgets.js';
import { readResults, RerenderError } from './lib/judge/read-results-file.js';
import { stopAll } from './lib/run/cleanup.js';
import { parsePrices } from './lib/report/cost.js';
import { GeneratorError } from './lib/tools/errors.js';
import { resolveSample, missingSecretFiles } from '../runner/index.js';
import { appOptions, appFromOptions, checkAppOnEngine } from './lib/apps/cli.js';
import { positive } from '../lib/option-parsers.js';

// loadtest uses a deprecated Node API; its warning would only clutter the progress display.
process.noDeprecation = true;

const zeroOrPositive = (name) => (v) => (Number(v) === 0 && String(v).trim() !== '' ? 0 : positive(name)(v));

const program = new Command()
  .name('bench')
  .description(
    'Each app under each scaling strategy at each CPU budget (one process, cluster, PM2, reusePort, replicas ' +
      'behind nginx, .NET), the published experiments; writes a results folder with the verdicts, report and ' +
      'decision guide.',
  )
  .option('--full', 'the long run: longer windows, more rounds, every question, the drills and the experiments', false)
  .addOption(new Option('--scenario <name>', 'run one scenario').choices(Object.keys(SCENARIOS)))
  .option('--sample <dir>', 'run only the cells of one app folder of this repository (--list names them)')
  .option(
    '--app-dir <dir>',
    'measure the app of this folder (its compose.yaml has an x-bench field; make bench APP= generates one)',
  )
  .addOption(
    new Option('--tool <name>', 'closed-loop load generator (default: wrk if installed, else autocannon)').choices([
      'wrk',
      'autocannon',
    ]),
  )
  .option(
    '--budgets <list>',
    "CPU budgets the verdicts sweep, e.g. 1,2 (default: 1, doubling, and every CPU left after the load generator's; " +
      'on 2 cores 1 and 2, the generator sharing the second)',
  )
  .option(
    '--engine <name>',
    'docker | processes: what runs the topologies (default: docker when an engine answers, else processes)',
  )
  .option(
    '--budget <cpus>',
    "CPU budget of the drills and experiments (default: every CPU left after the load generator's)",
    positive('--budget'),
  )
  .option(
    '--slo-p99 <ms>',
    'the latency target of the capacity search: p99 at most this (default 250)',
    positive('--slo-p99'),
  )
  .option('--out <dir>', 'the results folder (default: .run/bench/<time>; docs/results is the committed reference run)')
  .option(
    '--guide <file>',
    'where to write the decision guide (default: <out>/decision-guide.md; docs/decision-guide.md for docs/results)',
  )
  .option(
    '--matrix <file>',
    'run the scenarios in a JSON file instead of the built-in ones (see harness/bench/README.md)',
  )
  .option('--window <s>', 'seconds per measured window', positive('--window'))
  .option('--warmup <s>', 'seconds of warm-up per cell', zeroOrPositive('--warmup'))
  .option('--rewarm <s>', 'seconds of warm-up before each window', zeroOrPositive('--rewarm'))
  .option('--rounds <n>', 'interleaved rounds', positive('--rounds', { integer: true }))
  .option(
    '--no-latency',
    'throughput, CPU and memory only: no latency windows and no capacity search, so no paced generator to ' +
      'start (quicker; no p99 or capacity question is asked)',
  )
  .option('--label <text>', 'label for this run in the report')
  .option('--run-dir <dir>', "where the topologies' run folders and logs go (default: .run/bench-topologies/<time>)")
  .option('--list', 'print the plan and its estimated time, then exit', false)
  .option(
    '--price-vcpu-hour <price>',
    'your price of one vCPU-hour: the guide adds money per million requests (no default)',
    positive('--price-vcpu-hour'),
  )
  .option('--price-gib-hour <price>', 'your price of one GiB-hour of memory (no default)', positive('--price-gib-hour'))
  .option(
    '--from <results.json>',
    'measure nothing: the verdicts again from the measured cells (by the current rule), then the report, charts ' +
      'and guide (make report)',
  )
  // Misuse gets one line (the help is one --help away).
  .configureOutput({ outputError: (str, write) => write(`${str.trim()} (bench --help lists the options)\n`) })
  // Misuse exits 2 (commander's own is 1); --help and --version 0.
  .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2));
appOptions(program); // --app, --paths, --health, --start, --service, --reuse-port: your own service (lib/apps/)

function listPlan({ plan, apps, budgetChoice: choice, measuring: m, folder }, estimateSeconds) {
  const p = plan.params;
  const iso = m.isolation;
  const where = (b) => (b.cpuset === 'all' ? ' (every CPU, shared with the generator)' : ` (CPU ${iso.sutCpus})`);
  const budgets = iso.budgets.map((b) => `${b.budget} CPU${where(b)}`).join(', ');
  console.log(
    `engine ${m.engineChoice.engine} (${m.engineChoice.why}); mode ${plan.mode}: ` +
      `${p.rounds} rounds × ${p.windowS} s windows (warm-up ${p.warmupS} s); ` +
      `capacity at p99 ≤ ${p.sloP99Ms} ms in ${p.capacitySteps} steps; generator on CPU ${iso.generatorCpus}`,
  );
  console.log(`budgets ${budgets}: ${choice.why}`);
  console.log(`apps: ${apps.map((a) => `${a.name} (${a.sample})`).join(', ')}; results to ${folder.outDir}`);
  for (const s of plan.scenarios) {
    console.log(`\n${s.name}: ${s.title}`);
    for (const c of s.cells) console.log(`  ${c.id.padEnd(40)} ${c.kind.padEnd(8)} ${c.topology.label}`);
    if (s.comparisons.length) console.log(`  ${s.comparisons.length} verdicts`);
  }
  const cells = plan.scenarios.reduce((n, s) => n + s.cells.length, 0);
  const minutes = Math.ceil(estimateSeconds(plan, { moves: m.moves }) / 60);
  console.log(
    `\n${cells} cells, tool ${m.tool} (+ paced for capacity and latency at a fixed rate, ` +
      `${m.pacedTool} for the experiments' fixed rates), about ${minutes} min`,
  );
  return 0;
}

// Every app of the plan has the secret files its compose.yaml names (make bench creates them with
// make secrets): found missing only when its first deployment starts, they failed every one of its cells.
function checkSecrets(plan) {
  const samples = new Set(plan.scenarios.flatMap((s) => s.cells.map((c) => c.topology.sample)));
  const missing = [...samples].flatMap((sample) => missingSecretFiles(describeSample(sample).dir));
  if (missing.length)
    throw new Error(`${missing.join(', ')} missing: run \`make secrets\` (make bench does it first)`);
}

// Prints the summary table and the files written, then the failed measurements: 1 if any, else 0.
async function reportRun(doc, files) {
  const { summaryTable } = await import('./lib/report/table.js');
  console.log(summaryTable(doc));
  console.log(`\nwrote ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')}`);
  const failed = doc.cells.filter((c) => c.status === 'failed');
  if (!failed.length) return 0;
  console.error(`\nbench: ${failed.length} of ${doc.cells.length} measurements failed:`);
  for (const c of failed) console.error(`  - ${c.id}: ${c.error}`);
  return 1;
}

const shellQuote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);

// The stages in turn, each given what it needs and returning its product: `make report` judges a
// results file again and writes its folder; `make bench` plans, measures, judges and writes.
async function main() {
  program.parse();
  const opts = program.opts();
  const prices = parsePrices(opts);
  if (opts.from) {
    const doc = await readResults(opts.from); // missing, not ours, another schema: one line, exit 2
    const { rejudge } = await import('./lib/judge/results-document.js');
    const { writeResults } = await import('./lib/report/write-folder.js');
    const { resultsFolder } = await import('./lib/run-setup.js');
    const folder = resultsFolder(opts, path.dirname(opts.from));
    const files = await writeResults(rejudge(doc, { label: opts.label }), prices, folder);
    console.log(`wrote ${files.join(', ')}`);
    return 0;
  }
  if (opts.sample) resolveSample(opts.sample); // one line naming the samples there are
  const isolation = isolationOf(opts); // --budget, --budgets: one line naming what doesn't fit
  // --app: your service as a generated app folder (bad input: one line, exit 2), measured as --app-dir.
  const app = await appFromOptions(opts, {
    engine: opts.engine ?? process.env.ENGINE,
    log: (line) => console.log(line),
  });
  if (app)
    Object.assign(opts, {
      appDir: app.dir,
      out: opts.out ?? app.out,
      engine: app.engine,
      engineWhy: app.kind === 'node' ? 'a Node folder runs as local processes' : 'a container app runs on Docker',
    });
  if (opts.matrix) {
    try {
      opts.matrixSpec = JSON.parse(await readFile(opts.matrix, 'utf8'));
    } catch (e) {
      throw new Error(`--matrix ${opts.matrix}: ${e.message}`, { cause: e });
    }
  }
  const { runSetup } = await import('./lib/run-setup.js');
  const setup = runSetup(opts, isolation);
  const { plan, measuring } = setup;
  if (opts.list) return listPlan(setup, (await import('./lib/run/index.js')).estimateSeconds);
  checkSecrets(plan); // a sample's password files: else one line, exit 2, before anything starts
  if (app) await checkAppOnEngine(app, measuring.engineChoice); // healthy, every path below 400: else one line, exit 2
  const { measurePlan } = await import('./lib/run/measure-plan.js');
  const { buildResults } = await import('./lib/judge/results-document.js');
  const { writeResults } = await import('./lib/report/write-folder.js');
  const measured = await measurePlan(plan, measuring);
  const doc = buildResults({
    plan, ...measured, apps: setup.apps, budgetChoice: setup.budgetChoice, whole: setup.whole,
    label: opts.label, argv: process.argv.slice(2).map(shellQuote).join(' '),
  });
  return reportRun(doc, await writeResults(doc, prices, setup.folder));
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    await stopAll();
    const kind = e instanceof GeneratorError ? 'load generator failed' : e instanceof RerenderError ? null : 'error';
    console.error(`bench: ${kind ? `${kind}: ` : ''}${e.message}`);
    process.exit(2);
  },
);
