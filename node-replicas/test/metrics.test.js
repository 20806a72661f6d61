// /metrics on a port of its own: every request counted by route and status, the event loop's
// utilization under CPU-bound work, and what the metrics server answers to anything else.
import test from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './helpers/child.js';
import { request } from './helpers/http.js';

// The value of one series of the Prometheus text, matched by name and a subset of its labels.
function valueOf(text, name, labels = {}) {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)))
    ?? text.split('\n').find((l) => want.length === 0 && l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function startWithMetrics(t, env = {}) {
  const server = await startServer(t, { METRICS_PORT: '0', ...env });
  let port;
  for (let i = 0; i < 100 && !port; i += 1) {
    port = /metrics on [^\s]+:(\d+)\/metrics/.exec(server.output())?.[1];
    if (!port) await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(port, `the server said where its metrics are: ${server.output()}`);
  const scrape = async () => {
    const res = await request(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
    return res.text;
  };
  return { ...server, metricsUrl: `http://127.0.0.1:${port}/metrics`, scrape };
}

test('every request is counted by route and status, on the metrics port only', async (t) => {
  const server = await startWithMetrics(t);
  for (let i = 0; i < 7; i += 1) assert.equal((await request(`${server.url}/`)).status, 200);
  for (let i = 0; i < 3; i += 1) assert.equal((await request(`${server.url}/nope`)).status, 404);
  assert.equal((await request(`${server.url}/pi?samples=oops`)).status, 400);
  // Not on the app's port: nginx proxies that one.
  assert.equal((await request(`${server.url}/metrics`)).status, 404);
  const text = await server.scrape();
  const count = (labels) => valueOf(text, 'http_request_duration_seconds_count', labels);
  assert.equal(count({ route: '/', method: 'GET', status_code: '200' }), 7);
  // Unknown paths share one label value, whatever a client sends: the series stay few.
  assert.equal(count({ route: 'other', status_code: '404' }), 4);
  assert.equal(count({ route: '/pi', status_code: '400' }), 1);
  assert.equal(valueOf(text, 'http_request_duration_seconds_bucket', { route: '/', status_code: '200', le: '+Inf' }), 7);
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
    assert.ok(Number.isFinite(valueOf(text, name)), `${name} is exported`);
  }
});

test('a CPU-bound load drives the event loop\'s utilization near 1; an idle one leaves it low', async (t) => {
  const server = await startWithMetrics(t);
  const active = (text) => valueOf(text, 'nodejs_eventloop_time_seconds_total', { state: 'active' });
  const idle = (text) => valueOf(text, 'nodejs_eventloop_time_seconds_total', { state: 'idle' });
  const utilization = (a, b) => (active(b) - active(a)) / (active(b) - active(a) + idle(b) - idle(a));

  const quiet = await server.scrape();
  await new Promise((r) => setTimeout(r, 500));
  const afterQuiet = await server.scrape();
  assert.ok(utilization(quiet, afterQuiet) < 0.5, `idle: ${utilization(quiet, afterQuiet)}`);

  // Four clients back to back on /pi for 1.5 s: the loop always has a computation to run.
  const until = Date.now() + 1500;
  const client = async () => { while (Date.now() < until) await request(`${server.url}/pi?samples=2000000`); };
  const busyFrom = await server.scrape();
  await Promise.all([client(), client(), client(), client()]);
  const busyTo = await server.scrape();
  assert.ok(utilization(busyFrom, busyTo) > 0.9, `busy: ${utilization(busyFrom, busyTo)}`);
});

test('the metrics server answers only GET /metrics', async (t) => {
  const server = await startWithMetrics(t);
  const base = server.metricsUrl.replace(/\/metrics$/, '');
  const other = await request(`${base}/`);
  assert.equal(other.status, 404);
  assert.match(other.headers['content-type'], /^application\/json/);
  const post = await request(server.metricsUrl, { method: 'POST', body: '{}' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.equal((await request(`${server.metricsUrl}?name[]=x`)).status, 200, 'a query string changes nothing');
});

test('without METRICS_PORT no metrics server starts', async (t) => {
  const server = await startServer(t);
  assert.equal((await request(`${server.url}/`)).status, 200);
  assert.doesNotMatch(server.output(), /metrics on/);
});
