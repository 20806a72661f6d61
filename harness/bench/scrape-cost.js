#!/usr/bin/env node
// What a 1 s scrape of the samples' /metrics costs at capacity: one deployment of a sample on the
// processes engine (pinned to the CPUs after the first; the generator on the first), saturated by
// wrk in paired rounds, one window without and one with a scraper asking every instance's /metrics
// once a second (the order alternating), then the two medians and the ratio with its 95% interval.
// A hand run for a quiet machine:
//   node harness/bench/scrape-cost.js --sample <folder> [--env WORKERS=2,CPUS=1] [--path /]
//     [--services app,nginx] [--rounds 10] [--window 5] [--connections 64] [--every 1000]
import { Command } from 'commander';
import os from 'node:os';
import path from 'node:path';
import { runnerFor, availableCpus, formatCpuList, pinProcess } from '../runner/index.js';
import { closedWindow } from './lib/run/measure-window.js';
import { pairedRatio, median, round } from './lib/judge/stats.js';
import { positive, envList } from '../lib/option-parsers.js';

const whole = (name) => positive(name, { integer: true });

const opts = new Command('scrape-cost')
  .description('Capacity of a sample with and without a 1 s scrape of its /metrics, in paired rounds.')
  .requiredOption('--sample <folder>', 'the sample (a folder with a compose.yaml whose app has METRICS_PORT)')
  .option('--env <NAME=value,…>', 'its knobs (REPLICAS, WORKERS, CPUS, …)', envList, {})
  .option('--path <path>', 'the request path, through nginx', '/')
  .option('--services <list>', 'only these services, without their dependencies (no database)', (v) => v.split(','))
  .option('--rounds <n>', 'paired rounds', whole('--rounds'), 10)
  .option('--window <s>', 'seconds per window', whole('--window'), 5)
  .option('--connections <n>', 'wrk connections', whole('--connections'), 64)
  .option('--every <ms>', 'the scrape interval', whole('--every'), 1000)
  .parse()
  .opts();

// Scrapes every URL once per `everyMs` until the function it returns is called; counts the scrapes and
// the failed ones in `count`.
function scraper(urls, everyMs, count) {
  const timer = setInterval(() => {
    for (const u of urls) {
      count.scrapes += 1;
      fetch(u, { signal: AbortSignal.timeout(everyMs) }).then((r) => r.text(), () => { count.failed += 1; });
    }
  }, everyMs);
  return () => clearInterval(timer);
}

const runner = await runnerFor('processes');
const cpus = availableCpus();
const appCpus = cpus.length > 1 ? formatCpuList(cpus.slice(1)) : undefined;
const runDir = path.join(os.tmpdir(), `scrape-cost-${process.pid}`);
const only = opts.services ? { services: opts.services, noDeps: true } : {};
const state = await runner.up({
  sample: opts.sample, runDir, env: { HTTP_PORT: '0', ...opts.env }, cpuset: appCpus, ...only,
});
let pin = null;
try {
  if (appCpus) pin = pinProcess(`scrape-cost-${process.pid}`, process.pid, String(cpus[0]));
  const app = Object.values(state.services).find((s) => s.instances.some((i) => i.extraPorts?.METRICS_PORT));
  if (!app) throw new Error(`${opts.sample}: no instance has a metrics port (x-local extra_ports_env METRICS_PORT)`);
  const urls = app.instances.map((i) => `http://127.0.0.1:${i.extraPorts.METRICS_PORT}/metrics`);
  const url = `${state.url.replace(/\/$/, '')}${opts.path}`;
  const window = () => closedWindow({ url, tool: 'wrk', connections: opts.connections, durationS: opts.window });
  await window(); // warm-up
  const rps = { without: [], with: [] };
  const scrapes = { scrapes: 0, failed: 0 };
  for (let r = 0; r < opts.rounds; r += 1) {
    for (const side of r % 2 ? ['with', 'without'] : ['without', 'with']) {
      const stop = side === 'with' ? scraper(urls, opts.every, scrapes) : () => {};
      try { rps[side].push((await window()).rps); } finally { stop(); }
    }
  }
  const { ratio, ci95 } = pairedRatio(rps.with, rps.without);
  console.log(`${opts.sample} ${JSON.stringify(opts.env)} ${opts.path}, ${opts.rounds} rounds of ${opts.window} s, `
    + `${urls.length} metrics URL(s) every ${opts.every} ms (${scrapes.scrapes} scrapes, ${scrapes.failed} failed)`);
  const rounds = (xs) => xs.map((x) => round(x)).join(', ');
  console.log(`  req/s without a scrape: median ${round(median(rps.without))} (${rounds(rps.without)})`);
  console.log(`  req/s with it:          median ${round(median(rps.with))} (${rounds(rps.with)})`);
  console.log(`  with ÷ without: ×${round(ratio, 3)}, 95% interval ×${round(ci95?.[0], 3)}–×${round(ci95?.[1], 3)}`);
} finally {
  pin?.release();
  await runner.down({ runDir });
}
