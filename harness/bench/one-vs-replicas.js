#!/usr/bin/env node
// The article's experiment through the local runner and the real nginx: a sample's app service as
// N replicas at CPUS each, wrk on each path at 100 and 400 connections, then the replicas' resident
// memory. A hand run (repository root, Node 26 first on PATH), one JSON line per measurement:
//   node harness/bench/one-vs-replicas.js <sample> <replicas> <cpus> [/path,/path] [seconds]
// `make bench` runs such comparisons with every response checked, repeats and the load generator's
// ceiling measured (the experiments, harness/bench/README.md).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runnerFor } from '../runner/index.js';
import { parseWrk } from './lib/tools/wrk.js';

const [sample, replicas, cpus, paths = '/', seconds = '8'] = process.argv.slice(2);
if (!sample || !/^[1-9]\d*$/.test(replicas ?? '') || !(Number(cpus) > 0) || !/^[1-9]\d*$/.test(seconds)) {
  console.error('usage: node harness/bench/one-vs-replicas.js <sample> <replicas> <cpus> [/path,/path] [seconds]');
  process.exit(2);
}
const { up, down } = runnerFor('processes');
const runDir = join(tmpdir(), `one-vs-replicas-${replicas}-${process.pid}`);
const wrk = (url, c, d) => parseWrk(
  execFileSync('wrk', ['-t2', `-c${c}`, `-d${d}s`, '--timeout', '5s', '--latency', url], { encoding: 'utf8' }));

try {
  const topo = await up({ sample, runDir, env: { HTTP_PORT: '0', REPLICAS: replicas, CPUS: cpus } });
  const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(JSON.stringify({ date: new Date().toISOString(), loadavg }));
  for (const path of paths.split(',')) {
    wrk(topo.url + path, 100, 3); // warm-up: JIT, connection pools
    for (const connections of [100, 400]) {
      const { rps, latencyMs, socketErrors, non2xx } = wrk(topo.url + path, connections, seconds);
      const measured = { rps, p50Ms: latencyMs.p50, p99Ms: latencyMs.p99, socketErrors, non2xx };
      console.log(JSON.stringify({ sample, replicas, cpus, path, connections, ...measured }));
    }
  }
  const rssKiB = topo.services.app.instances.map(
    (i) => Number(readFileSync(`/proc/${i.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]));
  const totalMiB = Math.round(rssKiB.reduce((a, b) => a + b, 0) / 1024);
  console.log(JSON.stringify({ replicas, rssMiB: rssKiB.map((k) => Math.round(k / 1024)), totalMiB }));
} catch (err) {
  console.error(`one-vs-replicas: ${err.message.split('\n')[0]}`);
  process.exitCode = 1;
} finally {
  await down({ runDir });
  rmSync(runDir, { recursive: true, force: true });
}
