// The server as a real process on a free loopback port: endpoints, the bad-input matrix, and
// requests that Node's parser itself rejects.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, runToExit } from './helpers/child.js';
import { request, rawExchange, statusOf, jsonBodyOf } from './helpers/http.js';
import { cases } from './helpers/bad-input.js';

test('the endpoints answer JSON with the instance and per-process counters', async (t) => {
  const server = await startServer(t, { INSTANCE_NAME: 'node-replicas-app-7' });
  const pid = server.child.pid;

  const first = await request(`${server.url}/`);
  const second = await request(`${server.url}/`);
  assert.equal(first.status, 200);
  assert.match(first.headers['content-type'], /^application\/json/);
  assert.deepEqual(first.json, { instance: 'node-replicas-app-7', pid, hits: 1, delayMs: 0 });
  assert.deepEqual(second.json, { instance: 'node-replicas-app-7', pid, hits: 2, delayMs: 0 });

  const pi = await request(`${server.url}/pi?samples=100000`);
  assert.equal(pi.status, 200);
  assert.equal(pi.json.samples, 100_000);
  assert.ok(Math.abs(pi.json.pi - Math.PI) < 0.1, `pi = ${pi.json.pi}`);
  assert.equal((await request(`${server.url}/pi`)).json.samples, 1_000_000, 'default samples');

  assert.deepEqual((await request(`${server.url}/delay?ms=0`)).json, { instance: 'node-replicas-app-7', pid, ms: 0 });
  assert.deepEqual((await request(`${server.url}/health`)).json, { status: 'ok', instance: 'node-replicas-app-7', pid });
  assert.deepEqual((await request(`${server.url}/ready`)).json, { ready: true, instance: 'node-replicas-app-7', pid });

  // Keep-alive outlives nginx's upstream keepalive_timeout (10 s): nginx closes idle connections first.
  const keptAlive = await fetch(`${server.url}/health`);
  await keptAlive.text();
  assert.equal(keptAlive.headers.get('keep-alive'), 'timeout=65');

  const head = await request(`${server.url}/health`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  // /health and /ready don't count as hits.
  assert.equal((await request(`${server.url}/`)).json.hits, 3);
});

test('/delay waits without blocking the event loop', async (t) => {
  const server = await startServer(t);
  const started = Date.now();
  let delayDone = false;
  const slow = request(`${server.url}/delay?ms=1500`).then((r) => { delayDone = true; return r; });
  // Other requests are answered while the delayed one waits.
  for (let i = 0; i < 5; i++) {
    assert.equal((await request(`${server.url}/health`)).status, 200);
  }
  assert.equal(delayDone, false, 'the /delay answer came before requests sent after it');
  const answer = await slow;
  assert.equal(answer.status, 200);
  assert.equal(answer.json.ms, 1500);
  // A lower bound (the answer can't come early), not a speed check.
  assert.ok(Date.now() - started >= 1490);
});

test('the per-instance delay from the environment applies to GET / only', async (t) => {
  const server = await startServer(t, { INSTANCE_NAME: 'x-app-2', SLOW_INSTANCE: '2', SLOW_DELAY_MS: '1000' });
  assert.match(server.output(), /GET \/ delay 1000 ms/);
  let homeDone = false;
  const home = request(`${server.url}/`).then((r) => { homeDone = true; return r; });
  assert.equal((await request(`${server.url}/delay?ms=0`)).status, 200);
  assert.equal(homeDone, false, 'GET / answered before a later undelayed request');
  assert.equal((await home).status, 200);
});

test('bad input: the matrix answers its 4xx with a JSON error, and the server lives on', async (t) => {
  const server = await startServer(t);
  for (const c of cases) {
    const res = await request(`${server.url}${c.path}`, { method: c.method, headers: c.headers, body: c.body });
    assert.equal(res.status, c.status, `${c.name}: ${res.status} ${res.text}`);
    assert.match(res.headers['content-type'], /^application\/json/, c.name);
    assert.equal(typeof res.json?.error, 'string', `${c.name}: ${res.text}`);
    if (c.status === 405) assert.equal(res.headers.allow, 'GET, HEAD', c.name);
  }
  assert.equal((await request(`${server.url}/health`)).status, 200);
  assert.equal(server.child.exitCode, null);
});

test('a body announced above the limit is refused unread: 413 at once and the connection closed', async (t) => {
  const server = await startServer(t);
  // Announce 100 MB but send only 64 KB: the answer must come without waiting for the rest.
  const announced = `GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n${'x'.repeat(65_536)}`;
  const answer = await rawExchange(server.port, announced);
  assert.equal(statusOf(answer), 413, answer);
  assert.match(answer, /\r\nConnection: close\r\n/i);
  assert.equal(typeof jsonBodyOf(answer).error, 'string');

  // Expect: 100-continue gets the refusal instead of an invitation to send the body.
  const expect = 'GET /pi HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\nExpect: 100-continue\r\n\r\n';
  const answer2 = await rawExchange(server.port, expect);
  assert.equal(statusOf(answer2), 413, answer2);
  assert.doesNotMatch(answer2, /100 Continue/);
});

test('a chunked body is read only up to the limit, then refused and the connection closed', async (t) => {
  const server = await startServer(t, { BODY_DISCARD_MAX_BYTES: '1000' });
  // A 64 kB chunk announced, 4 kB sent, never finished: the server must not wait for the rest.
  const chunked = `POST /pi HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10000\r\n${'y'.repeat(4096)}`;
  const answer = await rawExchange(server.port, chunked);
  assert.equal(statusOf(answer), 405, answer);
  assert.match(answer, /\r\nConnection: close\r\n/i);

  // A client that gives up half-way through its body doesn't hurt the server.
  const quitter = net.connect({ host: '127.0.0.1', port: server.port });
  await once(quitter, 'connect');
  quitter.write(`GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n${'q'.repeat(300)}`);
  await sleep(50);
  quitter.destroy();
  assert.equal((await request(`${server.url}/health`)).status, 200);
  assert.equal(server.child.exitCode, null);
});

test('a small body is read and dropped, so the connection stays usable (as nginx needs)', async (t) => {
  const server = await startServer(t);
  const body = 'z'.repeat(200_000);
  const answer = await rawExchange(server.port,
    `GET / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    + 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  assert.deepEqual(statuses, [413, 200], answer);
});

test('requests the HTTP parser rejects get a JSON 4xx too', async (t) => {
  const server = await startServer(t);
  const garbage = await rawExchange(server.port, 'HELLO THERE\r\n\r\n');
  assert.equal(statusOf(garbage), 400, garbage);
  assert.equal(typeof jsonBodyOf(garbage).error, 'string');

  const bigHeader = await rawExchange(server.port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.equal(statusOf(bigHeader), 431, bigHeader);
  assert.equal(typeof jsonBodyOf(bigHeader).error, 'string');

  // Absolute-form targets are for proxies; this server only serves paths.
  const target = await rawExchange(server.port, 'GET http://elsewhere/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(statusOf(target), 400, target);

  assert.equal((await request(`${server.url}/health`)).status, 200);
  assert.equal(server.child.exitCode, null);
});

test('a bad environment stops start-up with a one-line message and exit code 2', async () => {
  const { code, output } = await runToExit({ PORT: 'eighty' });
  assert.equal(code, 2);
  assert.match(output, /configuration error: PORT must be a whole number/);
  assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
});

test('POST /echo answers 201 with the parsed JSON body; bad bodies get their 4xx, and the server lives on', async (t) => {
  const server = await startServer(t, { INSTANCE_NAME: 'node-replicas-app-3' });
  const json = { 'Content-Type': 'application/json' };
  const ok = await request(`${server.url}/echo`, { method: 'POST', headers: json, body: JSON.stringify({ order: 42, items: ['a', 'b'], note: 'café ☕' }) });
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual(ok.json, { instance: 'node-replicas-app-3', pid: server.child.pid, echo: { order: 42, items: ['a', 'b'], note: 'café ☕' } });
  const charset = await request(`${server.url}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '[1,2]' });
  assert.deepEqual([charset.status, charset.json.echo], [201, [1, 2]]);
  // Expect: 100-continue (curl, bodies over 1 KiB) is invited and answered.
  const big = JSON.stringify({ pad: 'p'.repeat(5000) });
  const continued = await rawExchange(server.port, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${big}`);
  assert.match(continued, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /, continued.slice(0, 200));

  /** @type {[string, { body: string, headers?: Record<string, string>, path?: string }, number][]} */
  const cases = [
    ['malformed JSON', { headers: json, body: '{"order":' }, 400],
    ['empty body', { headers: json, body: '' }, 400],
    ['text/plain', { headers: { 'Content-Type': 'text/plain' }, body: '{"a":1}' }, 415],
    ['no content type', { body: '{"a":1}' }, 415],
    ['a query parameter', { headers: json, body: '{}', path: '/echo?x=1' }, 400],
    ['over 64 KiB', { headers: json, body: JSON.stringify({ pad: 'x'.repeat(70_000) }) }, 413],
  ];
  for (const [name, opts, status] of cases) {
    const res = await request(`${server.url}${opts.path ?? '/echo'}`, { method: 'POST', ...opts });
    assert.equal(res.status, status, `${name}: ${res.status} ${res.text}`);
    assert.equal(typeof res.json?.error, 'string', `${name}: ${res.text}`);
  }
  const get = await request(`${server.url}/echo`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.allow, 'POST');
  assert.equal((await request(`${server.url}/health`)).status, 200);
  assert.equal(server.child.exitCode, null);
});
