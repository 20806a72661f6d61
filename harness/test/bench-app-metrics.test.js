// The bench's reading of the samples' own /metrics (bench/lib/run/app-metrics.js): against a real
// node-replicas process, the requests of a window are what was sent; from two processes' texts,
// the spread and the busiest loop; where they and the bench's cgroup probes disagree; the report's
// section; and no reading (not a guess) where a metrics port does not answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { freePort } from '../lib/ports.js';
import { waitFor } from '../lib/poll.js';
import {
  metricsReader, processesOf, windowOf, combineWindows, summariseAppMetrics, withAppMetrics,
} from '../bench/lib/run/app-metrics.js';
import { disagreements, appMetricsSection } from '../bench/lib/report/app-metrics.js';

async function startReplica(t) {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['src/server.js'], {
    cwd: path.join(REPO_ROOT, 'node-replicas'),
    env: { ...process.env, PORT: String(port), METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  t.after(() => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${metricsPort}/metrics`;
  await waitFor(async () => (await fetch(url)).ok, { timeoutMs: 10_000, retryErrors: true, what: 'the metrics port' });
  return { base: `http://127.0.0.1:${port}`, url };
}

test('a window\'s requests, read from a real node-replicas process, are what was sent', async (t) => {
  const replica = await startReplica(t);
  const hook = { read: metricsReader(() => [replica.url]), usage: async () => ({}), processesPerInstance: 1 };
  const w = await withAppMetrics(hook, async () => {
    for (let i = 0; i < 25; i += 1) await (await fetch(`${replica.base}/`)).text();
    return { wallMs: 100 };
  });
  assert.equal(w.wallMs, 100, 'the window itself is kept');
  assert.deepEqual(w.appMetrics.byProcess.map((p) => [p.key, p.requests]), [[`${replica.url}|`, 25]]);
  const [p] = w.appMetrics.byProcess;
  assert.ok(p.active >= 0 && p.idle >= 0, 'the loop\'s time in the window');
  assert.equal(await withAppMetrics(null, async () => 'measured only'), 'measured only');
});

test('a metrics port that does not answer gives no reading, not a guess', async () => {
  const port = await freePort();
  const read = metricsReader(() => [`http://127.0.0.1:${port}/metrics`]);
  const none = await read();
  assert.equal(none, null);
  assert.equal(windowOf(none, { processes: {} }, { u0: null, u1: null, wallMs: 0, processesPerInstance: 1 }), null);
});

const text = (worker, requests, active, idle) => [
  '# HELP http_request_duration_seconds x',
  `http_request_duration_seconds_count{route="/",method="GET",status_code="200",worker="${worker}"} ${requests}`,
  `nodejs_eventloop_time_seconds_total{state="active",worker="${worker}"} ${active}`,
  `nodejs_eventloop_time_seconds_total{state="idle",worker="${worker}"} ${idle}`,
].join('\n');

test('spread over the processes and the busiest loop, against the cgroups\' spread of CPU', async () => {
  const snapshot = (rows) => ({
    processes: Object.fromEntries(rows.map(([w, requests, active, idle]) => [`u|${w}`, { requests, active, idle }])),
  });
  const m0 = snapshot([['1', 0, 0, 0], ['2', 0, 0, 0], ['primary', 0, 0, 0]]);
  const m1 = snapshot([['1', 300, 0.95, 0.05], ['2', 100, 0.4, 0.6], ['primary', 0, 0.01, 0.99]]);
  const u0 = { cpuNsByInstance: { a: 0, b: 0 } };
  const u1 = { cpuNsByInstance: { a: 900e6, b: 300e6 } };
  const w = windowOf(m0, m1, { u0, u1, wallMs: 1000, processesPerInstance: 1 });
  assert.equal(w.cpuSpread, 1.5);
  assert.equal(w.busiestCpu, 0.9);
  const round = combineWindows([w, null, w]);
  assert.deepEqual(round.byProcess.find((p) => p.key === 'u|1'), { key: 'u|1', requests: 600, active: 1.9, idle: 0.1 });
  const m = summariseAppMetrics([{ appMetrics: round }, { appMetrics: round }]);
  assert.equal(m.processes, 2, 'the primary serves no request');
  assert.equal(m.spread.median, 1.5, '300 against a mean of 200');
  assert.equal(m.busiestLoop.median, 0.95);
  assert.deepEqual(disagreements(m), [], 'requests and CPU spread alike; the loop as busy as its CPU');
  const skewed = { ...m, cpuSpread: { median: 1, min: 1, max: 1 }, busiestCpu: { median: 0.5, min: 0.5, max: 0.5 } };
  assert.deepEqual(disagreements(skewed).map((d) => d.what.split(':')[0]), ['spread', 'busiest']);
  // Half a CPU used by an instance whose quota is half a CPU: all it may use, as busy as its loop.
  assert.deepEqual(disagreements(skewed, 0.5).map((d) => d.what.split(':')[0]), ['spread']);
  assert.equal(summariseAppMetrics([{}, { appMetrics: null }]), null);

  const doc = { cells: [{ id: 'pi.b2.cluster', status: 'ok', appMetrics: skewed }, { id: 'x', status: 'ok' }] };
  const lines = appMetricsSection(doc, 'report');
  assert.match(lines.join('\n'), /\| `pi\.b2\.cluster` \| 2 \| 1\.50 \(1\.50–1\.50\) \| 1\.00 \(1\.00–1\.00\) \|/);
  assert.match(lines.join('\n'), /spread: requests \(metrics\) against CPU time \(cgroups\): 1\.50 against 1\.00/);
  assert.deepEqual(appMetricsSection(doc, 'guide'), []);
  assert.deepEqual(appMetricsSection({ cells: [{ id: 'x', status: 'ok' }] }, 'report'), []);
  const onDocker = { protocol: { engine: { name: 'docker' } }, cells: [{ id: 'x', status: 'ok' }] };
  assert.match(appMetricsSection(onDocker, 'report').join('\n'), /No cell has a reading: .*ENGINE=processes/);
});

test('a text\'s requests and loop time, per process (the worker label)', () => {
  assert.deepEqual(processesOf('u', `${text('7', 10, 1.5, 2)}\n${text('8', 4, 0.5, 3)}\ngarbage line`), {
    'u|7': { requests: 10, active: 1.5, idle: 2 },
    'u|8': { requests: 4, active: 0.5, idle: 3 },
  });
  assert.deepEqual(processesOf('v', 'http_server_request_duration_seconds_count{http_route="/api"} 3'), {
    'v|': { requests: 3, active: null, idle: null },
  });
});
