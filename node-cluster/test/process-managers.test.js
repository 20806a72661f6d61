// PROCESS_MANAGER through scripts/start.sh, as the image and the local runner start the app: the
// reuseport launcher and pm2-runtime as real processes on 127.0.0.1, without MongoDB.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childPids, exitWithin, pidAlive, request, sleep, startScript, waitFor, waitForChildren } from './helpers.js';

let current;
const tempDirs = [];
afterEach(async () => {
  await current?.cleanup();
  current = undefined;
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// PM2 keeps its sockets and pid files in PM2_HOME (~/.pm2 by default): a folder per test.
function startPm2(env) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-pm2-'));
  tempDirs.push(home);
  return startScript({ PROCESS_MANAGER: 'pm2', PM2_HOME: home, HOME: home, ...env });
}

// pm2-runtime with two instances, both listening; returns their pids.
async function startTwoPm2Instances() {
  current = await startPm2({ WORKERS: '2' });
  await current.waitLog('worker listening', 2, 30_000);
  return waitForChildren(current.child.pid, 2);
}

// Every route answers as the cluster's workers answer it, the database being away.
async function assertServesEveryRoute(port) {
  const home = await request(port, '/');
  assert.equal(home.status, 200);
  assert.equal(home.body.message, 'Welcome to the node-cluster API');
  assert.equal(typeof home.body.pid, 'number');
  const pi = await request(port, '/pi?samples=1000');
  assert.deepEqual([pi.status, pi.body.samples, typeof pi.body.pi], [200, 1000, 'number']);
  const delay = await request(port, '/delay?ms=20');
  assert.deepEqual([delay.status, delay.body.ms], [200, 20]);
  assert.equal((await request(port, '/health')).status, 200);
  const ready = await request(port, '/ready');
  assert.deepEqual([ready.status, ready.body.reason], [503, 'database unavailable']);
  const items = await request(port, '/api/items');
  assert.deepEqual([items.status, items.body.error], [503, 'database unavailable']);
  assert.equal((await request(port, '/pi?samples=lots')).status, 400);
}

// Pids that answered GET /, each request on a new connection, until `count` differ (bounded).
async function servingPids(port, count) {
  const pids = new Set();
  for (let i = 0; i < 100 && pids.size < count; i += 1) pids.add((await request(port, '/')).body.pid);
  return pids;
}

// The tests' own start helper: an instance not ready in time is stopped, every process of it, before
// the error is thrown (else its processes hold the test file's process open).
test('not ready in time: the launcher and its processes are stopped, then the error', async () => {
  const mark = `not-ready-${process.pid}-${Date.now()}`;
  const marked = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return fs.readFileSync(`/proc/${p}/environ`, 'utf8').includes(`TEST_MARK=${mark}`); } catch { return false; }
  });
  const started = startScript({ PROCESS_MANAGER: 'reuseport', WORKERS: '2', TEST_MARK: mark }, {
    ready: 'a line it never logs', readyMs: 3_000,
  });
  await waitFor(() => marked().length >= 2, { what: 'the launcher and a process of it running' });
  await assert.rejects(started, /a line it never logs/);
  assert.deepEqual(marked(), [], 'no process of it left');
});

test('a bad PROCESS_MANAGER: one line naming the allowed values, exit 2', async () => {
  current = await startScript({ PROCESS_MANAGER: 'forever' });
  const { code } = await exitWithin(current, 5_000);
  assert.equal(code, 2);
  const lines = current.stderr.trim().split('\n');
  assert.equal(lines.length, 1, current.stderr);
  assert.match(lines[0], /^PROCESS_MANAGER must be cluster, reuseport or pm2, got "forever"$/);
});

test('reuseport: two processes share the port without a primary, both serve every route', async () => {
  current = await startScript({ PROCESS_MANAGER: 'reuseport', WORKERS: '2' }, { ready: 'launcher ready' });
  const p = current;
  assert.equal(p.find('launcher starting')[0].workers, 2);
  const kids = childPids(p.child.pid);
  assert.equal(kids.length, 2);
  // Each process listens itself (no cluster worker id); the launcher's pid is no server.
  assert.deepEqual(new Set(p.find('worker listening').map((l) => l.worker)), new Set([null]));
  assert.deepEqual([...await servingPids(p.port, 2)].sort(), kids.sort(), 'the kernel spread connections over both');
  await assertServesEveryRoute(p.port);
});

test('reuseport: kill -9 of one process → respawned with backoff, the other keeps serving', async () => {
  current = await startScript({ PROCESS_MANAGER: 'reuseport', WORKERS: '2' }, { ready: 'launcher ready' });
  const p = current;
  const [victim, survivor] = childPids(p.child.pid);
  process.kill(victim, 'SIGKILL');
  const [exit] = await p.waitLog('worker exited');
  assert.deepEqual([exit.signal, exit.planned], ['SIGKILL', false]);
  const [respawn] = await p.waitLog('respawning worker');
  assert.equal(respawn.delayMs, 100, 'the first delay of src/backoff.js');
  await p.waitLog('worker listening', 3);
  const now = childPids(p.child.pid);
  assert.equal(now.length, 2);
  assert.ok(now.includes(survivor) && !now.includes(victim));
  assert.deepEqual([...await servingPids(p.port, 2)].sort(), now.sort());
});

test('reuseport: SIGHUP replaces the processes one at a time, each new one listening first', async () => {
  current = await startScript({ PROCESS_MANAGER: 'reuseport', WORKERS: '2' }, { ready: 'launcher ready' });
  const p = current;
  const before = childPids(p.child.pid);
  process.kill(p.child.pid, 'SIGHUP');
  await p.waitLog('rolling restart done', 1, 20_000);
  const after = childPids(p.child.pid);
  assert.equal(after.length, 2);
  assert.ok(after.every((pid) => !before.includes(pid)), 'both replaced');
  const seq = p.logs.filter((l) => (l.msg === 'worker listening' && after.includes(l.pid)) || l.msg === 'worker draining');
  assert.deepEqual(seq.map((l) => l.msg), ['worker listening', 'worker draining', 'worker listening', 'worker draining']);
  assert.equal(p.find('respawning worker').length, 0, 'planned exits are no crashes');
  assert.equal((await request(p.port, '/')).status, 200);
});

test('reuseport: SIGTERM lets in-flight requests finish, then everything exits 0', async () => {
  current = await startScript({ PROCESS_MANAGER: 'reuseport', WORKERS: '2' }, { ready: 'launcher ready' });
  const p = current;
  const kids = childPids(p.child.pid);
  const pending = Array.from({ length: 4 }, () => request(p.port, '/delay?ms=1500', { timeoutMs: 10_000 })
    .then((res) => res.status, (err) => err.code ?? err.message));
  await sleep(300);
  process.kill(p.child.pid, 'SIGTERM');
  assert.deepEqual(await Promise.all(pending), [200, 200, 200, 200]);
  const { code } = await exitWithin(p, 10_000);
  assert.equal(code, 0);
  await p.waitLog('worker drained', 2, 5_000); // its output may trail its exit
  assert.deepEqual(kids.filter(pidAlive), [], 'no serving process left');
});

test('pm2-runtime: two cluster-mode instances serve every route; SIGTERM drains and leaves no process', async () => {
  const instances = await startTwoPm2Instances();
  const p = current;
  // The instances run src/serve.js, which forks nothing: no grandchildren.
  assert.deepEqual(instances.flatMap(childPids), []);
  assert.deepEqual([...await servingPids(p.port, 2)].sort(), instances.sort(), 'PM2 spread requests over both');
  await assertServesEveryRoute(p.port);

  const pending = Array.from({ length: 2 }, () => request(p.port, '/delay?ms=1500', { timeoutMs: 10_000 })
    .then((res) => res.status, (err) => err.code ?? err.message));
  await sleep(300);
  process.kill(p.child.pid, 'SIGTERM');
  assert.deepEqual(await Promise.all(pending), [200, 200], 'in-flight requests finished');
  const { code } = await exitWithin(p, 20_000);
  assert.equal(code, 0);
  assert.equal(p.find('worker draining').length, 2, 'each instance drained (PM2 sent SIGINT)');
  // PM2's own lines (its log stream may stop before an instance's last lines reach it).
  const cleanExits = () => p.find('raw').filter((l) => /App \[app:\d\] exited with code \[0\]/.test(l.line));
  await waitFor(() => cleanExits().length === 2, { timeoutMs: 5_000, what: 'PM2 logging both instances exiting with code 0' });
  assert.deepEqual([p.child.pid, ...instances].filter(pidAlive), [], 'no pm2-runtime and no instance left');
});

test('pm2-runtime: a killed instance is brought back by PM2', async () => {
  const [victim] = await startTwoPm2Instances();
  const p = current;
  process.kill(victim, 'SIGKILL');
  await p.waitLog('worker listening', 3, 30_000);
  const now = await waitForChildren(p.child.pid, 2);
  assert.ok(!now.includes(victim));
  assert.equal((await request(p.port, '/')).status, 200);
});

test('pm2-runtime: SIGHUP is PM2\'s reload, one instance at a time, and pm2-runtime lives on', async () => {
  const before = await startTwoPm2Instances();
  const p = current;
  process.kill(p.child.pid, 'SIGHUP');
  const done = await waitFor(() => p.logs.find((l) => /^(pm2 reload app done|rolling restart aborted)/.test(l.msg)), { timeoutMs: 60_000, what: 'the reload to end' });
  assert.deepEqual([done.msg, done.code], ['pm2 reload app done', 0]);
  const after = childPids(p.child.pid);
  assert.equal(after.length, 2);
  assert.ok(after.every((pid) => !before.includes(pid)), 'both instances replaced');
  // Each old instance drained only once its replacement listened.
  const seq = p.logs.filter((l) => (l.msg === 'worker listening' && after.includes(l.pid)) || (l.msg === 'worker draining' && before.includes(l.pid)));
  assert.deepEqual(seq.map((l) => l.msg), ['worker listening', 'worker draining', 'worker listening', 'worker draining']);
  assert.equal((await request(p.port, '/')).status, 200);
});

test('pm2-runtime: a bad WORKERS value stops it with one line, exit 2', async () => {
  current = await startPm2({ WORKERS: 'lots' });
  const { code } = await exitWithin(current, 20_000);
  assert.equal(code, 2);
  assert.match(current.stderr, /WORKERS must be a positive integer, got "lots"/);
  assert.deepEqual(childPids(current.child.pid), []);
});
