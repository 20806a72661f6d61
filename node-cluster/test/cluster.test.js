// The cluster primary as a real child process: respawn, crash backoff, rolling restart under
// load, graceful drain. None of this needs MongoDB: /, /pi and /delay work without it.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childPids, exitWithin, isAlive, request, startPrimary, waitFor } from './helpers.js';

let current;
afterEach(async () => {
  await current?.cleanup();
  current = undefined;
});

test('two workers serve; kill -9 of one → it is replaced and the service keeps answering', async () => {
  current = await startPrimary({ WORKERS: '2' });
  const p = current;
  assert.equal(childPids(p.child.pid).length, 2);

  const [victim] = p.workerPids();
  process.kill(victim, 'SIGKILL');
  const exits = await p.waitLog('worker exited');
  assert.equal(exits[0].planned, false, 'a kill -9 is a crash, not a planned exit');
  assert.equal(exits[0].signal, 'SIGKILL');

  // The replacement is forked and listens; the primary keeps two workers.
  await p.waitLog('worker forked', 3);
  await p.waitLog('worker listening', 3);
  const now = childPids(p.child.pid);
  assert.equal(now.length, 2);
  assert.ok(!now.includes(victim));

  for (let i = 0; i < 20; i += 1) {
    const res = await request(p.port, '/');
    assert.equal(res.status, 200);
    assert.notEqual(res.body.pid, victim);
  }
});

test('a worker that crashes at start-up is respawned with growing delays, then given up on', async () => {
  current = await startPrimary({
    WORKERS: '1', CRASH_ON_START: '1', RESPAWN_INITIAL_DELAY_MS: '20', RESPAWN_MAX_CRASHES: '4',
  }, { waitReady: false });
  const p = current;
  // A bound on a hang only: five worker start-ups take 15 s and more on a busy 2-core machine.
  const { code } = await exitWithin(p, 60_000);
  assert.equal(code, 1, 'the primary exits non-zero once no worker can start');

  const delays = p.find('respawning worker').map((l) => l.delayMs);
  assert.deepEqual(delays, [20, 30, 45, 68], 'exponential backoff ×1.5');
  assert.equal(p.find('worker forked').length, 5, 'first fork + 4 respawns: no fork storm');
  assert.equal(p.find('crash loop: not respawning').length, 1);
  assert.match(p.stderr, /CRASH_ON_START/);
});

test('SIGHUP: rolling restart under steady load, zero failed requests', async () => {
  current = await startPrimary({ WORKERS: '2' });
  const p = current;
  const before = new Set(childPids(p.child.pid));

  // Four keep-alive clients loop on /delay until told to stop (bounded by count and time).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const results = { ok: 0, failed: [], pids: new Set() };
  let stop = false;
  const deadline = Date.now() + 30_000;
  const client = async () => {
    for (let i = 0; i < 5_000 && !stop && Date.now() < deadline; i += 1) {
      try {
        const res = await request(p.port, '/delay?ms=10', { agent });
        if (res.status === 200) { results.ok += 1; results.pids.add(res.body.pid); } else results.failed.push(res.status);
      } catch (err) {
        results.failed.push(err.code ?? err.message);
      }
    }
  };
  const clients = Array.from({ length: 4 }, client);
  await waitFor(() => results.ok >= 20, { what: 'load to start' });

  process.kill(p.child.pid, 'SIGHUP');
  await p.waitLog('rolling restart done', 1, 20_000);
  const okAtRestartEnd = results.ok;
  await waitFor(() => results.ok >= okAtRestartEnd + 20, { what: 'load after the restart' });
  stop = true;
  await Promise.all(clients);
  agent.destroy();

  assert.deepEqual(results.failed, [], 'no request failed during the rolling restart');
  const after = new Set(childPids(p.child.pid));
  assert.equal(after.size, 2);
  for (const pid of before) assert.ok(!after.has(pid), `old worker ${pid} was replaced`);

  // Order: each new worker listened before an old one started draining.
  const forked = p.find('worker forked').slice(2).map((l) => l.workerPid);
  const seq = p.logs.filter((l) => (l.msg === 'worker listening' && forked.includes(l.pid)) || l.msg === 'worker draining');
  assert.deepEqual(seq.map((l) => l.msg), ['worker listening', 'worker draining', 'worker listening', 'worker draining']);
  assert.ok(p.find('worker exited').every((l) => l.planned), 'replaced workers exited as planned, not as crashes');
  assert.equal(p.find('respawning worker').length, 0);
});

test('SIGHUP onto a release that fails at start-up: the restart is aborted, the old workers keep serving', async () => {
  const flag = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-flag-')), 'broken');
  current = await startPrimary({ WORKERS: '2', CRASH_ON_START_FILE: flag });
  const p = current;
  const before = childPids(p.child.pid).sort();
  fs.writeFileSync(flag, 'new workers crash at boot');
  try {
    process.kill(p.child.pid, 'SIGHUP');
    await p.waitLog('rolling restart aborted: new worker failed');
    assert.deepEqual(childPids(p.child.pid).sort(), before, 'the old workers were not touched');
    assert.equal(p.find('worker draining').length, 0);
    assert.equal(p.find('respawning worker').length, 0, 'the failed replacement is not respawned');
    assert.equal((await request(p.port, '/')).status, 200);
  } finally {
    fs.rmSync(path.dirname(flag), { recursive: true, force: true });
  }
  // Fixed release: the next SIGHUP goes through.
  process.kill(p.child.pid, 'SIGHUP');
  await p.waitLog('rolling restart done', 1, 20_000);
  assert.equal(childPids(p.child.pid).filter((pid) => before.includes(pid)).length, 0);
});

test('SIGTERM: in-flight requests finish, then the primary exits 0', async () => {
  current = await startPrimary({ WORKERS: '2', DRAIN_TIMEOUT_MS: '10000' });
  const p = current;
  const pending = Array.from({ length: 4 }, () => request(p.port, '/delay?ms=1500', { timeoutMs: 10_000 })
    .then((res) => res, (err) => ({ error: err.code ?? err.message })));
  // Let the requests reach the workers before the signal.
  await sleep(300);
  process.kill(p.child.pid, 'SIGTERM');

  const responses = await Promise.all(pending);
  assert.deepEqual(responses.map((r) => r.status ?? r.error), [200, 200, 200, 200]);
  assert.ok(responses.every((r) => r.body.ms === 1500));
  const { code } = await exitWithin(p, 10_000);
  assert.equal(code, 0);
  assert.equal(p.find('worker drained').length, 2);
  assert.ok(p.find('worker exited').every((l) => l.planned && l.code === 0));
});

test('SIGTERM: a request longer than the drain timeout is cut off and the primary still exits', async () => {
  current = await startPrimary({ WORKERS: '1', DRAIN_TIMEOUT_MS: '300' });
  const p = current;
  const slow = request(p.port, '/delay?ms=5000', { timeoutMs: 15_000 }).then((r) => r.status, (err) => err.code ?? err.message);
  await sleep(300);
  process.kill(p.child.pid, 'SIGTERM');
  const { code } = await exitWithin(p, 10_000);
  assert.equal(code, 0);
  assert.notEqual(await slow, 200);
  const timeouts = p.find('worker drain timeout, exiting');
  assert.equal(timeouts.length, 1, 'the worker gave up on the request after DRAIN_TIMEOUT_MS');
  assert.notEqual(timeouts[0].pid, p.child.pid);
});

test('CLUSTERING_ENABLED=false serves from one process; while draining, answers say Connection: close', async () => {
  current = await startPrimary({ CLUSTERING_ENABLED: 'false', DRAIN_IDLE_GRACE_MS: '3000' }, { waitReady: false });
  const p = current;
  await p.waitLog('worker listening');
  const agent = new http.Agent({ keepAlive: true });
  const res = await request(p.port, '/', { agent });
  assert.equal(res.status, 200);
  assert.equal(res.body.pid, p.child.pid);
  assert.equal(res.body.worker, null);
  assert.equal(res.headers.connection, 'keep-alive');
  assert.equal(childPids(p.child.pid).length, 0);

  process.kill(p.child.pid, 'SIGTERM');
  await p.waitLog('worker draining');
  // Still accepting during the idle grace, but every answer now closes its connection.
  const during = await request(p.port, '/', { agent });
  assert.equal(during.status, 200);
  assert.equal(during.headers.connection, 'close');
  agent.destroy();
  assert.equal((await p.exited).code, 0);
});

// nginx opens a connection and writes its request at once; the worker may not have read it yet when
// its drain closes the server. Closed as idle then, a POST on it is a 502 nginx never resends.
test('draining, a connection accepted a moment before the server closes is answered, not closed as idle', async () => {
  current = await startPrimary({ WORKERS: '1', DRAIN_IDLE_GRACE_MS: '3000' });
  const p = current;
  process.kill(p.child.pid, 'SIGTERM');
  await p.waitLog('worker draining');
  const began = Date.now();
  await sleep(2000); // the worker closes its server at 3 s (the grace)
  const socket = net.connect(p.port, '127.0.0.1');
  let text = '';
  /** @type {NodeJS.ErrnoException | null} */
  let error = null;
  socket.setEncoding('utf8').on('data', (d) => { text += d; }).on('error', (err) => { error = err; });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((resolve) => socket.once('connect', resolve));
  await sleep(4000 - (Date.now() - began)); // after the close; quiet 2 s, under the grace
  socket.write('GET / HTTP/1.1\r\nHost: lab\r\n\r\n');
  await closed;
  assert.match(text, /^HTTP\/1\.1 200 /, `answered (${error?.code ?? 'no error'}, got ${JSON.stringify(text.slice(0, 40))})`);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.equal((await p.exited).code, 0);
});

// What a container stop needs (compose: DRAIN_DELAY_MS): the workers keep serving for the delay,
// /ready 503 and keep-alive on (nginx keeps reusing its connections, opening none), then stop
// accepting and exit 0.
test('SIGTERM with DRAIN_DELAY_MS: every worker serves on for the delay, not ready, then exits 0', async () => {
  current = await startPrimary({ WORKERS: '2', DRAIN_DELAY_MS: '2000', DRAIN_IDLE_GRACE_MS: '0' });
  const p = current;
  const sent = Date.now();
  process.kill(p.child.pid, 'SIGTERM');
  await p.waitLog('worker draining', 2);
  assert.deepEqual(p.find('worker draining').map((l) => l.delayMs), [2000, 2000]);
  const answers = [];
  // A keep-alive client, as nginx is (a client that asks for Connection: close could not tell).
  const agent = new http.Agent({ keepAlive: true });
  while (Date.now() - sent < 1500) {
    const [home, ready] = await Promise.all([request(p.port, '/', { agent }), request(p.port, '/ready', { agent })]);
    answers.push([home.status, home.headers.connection, ready.status, ready.body.reason]);
    await sleep(100);
  }
  agent.destroy();
  assert.ok(answers.length >= 5, `answered on during the delay (${answers.length} rounds)`);
  for (const a of answers) assert.deepEqual(a, [200, 'keep-alive', 503, 'draining']);
  assert.equal((await p.exited).code, 0);
  assert.ok(Date.now() - sent >= 2000, 'exited only after the delay');
  assert.equal(p.find('worker drained').length, 2);
});

// node-replicas' contract: DRAIN_TIMEOUT_MS is counted from the signal, the delay inside it. A
// request due to end 1.5 s after the bound (and 1.5 s before delay + bound) is cut at the bound.
test('SIGTERM with DRAIN_DELAY_MS: DRAIN_TIMEOUT_MS bounds the whole drain, the delay included', async () => {
  current = await startPrimary({ WORKERS: '1', DRAIN_DELAY_MS: '3000', DRAIN_TIMEOUT_MS: '4000' });
  const p = current;
  const slow = request(p.port, '/delay?ms=5800', { timeoutMs: 15_000 }).then((r) => r.status, (err) => err.code ?? err.message);
  await sleep(300);
  process.kill(p.child.pid, 'SIGTERM');
  const { code } = await exitWithin(p, 12_000);
  assert.equal(code, 0);
  assert.notEqual(await slow, 200, 'the request outlived the bound and was cut');
  assert.equal(p.find('worker drain timeout, exiting').length, 1);
  assert.equal(p.find('worker did not exit in time, killing').length, 0, 'the worker exited by itself');
});

// One process behind a DNS name (compose, CLUSTERING_ENABLED=false): after the delay it stops
// accepting and stays up refusing for the grace, so nginx marks it failed before its address goes.
test('one process with DRAIN_DELAY_MS: after the delay, connections are refused while it stays up; then exit 0', async () => {
  current = await startPrimary(
    { CLUSTERING_ENABLED: 'false', DRAIN_DELAY_MS: '400', DRAIN_IDLE_GRACE_MS: '1000' },
    { waitReady: false },
  );
  const p = current;
  await p.waitLog('worker listening');
  const refused = () => new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: p.port });
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', (/** @type {NodeJS.ErrnoException} */ err) => resolve(err.code === 'ECONNREFUSED'));
  });
  // A keep-alive connection left idle, as nginx keeps one: not closed when the listener is.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idle = await new Promise((resolve, reject) => {
    http.get(`http://127.0.0.1:${p.port}/health`, { agent }, (res) => {
      const { socket } = res;
      res.resume();
      res.on('end', () => resolve(socket));
    }).on('error', reject);
  });
  let idleClosed = false;
  idle.once('close', () => { idleClosed = true; });
  let exited = false;
  p.exited.then(() => { exited = true; });
  process.kill(p.child.pid, 'SIGTERM');
  let seen = null;
  for (let i = 0; i < 200 && !exited && seen === null; i++) {
    if (await refused()) seen = { exited, idleClosed };
    else await sleep(20);
  }
  agent.destroy();
  assert.deepEqual(seen, { exited: false, idleClosed: false }, 'refusing, still up, the idle connection still open');
  assert.equal((await p.exited).code, 0);
});

test('a bad WORKERS value stops the primary with a clear message', async () => {
  current = await startPrimary({ WORKERS: 'lots' }, { waitReady: false });
  const { code } = await current.exited;
  assert.equal(code, 2);
  assert.match(current.stderr, /WORKERS must be a positive integer/);
  assert.ok(!isAlive(current.child.pid));
});
