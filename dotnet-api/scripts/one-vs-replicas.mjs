// The article's experiment through the local runner and the real nginx: N replicas at CPUS each,
// wrk on /api and /products at 100 and 400 connections, then the replicas' resident memory.
// Usage (repository root, Node 26 first on PATH):
//   node dotnet-api/scripts/one-vs-replicas.mjs 1 2 && node dotnet-api/scripts/one-vs-replicas.mjs 4 0.5
// Prints one JSON line per measurement: a hand run. `make bench` (scenario exp-aspnet-nginx) runs
// this comparison with every response checked, repeats and the load generator's ceiling measured.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runnerFor } from '../../harness/runner/index.js';

const { up, down } = runnerFor('processes');

const [replicas = '1', cpus = '2', seconds = '8'] = process.argv.slice(2);
const runDir = join(tmpdir(), `dotnet-api-replicas-${replicas}-${process.pid}`);
const wrk = (url, c, d) =>
  execFileSync('wrk', ['-t2', `-c${c}`, `-d${d}s`, '--timeout', '5s', '--latency', url], { encoding: 'utf8' });
const summary = (out) => ({
  rps: Number(out.match(/Requests\/sec:\s+([\d.]+)/)[1]),
  p50: out.match(/^\s+50%\s+(\S+)/m)[1],
  p99: out.match(/^\s+99%\s+(\S+)/m)[1],
  socketErrors: out.match(/Socket errors:(.*)/)?.[1].trim() ?? 'none',
  non2xx: Number(out.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0),
});

try {
  const topo = await up({ sample: 'dotnet-api', runDir, env: { HTTP_PORT: '0', REPLICAS: replicas, CPUS: cpus } });
  console.log(JSON.stringify({ date: new Date().toISOString(), loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));
  for (const path of ['/api', '/products']) {
    wrk(topo.url + path, 100, 3); // warm-up: JIT, connection pools
    for (const c of [100, 400]) {
      console.log(JSON.stringify({ replicas, cpus, path, connections: c, ...summary(wrk(topo.url + path, c, seconds)) }));
    }
  }
  const rssKiB = topo.services.app.instances.map(
    (i) => Number(readFileSync(`/proc/${i.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]));
  console.log(JSON.stringify({ replicas, rssMiB: rssKiB.map((k) => Math.round(k / 1024)), totalMiB: Math.round(rssKiB.reduce((a, b) => a + b, 0) / 1024) }));
} finally {
  await down({ runDir });
  rmSync(runDir, { recursive: true, force: true });
}
