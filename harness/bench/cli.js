#!/usr/bin/env node
// make bench: runs the scenario matrix and the published experiments through the local runner,
// then writes results.json, SVG charts, report.md and the decision guide.
import { Command, InvalidArgumentError, Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { plan as buildPlan, SCENARIOS } from './lib/scenarios.js';
import { measureCeilings } from './lib/ceiling.js';
import { runPlan, stopAll, unitsOf, estimateSeconds } from './lib/run.js';
import { collectMeta } from './lib/meta.js';
import { writeOutputs } from './lib/output.js';
import { summaryTable } from './lib/report/table.js';
import { pacedToolName } from './lib/tools/index.js';
import { GeneratorError } from './lib/tools/errors.js';

// loadtest uses a deprecated Node API; its warning would only clutter the progress display.
if (!process.noDeprecation) process.noDeprecation = true;

const REPO = path.resolve(new URL('../..', import.meta.url).pathname);
const DEFAULT_OUT = path.join(REPO, 'docs', 'results');
const DEFAULT_GUIDE = path.join(REPO, 'docs', 'decision-guide.md');

const positive = (name) => (v) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};

function hasWrk() {
  try { execFileSync(process.env.WRK_BIN || 'wrk', ['--version'], { stdio: 'ignore' }); return true; } catch (e) { return e.status !== undefined && e.code !== 'ENOENT'; }
}

const program = new Command()
  .name('bench')
  .description('Scenario matrix and published experiments for the three samples; writes results, charts, report and decision guide.')
  .option('--full', 'the full run (longer measurements, more topologies)', false)
  .addOption(new Option('--scenario <name>', 'run one scenario').choices(Object.keys(SCENARIOS)))
  .option('--sample <dir>', 'run only the cells of one sample (node-replicas, node-cluster, dotnet-api)')
  .addOption(new Option('--tool <name>', 'closed-loop load generator (default: wrk if installed, else autocannon)').choices(['wrk', 'autocannon', 'loadtest']))
  .option('--out <dir>', 'output folder (default: docs/results for a whole run, .run/bench/<time> for a partial one)')
  .option('--guide <file>', 'where to write the decision guide (default: docs/decision-guide.md with the default --out, else <out>/decision-guide.md)')
  .option('--matrix <file>', 'run the cells listed in a JSON file instead of the built-in scenarios')
  .option('--duration <s>', 'override seconds per measurement', positive('--duration'))
  .option('--warmup <s>', 'override warm-up seconds', (v) => (Number(v) === 0 ? 0 : positive('--warmup')(v)))
  .option('--repeats <n>', 'override repeats', positive('--repeats'))
  .option('--label <text>', 'label for this run in the report')
  .option('--run-dir <dir>', 'where the topologies\' run folders and logs go (default: .run/bench-topologies/<time>)')
  .option('--list', 'print the plan and exit', false)
  .option('--from <results.json>', 'measure nothing: write the report, charts and guide again from a results file')
  .showHelpAfterError();

async function loadPlan(opts) {
  if (opts.matrix) {
    let spec;
    try { spec = JSON.parse(await readFile(opts.matrix, 'utf8')); } catch (e) { throw new Error(`--matrix ${opts.matrix}: ${e.message}`); }
    if (!Array.isArray(spec.cells) || spec.cells.length === 0) throw new Error(`--matrix ${opts.matrix}: expected {"cells": [...]} with at least one cell`);
    const base = buildPlan({ full: opts.full, scenario: 'matrix' });
    return { mode: spec.mode ?? 'custom', params: { ...base.params, ...spec.params }, cells: spec.cells.map((c, i) => ({ id: i + 1, scenario: 'matrix', ...c })) };
  }
  return buildPlan({ full: opts.full, scenario: opts.scenario, sample: opts.sample });
}

function progress(total) {
  if (!process.stderr.isTTY) {
    return { tick: () => {}, label: (l) => process.stderr.write(`bench: ${l}\n`), log: (l) => process.stderr.write(`  ${l}\n`), stop: () => {} };
  }
  const bar = new cliProgress.SingleBar({ format: 'bench [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted} | {label}', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  bar.start(total, 0, { label: 'generator ceiling' });
  return {
    tick: (n = 1) => bar.increment(n),
    label: (l) => bar.update({ label: l.slice(0, 70) }),
    log: () => {},
    stop: () => bar.stop(),
  };
}

async function rerender(opts) {
  let doc;
  try { doc = JSON.parse(await readFile(opts.from, 'utf8')); } catch (e) { throw new Error(`--from ${opts.from}: ${e.message}`); }
  if (doc.schema !== 1 || !Array.isArray(doc.results)) throw new Error(`--from ${opts.from}: not a results file of this benchmark`);
  if (opts.label) doc.label = opts.label; // relabel a kept run, e.g. the committed reference run
  const outDir = path.resolve(opts.out ?? path.dirname(opts.from));
  const guidePath = path.resolve(opts.guide ?? (outDir === DEFAULT_OUT ? DEFAULT_GUIDE : path.join(outDir, 'decision-guide.md')));
  const files = await writeOutputs(doc, { outDir, guidePath });
  console.log(`wrote ${files.join(', ')}`);
  return 0;
}

async function main() {
  program.parse();
  const opts = program.opts();
  if (opts.from) return rerender(opts);
  const plan = await loadPlan(opts);
  for (const k of ['duration', 'warmup', 'repeats']) {
    if (opts[k] !== undefined) plan.params[{ duration: 'durationS', warmup: 'warmupS', repeats: 'repeats' }[k]] = opts[k];
  }
  if (opts.duration !== undefined) for (const c of plan.cells) delete c.durationS;
  if (opts.repeats !== undefined) for (const c of plan.cells) delete c.repeats;
  const tool = opts.tool ?? (hasWrk() ? 'wrk' : 'autocannon');
  const paced = pacedToolName(tool);
  const whole = !opts.scenario && !opts.sample && !opts.matrix;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.resolve(opts.out ?? (whole ? DEFAULT_OUT : path.join(REPO, '.run', 'bench', stamp)));
  const guidePath = path.resolve(opts.guide ?? (outDir === DEFAULT_OUT ? DEFAULT_GUIDE : path.join(outDir, 'decision-guide.md')));

  if (opts.list) {
    for (const c of plan.cells) console.log(`${String(c.id).padStart(3)} ${c.scenario.padEnd(26)} ${c.kind.padEnd(8)} ${(c.workload ?? '').padEnd(6)} ${c.topology.label ?? c.topology.url}`);
    console.log(`${plan.cells.length} cells, mode ${plan.mode}, tool ${tool} (+ ${paced} for fixed-rate runs), about ${Math.ceil(estimateSeconds(plan) / 60)} min`);
    return 0;
  }

  const units = plan.cells.reduce((s, c) => s + unitsOf(c, plan.params), 0);
  const ui = progress(units);
  let interrupted = false;
  const onSignal = (sig) => {
    if (interrupted) return;
    interrupted = true;
    ui.stop();
    process.stderr.write(`\nbench: ${sig}: stopping what was started…\n`);
    stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const startedAt = new Date().toISOString();
  const ceilings = await measureCeilings([...new Set([tool, paced])], { durationS: plan.params.ceilingS, onStep: ui.label });
  const runBase = path.resolve(opts.runDir ?? path.join(REPO, '.run', 'bench-topologies', stamp));
  let results;
  try {
    results = await runPlan({ plan, tool, ceilings, runBase, hooks: { onGroup: ui.label, tick: ui.tick, log: ui.log } });
  } finally {
    ui.stop();
  }
  const cpuLimits = results.find((r) => r.cpuLimits)?.cpuLimits ?? null;
  const meta = await collectMeta({ cpuLimits });
  const partial = whole ? '' : ' (partial run)';
  const doc = {
    schema: 1,
    label: opts.label ?? `Run on ${meta.machine.hostname} (${meta.machine.cores} cores), ${plan.mode} mode${partial}`,
    mode: plan.mode,
    argv: process.argv.slice(2).map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' '),
    startedAt,
    finishedAt: new Date().toISOString(),
    tool,
    pacedTool: paced,
    params: plan.params,
    meta,
    ceilings,
    results,
  };
  const files = await writeOutputs(doc, { outDir, guidePath });
  console.log(summaryTable(results));
  console.log(`\nwrote ${files.join(', ')}`);
  const failed = results.filter((r) => r.status === 'failed');
  if (failed.length) {
    console.error(`\nbench: ${failed.length} of ${results.length} measurements failed:`);
    for (const r of failed) console.error(`  - ${r.scenario} / ${r.topology.label} / ${r.workload}: ${r.error}`);
    return 1;
  }
  return 0;
}

main().then((code) => process.exit(code), async (e) => {
  await stopAll();
  const kind = e instanceof GeneratorError ? 'load generator failed' : 'error';
  console.error(`bench: ${kind}: ${e.message}`);
  process.exit(2);
});
