// The Express app over real HTTP, with the database unreachable: everything that must work
// without MongoDB, and the input errors that are answered before MongoDB is asked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createApp } from '../src/app.js';
import { request } from './helpers.js';

let server;
let port;
const state = { draining: false };

before(async () => {
  server = http.createServer(createApp({ bodyLimit: '1kb', instance: 'test-instance', state }));
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  ({ port } = /** @type {import('node:net').AddressInfo} */ (server.address()));
});
after(() => new Promise((resolve) => { server.close(resolve); }));

// No response may leak a stack trace or file path.
const assertNoLeak = (res) => assert.doesNotMatch(res.text, /at .*\.js:\d+|node_modules|Error:/, res.text);

test('GET / welcomes and names the instance', async () => {
  const res = await request(port, '/');
  assert.equal(res.status, 200);
  assert.equal(res.body.instance, 'test-instance');
  assert.equal(res.body.pid, process.pid);
  assert.equal(res.headers['x-powered-by'], undefined);
});

test('/health is 200 without a database; /ready is 503 and says why', async () => {
  assert.equal((await request(port, '/health')).status, 200);
  const ready = await request(port, '/ready');
  assert.equal(ready.status, 503);
  assert.equal(ready.body.status, 'not ready');
  assert.equal(ready.body.reason, 'database unavailable');
  assert.notEqual(ready.body.mongodb, 'connected');
});

test('/ready says "draining" once shutdown began', async () => {
  state.draining = true;
  try {
    const res = await request(port, '/ready');
    assert.deepEqual([res.status, res.body.reason], [503, 'draining']);
  } finally {
    state.draining = false;
  }
});

test('/pi estimates pi and bounds its input', async () => {
  const ok = await request(port, '/pi?samples=200000');
  assert.equal(ok.status, 200);
  assert.equal(ok.body.samples, 200_000);
  assert.ok(Math.abs(ok.body.pi - Math.PI) < 0.05, String(ok.body.pi));
  for (const q of ['samples=0', 'samples=abc', 'samples=10000001', 'samples=1&samples=2']) {
    const res = await request(port, `/pi?${q}`);
    assert.equal(res.status, 400, q);
    assert.ok(res.body.error, q);
  }
});

test('/delay answers after the wait and bounds its input', async () => {
  const ok = await request(port, '/delay?ms=5');
  assert.deepEqual([ok.status, ok.body.ms, ok.body.instance], [200, 5, 'test-instance']);
  assert.equal((await request(port, '/delay?ms=-1')).status, 400);
  assert.equal((await request(port, '/delay?ms=5001')).status, 400, 'above DELAY_MAX_MS (5000 by default)');
});

test('malformed JSON → 400, body over the limit → 413, both JSON without internals', async () => {
  const bad = await request(port, '/api/items', { method: 'POST', body: '{"name": ' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'malformed JSON body');
  assertNoLeak(bad);

  const big = await request(port, '/api/items', { method: 'POST', body: { name: 'x'.repeat(2_000) } });
  assert.equal(big.status, 413);
  assertNoLeak(big);
});

test('the API answers 503 at once while the database is away (no hanging)', async () => {
  for (const [method, path, body] of /** @type {[string, string, object?][]} */ ([['GET', '/api/items'], ['GET', '/api/items/0123456789abcdef01234567'], ['POST', '/api/items', { name: 'x' }]])) {
    const res = await request(port, path, { method, body, timeoutMs: 1_500 });
    assert.equal(res.status, 503, `${method} ${path}`);
    assert.equal(res.body.error, 'database unavailable');
    assert.equal(res.headers['retry-after'], '2');
  }
});

test('unknown routes → JSON 404', async () => {
  const res = await request(port, '/nope');
  assert.equal(res.status, 404);
  assert.match(res.body.error, /no route/);
});

test('estimatePi does the same work as node-replicas for a seed', async () => {
  const { estimatePi } = await import('../src/routes/compute.js');
  // node-replicas' estimatePi(100000, 12345): the same xorshift32 stream (and dotnet-api's).
  assert.equal(estimatePi(100_000, 12345), 3.14632);
  assert.notEqual(estimatePi(100_000, 12346), 3.14632);
});

test('POST /echo answers 201 with the parsed JSON body; bad bodies get their 4xx', async () => {
  const ok = await request(port, '/echo', { method: 'POST', body: { order: 42, items: ['a', 'b'], note: 'café ☕' } });
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual(ok.body, { instance: 'test-instance', pid: process.pid, worker: null, echo: { order: 42, items: ['a', 'b'], note: 'café ☕' } });
  /** @type {[string, { body: string, headers?: Record<string, string>, path?: string }, number][]} */
  const cases = [
    ['malformed JSON', { body: '{"order":' }, 400],
    ['text/plain', { body: '{"a":1}', headers: { 'content-type': 'text/plain' } }, 415],
    ['no content type', { body: '{"a":1}', headers: { 'content-type': '' } }, 415],
    ['a query parameter', { body: '{}', path: '/echo?x=1' }, 400],
    ['above the body limit (1kb here)', { body: JSON.stringify({ pad: 'x'.repeat(2000) }) }, 413],
  ];
  for (const [name, opts, status] of cases) {
    const res = await request(port, opts.path ?? '/echo', { method: 'POST', ...opts });
    assert.equal(res.status, status, `${name}: ${res.status} ${res.text}`);
    assert.equal(typeof res.body?.error, 'string', `${name}: ${res.text}`);
    assertNoLeak(res);
  }
  const get = await request(port, '/echo');
  assert.deepEqual([get.status, get.headers.allow], [405, 'POST']);
});

test('GET /api/database answers 503 JSON while the database is away (the bench records its version when there)', async () => {
  const res = await request(port, '/api/database');
  assert.equal(res.status, 503);
  assert.match(res.body.error ?? res.body.title ?? res.text, /database does not answer/);
  assertNoLeak(res);
});
