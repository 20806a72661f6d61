#!/usr/bin/env node
// The drills alone, for a hand run: each app's strategies started one at a time behind its nginx
// (with its store), crashed, rolled out and — replicas — stopped and scaled down under a fixed rate
// of GETs and POSTs, the writes counted in the store after each drill. Writes <out>/drills.json
// (the cells as results.json keeps them) and <out>/drills.md (the guide's section), and prints
// each strategy's verdict against the pass line.
//   node harness/bench/drills.js [--engine processes|docker] [--apps <app folder>,...] [--strategies replicas,...]
import { Command, InvalidArgumentError } from 'commander';
import { positive } from '../lib/option-parsers.js';
import fs from 'node:fs';
import path from 'node:path';
import { selectEngine } from '../runner/index.js';
import { describeSample, listApps } from './lib/topologies/app-descriptions.js';
import { drillCells, whyNotDrillable, runDrillCell, STRATEGY_KEYS, DRILL_DEFAULTS } from './lib/drills/index.js';
import { openEngine } from './lib/run/open-engine.js';
import { startDeployment } from './lib/run/deployments.js';
import { stopAll } from './lib/run/cleanup.js';
import { renderDrills, drillVerdict } from './lib/report/drills.js';
import { SEND_LAG_P99_BOUND_MS } from './lib/judge/send-lag-bound.js';
import { REPO_ROOT } from '../lib/repo-root.js';

const list = (name, known) => (v) => {
  const items = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const unknown = items.filter((x) => !known().includes(x));
  if (!items.length || unknown.length)
    throw new InvalidArgumentError(
      `${name}: ${unknown.length ? `unknown ${unknown.join(', ')}` : 'empty'}; use some of ${known().join(', ')}`,
    );
  return items;
};

const program = new Command()
  .name('drills')
  .description(
    'Crash, rollout, stop and scale-down drills of each strategy, behind nginx, with the writes counted in the store.',
  )
  .option('--engine <name>', 'docker | processes (default: docker when an engine answers, else processes)')
  .option(
    '--apps <list>',
    'the samples to drill (default: all)',
    list('--apps', listApps),
  )
  .option(
    '--strategies <list>',
    `the strategies (default: every one the app can run: ${STRATEGY_KEYS.join(', ')})`,
    list('--strategies', () => STRATEGY_KEYS),
  )
  .option(
    '--processes <n>',
    'processes of every strategy but one-process',
    positive('--processes', { integer: true }),
    2,
  )
  .option('--budget <cpus>', 'CPUs of the app, split over its instances', positive('--budget'), 1)
  .option('--kills <n>', 'kills of a crash drill', positive('--kills', { integer: true }), DRILL_DEFAULTS.kills)
  .option(
    '--events <n>',
    "stops, scale-downs of the replicas' drills",
    positive('--events', { integer: true }),
    DRILL_DEFAULTS.events,
  )
  .option('--rate <n>', 'requests per second, open loop', positive('--rate'), DRILL_DEFAULTS.rate)
  .option(
    '--send-lag-bound <ms>',
    'a drill whose generator sent later than this at p99 (ms) is run again, then not measured',
    positive('--send-lag-bound'),
    SEND_LAG_P99_BOUND_MS,
  )
  .option('--out <dir>', 'output folder (default: .run/drills/<time>)')
  .configureOutput({ outputError: (str, write) => write(`${str.trim()} (drills --help lists the options)\n`) })
  // Misuse: one line, exit 2, nothing started.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

// One line of what a drill counted: failed requests, and the writes the store kept.
function countsOf(d) {
  const w = d.writes;
  const writes = w.counted
    ? `${w.acknowledged} acknowledged, ${w.lost} lost, ${w.duplicated} duplicated, ${w.ambiguous} ambiguous`
    : `not counted: ${w.why}`;
  const failed = (p) => `${p.failed} of ${p.requests}`;
  return `GET ${failed(d.get)} failed, POST ${failed(d.post)}; writes ${writes}`;
}

// A store that could not start for one deployment of a sample is not tried again for the next.
const noDatabase = new Map();

async function drillStrategy({ engine, sample, app, key, opts, outDir, log }) {
  const n = key === 'one-process' ? 1 : opts.processes;
  const cells = drillCells(app, key, n, opts.budget, { kills: opts.kills, events: opts.events, rate: opts.rate });
  const t = cells[0].topology;
  const runDir = path.join(outDir, 'runs', `${sample}-${key}`);
  let dep;
  try {
    const how = { runDir, needsDb: true, knownDatabaseError: noDatabase.get(sample), log };
    dep = await startDeployment(engine.runner, { sample, env: t.env }, how);
    if (dep.databaseError) noDatabase.set(sample, dep.databaseError);
  } catch (e) {
    return cells.map((c) => ({ ...c, status: 'failed', error: e.message }));
  }
  const out = [];
  try {
    for (const cell of cells) {
      log(`${cell.id}: ${cell.kind} of ${key} (${n} process${n > 1 ? 'es' : ''}, ${opts.budget} CPU)`);
      const drilled = await runDrillCell({
        cell,
        runner: engine.runner,
        runDir,
        url: dep.url(t),
        app,
        name: sample,
        log: (l) => log(`  ${l}`),
        sendLagBoundMs: opts.sendLagBound,
      }).then((drill) => ({ ...cell, status: 'ok', drill }), (e) => ({ ...cell, status: 'failed', error: e.message }));
      log(drilled.status === 'ok' ? `  ${countsOf(drilled.drill)}` : `  failed: ${drilled.error}`);
      out.push(drilled);
    }
  } finally {
    await dep.stop();
  }
  return out;
}

async function main() {
  const opts = program.parse().opts();
  const choice = selectEngine(opts.engine ?? process.env.ENGINE);
  const startedAt = new Date().toISOString();
  const outDir = path.resolve(opts.out ?? path.join(REPO_ROOT, '.run', 'drills', startedAt.replace(/[:.]/g, '-')));
  const log = (line) => console.log(line);
  process.once('SIGINT', () => {
    stopAll().finally(() => process.exit(130));
  });
  const engine = await openEngine(choice, { log });
  log(
    `engine ${engine.record.name} (${choice.why}); ${opts.budget} CPU, ${opts.processes} processes, ` +
      `${opts.rate} requests/s; out ${path.relative(process.cwd(), outDir) || '.'}`,
  );
  const cells = [];
  try {
    for (const sample of opts.apps ?? listApps()) {
      const app = describeSample(sample);
      for (const key of opts.strategies ?? STRATEGY_KEYS) {
        const why = whyNotDrillable(app, key);
        if (why) {
          if (opts.strategies) log(`${sample}: no ${key} drills (${why})`);
          continue;
        }
        cells.push(...(await drillStrategy({ engine, sample, app, key, opts, outDir, log })));
      }
    }
  } finally {
    await engine.release();
  }
  const doc = {
    schema: 'drills/1',
    label: 'hand run of harness/bench/drills.js',
    argv: process.argv.slice(2),
    startedAt,
    finishedAt: new Date().toISOString(),
    protocol: { engine: engine.record },
    cells,
  };
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'drills.json'), `${JSON.stringify(doc, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'drills.md'), `${renderDrills(doc).join('\n')}\n`);
  log('');
  for (const key of [...new Set(cells.map((c) => c.strategy))]) log(drillVerdict(doc, key, opts.budget).text);
  log(`\n${path.join(outDir, 'drills.json')}\n${path.join(outDir, 'drills.md')}`);
  return cells.some((c) => c.status !== 'ok') ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    await stopAll();
    console.error(`drills: ${e.message}`);
    process.exit(2);
  },
);
