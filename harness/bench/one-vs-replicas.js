#!/usr/bin/env node
// The article's experiment on dotnet-api through the local runner and the real nginx: N replicas at
// CPUS each, wrk on /api and /products at 100 and 400 connections, then the replicas' resident memory.
// A hand run (repository root, Node 26 first on PATH), one JSON line per measurement:
//   node harness/bench/one-vs-replicas.js 1 2 && node harness/bench/one-vs-replicas.js 4 0.5
// `make bench` (scenario exp-aspnet-nginx) runs this comparison with every response checked, repeats
// and the load generator's ceiling measured.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runnerFor } from '../runner/index.js';
import { parseWrk } from './lib/tools/wrk.js';

const { up, down } = runnerFor('processes');

const [replicas = '1', cpus = '2', seconds = '8'] = process.argv.slice(2);
const runDir = join(tmpdir(), `dotnet-api-replicas-${replicas}-${process.pid}`);
const wrk = (url, c, d) => parseWrk(
  execFileSync('wrk', ['-t2', `-c${c}`, `-d${d}s`, '--timeout', '5s', '--latency', url], { encoding: 'utf8' }));
const summary = ({ rps, latencyMs, socketErrors, non2xx }) => ({
  rps, p50Ms: latencyMs.p50, p99Ms: latencyMs.p99, socketErrors, non2xx,
});

try {
  const topo = await up({ sample: 'dotnet-api', runDir, env: { HTTP_PORT: '0', REPLICAS: replicas, CPUS: cpus } });
  const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(JSON.stringify({ date: new Date().toISOString(), loadavg }));
  for (const path of ['/api', '/products']) {
    wrk(topo.url + path, 100, 3); // warm-up: JIT, connection pools
    for (const connections of [100, 400]) {
      const measured = summary(wrk(topo.url + path, connections, seconds));
      console.log(JSON.stringify({ replicas, cpus, path, connections, ...measured }));
    }
  }
  const rssKiB = topo.services.app.instances.map(
    (i) => Number(readFileSync(`/proc/${i.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]));
  const totalMiB = Math.round(rssKiB.reduce((a, b) => a + b, 0) / 1024);
  console.log(JSON.stringify({ replicas, rssMiB: rssKiB.map((k) => Math.round(k / 1024)), totalMiB }));
} finally {
  await down({ runDir });
  rmSync(runDir, { recursive: true, force: true });
}
