// The instance's one /metrics under each process manager (cluster, reuseport, PM2, one process):
// every serving process's requests under its own `worker` label, adding up to what was sent; a
// worker killed and respawned while it is scraped never fails a scrape; and what the metrics port
// answers to anything but GET /metrics. Real processes on 127.0.0.1, without MongoDB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, request, sleep, startPrimary, startScript, waitFor, waitForChildren } from './helpers.js';

// Each test's processes go when it ends, whatever it asserted.
let current;
const cleanUp = (t) => t.after(async () => { await current?.cleanup(); current = undefined; });

// { name{labels}: value } of every sample line of a Prometheus text.
function samples(text) {
  return Object.fromEntries(text.split('\n').filter((l) => l && !l.startsWith('#'))
    .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
}
const label = (key, name) => new RegExp(`${name}="([^"]*)"`).exec(key)?.[1];

async function scrape(port) {
  const res = await request(port, '/metrics');
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  return samples(res.text);
}

// GET / answered 200 by worker pid, from the instance's metrics.
function homeCountsByWorker(metrics) {
  const out = {};
  for (const [key, value] of Object.entries(metrics)) {
    if (key.startsWith('http_request_duration_seconds_count{') && label(key, 'route') === '/' && label(key, 'status_code') === '200') {
      out[label(key, 'worker')] = (out[label(key, 'worker')] ?? 0) + value;
    }
  }
  return out;
}

// Sends n GET / on fresh connections; returns how many each pid answered.
async function sendHome(port, n) {
  const byPid = {};
  for (let i = 0; i < n; i += 1) {
    const res = await request(port, '/');
    assert.equal(res.status, 200);
    byPid[res.body.pid] = (byPid[res.body.pid] ?? 0) + 1;
  }
  return byPid;
}

async function assertCountsMatch(handle, metricsPort, workers) {
  const pids = await waitForChildren(handle.child.pid, workers);
  const sent = await sendHome(handle.port, 40);
  const metrics = await scrape(metricsPort);
  const counted = homeCountsByWorker(metrics);
  assert.deepEqual(counted, Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, v])), 'each worker counted what it answered');
  assert.equal(Object.values(counted).reduce((a, b) => a + b, 0), 40);
  for (const pid of Object.keys(counted)) assert.ok(pids.includes(Number(pid)), `worker ${pid} is a child of the instance`);
  assert.equal(metrics['nodejs_cluster_workers{state="answered"}'], workers);
  assert.equal(metrics['nodejs_cluster_workers{state="missing"}'], 0);
  for (const pid of pids) {
    assert.ok(Number.isFinite(metrics[`nodejs_eventloop_time_seconds_total{state="active",worker="${pid}"}`]), `worker ${pid}'s event loop`);
    assert.ok(Number.isFinite(metrics[`process_resident_memory_bytes{worker="${pid}"}`]), `worker ${pid}'s memory`);
  }
  assert.ok(Number.isFinite(metrics['process_cpu_seconds_total{worker="primary"}']), 'the process serving /metrics');
}

test('cluster: one /metrics lists every worker, their GET / counts add up to what was sent', async (t) => {
  cleanUp(t);
  const metricsPort = await freePort();
  current = await startPrimary({ WORKERS: '2', METRICS_PORT: String(metricsPort) });
  await assertCountsMatch(current, metricsPort, 2);
  // Not on the app's port, which nginx proxies.
  assert.equal((await request(current.port, '/metrics')).status, 404);
});

test('reuseport: the launcher serves every process\'s metrics', async (t) => {
  cleanUp(t);
  const metricsPort = await freePort();
  current = await startScript({ PROCESS_MANAGER: 'reuseport', WORKERS: '2', METRICS_PORT: String(metricsPort) }, { ready: 'launcher ready' });
  await assertCountsMatch(current, metricsPort, 2);
});

test('pm2: PM2\'s own process serves every instance\'s metrics', async (t) => {
  cleanUp(t);
  // PM2 keeps its sockets and pid files in PM2_HOME: a folder of this test's.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-pm2-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const metricsPort = await freePort();
  current = await startScript({ PROCESS_MANAGER: 'pm2', PM2_HOME: home, HOME: home, WORKERS: '2', METRICS_PORT: String(metricsPort) });
  await current.waitLog('worker listening', 2, 30_000);
  await assertCountsMatch(current, metricsPort, 2);
});

test('one process (CLUSTERING_ENABLED=false) serves its own metrics', async (t) => {
  cleanUp(t);
  const metricsPort = await freePort();
  current = await startPrimary({ CLUSTERING_ENABLED: 'false', METRICS_PORT: String(metricsPort) }, { waitReady: false });
  await current.waitLog('metrics listening');
  await current.waitLog('worker listening');
  await sendHome(current.port, 5);
  const counted = homeCountsByWorker(await scrape(metricsPort));
  assert.deepEqual(counted, { [String(current.child.pid)]: 5 });
});

test('a worker killed and respawned while scraped: every scrape answers, the new worker joins', async (t) => {
  cleanUp(t);
  const metricsPort = await freePort();
  current = await startPrimary({ WORKERS: '2', METRICS_PORT: String(metricsPort) });
  const [victim] = await waitForChildren(current.child.pid, 2);
  let scraping = true;
  const statuses = [];
  let whileDown = 0;
  let down = false;
  const scraper = (async () => {
    while (scraping) {
      const during = down;
      statuses.push((await request(metricsPort, '/metrics')).status);
      if (during && down) whileDown += 1;
      await sleep(20);
    }
  })();
  await sleep(200);
  down = true;
  process.kill(victim, 'SIGKILL');
  const pids = await waitFor(() => {
    const now = current.find('worker forked').map((l) => l.workerPid);
    return now.length >= 3 && now;
  }, { what: 'a respawned worker' });
  const respawned = pids.at(-1);
  await waitFor(async () => {
    const m = await scrape(metricsPort);
    return m['nodejs_cluster_workers{state="answered"}'] === 2 && Number.isFinite(m[`process_cpu_seconds_total{worker="${respawned}"}`]);
  }, { what: 'the respawned worker in /metrics' });
  down = false;
  scraping = false;
  await scraper;
  // Scraped from the kill to the new worker's first series (however few a busy machine allows).
  assert.ok(whileDown >= 1, `${statuses.length} scrapes, ${whileDown} between the kill and the new worker's series`);
  assert.deepEqual([...new Set(statuses)], [200], 'no scrape failed');
  const m = await scrape(metricsPort);
  assert.equal(m[`process_cpu_seconds_total{worker="${victim}"}`], undefined, 'the dead worker\'s series are gone');
});

test('the metrics port answers only GET /metrics; METRICS_PORT bad: one line, exit 2', async (t) => {
  cleanUp(t);
  const metricsPort = await freePort();
  current = await startPrimary({ WORKERS: '1', METRICS_PORT: String(metricsPort) });
  await current.waitLog('metrics listening');
  const other = await request(metricsPort, '/');
  assert.equal(other.status, 404);
  assert.match(other.headers['content-type'], /^application\/json/);
  const post = await request(metricsPort, '/metrics', { method: 'POST', body: {} });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  await current.cleanup();
  current = await startPrimary({ METRICS_PORT: 'ninety' }, { waitReady: false });
  const { code } = await current.exited;
  assert.equal(code, 2);
  assert.match(current.stderr.trim(), /^METRICS_PORT must be an integer in \[0, 65535\], got "ninety"$/);
});
