// Against a real MongoDB server (mongod), started by the local runner with the whole sample:
// mongo + app (2 workers) + nginx. The mongod is the one scripts/find-mongod.js finds (MONGOD_BIN,
// PATH, or MongoDB 8.0 downloaded by mongodb-memory-server) and checks (`--version` answers "db
// version v…"); where there is none, or what was found is not mongod, the whole suite is reported
// as one skipped test, with the one line saying why. Never replaced by a fake. What can be shown
// without a server (casting, validation, error mapping) runs everywhere: operator-injection.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { runnerFor } from '../../harness/runner/index.js';
import { REPO_ROOT } from '../../harness/lib/repo-root.js';
import { findMongod } from '../scripts/find-mongod.js';
import { request, sleep, waitFor } from './helpers.js';
import '../src/db.js'; // sets sanitizeFilter, as the app does
import { Item } from '../src/models/item.js';

const { up, down, killHeld, restart } = runnerFor('processes');

let skip = false;
try {
  await findMongod();
} catch (err) {
  skip = err.message;
}

test('with a real MongoDB', { skip }, async (t) => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-mongo-'));
  t.after(async () => {
    await mongoose.disconnect();
    await down({ runDir });
    fs.rmSync(runDir, { recursive: true, force: true });
  });
  const topo = await up({ sample: 'node-cluster', runDir, env: { HTTP_PORT: '0', WORKERS: '2', CPUS: '2' } });
  const nginxPort = Number(new URL(topo.url).port);
  const appPort = topo.services.app.instances[0].port;
  const api = (p, opts) => request(nginxPort, p, opts);
  await waitFor(async () => (await request(appPort, '/ready')).status === 200, { timeoutMs: 20_000, what: 'app ready' });
  await mongoose.connect(`mongodb://127.0.0.1:${topo.services.mongo.instances[0].port}/items`);

  await t.test('the seed items are there (post_start seeded them)', async () => {
    const res = await api('/api/items?limit=100');
    assert.equal(res.status, 200);
    const seed = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'database/mongo/items.json'), 'utf8'));
    assert.ok(res.body.items.length >= seed.length);
    assert.ok(res.body.items.some((i) => i.name === 'Anvil'));
  });

  await t.test('CRUD round trip through nginx', async () => {
    const created = await api('/api/items', { method: 'POST', body: { name: 'Round trip', description: 'x', quantity: 2, extra: 'dropped' } });
    assert.equal(created.status, 201);
    const { id } = created.body;
    assert.match(id, /^[0-9a-f]{24}$/);
    assert.equal(created.headers.location, `/api/items/${id}`);
    assert.equal(created.body.extra, undefined);

    const got = await api(`/api/items/${id}`);
    assert.deepEqual([got.status, got.body.name, got.body.quantity], [200, 'Round trip', 2]);

    const patched = await api(`/api/items/${id}`, { method: 'PATCH', body: { quantity: 5 } });
    assert.deepEqual([patched.status, patched.body.quantity, patched.body.name], [200, 5, 'Round trip']);

    const put = await api(`/api/items/${id}`, { method: 'PUT', body: { name: 'Round trip 2', description: 'y', quantity: 6 } });
    assert.deepEqual([put.status, put.body.name], [200, 'Round trip 2']);

    const listed = await api(`/api/items?name=${encodeURIComponent('Round trip 2')}`);
    assert.deepEqual(listed.body.items.map((i) => i.id), [id]);

    assert.equal((await api(`/api/items/${id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await api(`/api/items/${id}`)).status, 404);
    assert.equal((await api(`/api/items/${id}`, { method: 'DELETE' })).status, 404);
  });

  await t.test('a requestId is stored as given and may repeat (what the drills count)', async () => {
    const requestId = `drill-${Date.now()}`;
    for (const name of ['Replay A', 'Replay B']) {
      const res = await api('/api/items', { method: 'POST', body: { name, requestId } });
      assert.deepEqual([res.status, res.body.requestId], [201, requestId]);
    }
    const stored = await Item.find({ requestId }).lean();
    assert.equal(stored.length, 2, 'two items carry the same requestId');
    const bad = await api('/api/items', { method: 'POST', body: { name: 'Bad id', requestId: 7 } });
    assert.equal(bad.status, 400);
  });

  await t.test('bad input matrix: 400 / 409 / 413 with JSON bodies, never a 500 or a stack', async () => {
    const dup = await api('/api/items', { method: 'POST', body: { name: 'Anvil' } });
    const cases = [
      ['malformed JSON', await api('/api/items', { method: 'POST', body: '{"name":' }), 400],
      ['too large', await api('/api/items', { method: 'POST', body: { name: 'a', description: 'x'.repeat(20_000) } }), 413],
      ['body is an array', await api('/api/items', { method: 'POST', body: [{ name: 'a' }] }), 400],
      ['not JSON', await api('/api/items', { method: 'POST', body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400],
      ['empty update', await api('/api/items/0123456789abcdef01234567', { method: 'PATCH', body: {} }), 400],
      ['missing name', await api('/api/items', { method: 'POST', body: { quantity: 1 } }), 400],
      ['name too long', await api('/api/items', { method: 'POST', body: { name: 'n'.repeat(101) } }), 400],
      ['negative quantity', await api('/api/items', { method: 'POST', body: { name: 'neg', quantity: -1 } }), 400],
      ['duplicate name', dup, 409],
      ['invalid id (GET)', await api('/api/items/not-an-id'), 400],
      ['invalid id (PATCH)', await api('/api/items/123', { method: 'PATCH', body: { quantity: 1 } }), 400],
      ['invalid id (DELETE)', await api('/api/items/zzzzzzzzzzzzzzzzzzzzzzzz', { method: 'DELETE' }), 400],
      ['limit out of range', await api('/api/items?limit=1000'), 400],
      ['skip not a number', await api('/api/items?skip=abc'), 400],
    ];
    for (const [what, res, status] of cases) {
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(typeof res.body?.error, 'string', what);
      assert.doesNotMatch(res.text, /\.js:\d+|node_modules/, what);
    }
    const missingName = cases.find(([what]) => what === 'missing name')[1];
    assert.deepEqual(Object.keys(missingName.body.fields), ['name']);
    assert.deepEqual(dup.body.fields, ['name']);
  });

  await t.test('operator injection neither matches extra documents nor changes data', async () => {
    const before = await Item.countDocuments();
    const created = await api('/api/items', { method: 'POST', body: { name: 'Target', quantity: 1 } });
    const { id } = created.body;

    const inCreate = await api('/api/items', { method: 'POST', body: { name: { $ne: null } } });
    assert.equal(inCreate.status, 400);
    const inUpdate = await api(`/api/items/${id}`, { method: 'PATCH', body: { name: { $ne: null } } });
    assert.equal(inUpdate.status, 400);
    const setOp = await api(`/api/items/${id}`, { method: 'PATCH', body: { $set: { name: 'hacked' }, $unset: { quantity: 1 } } });
    assert.equal(setOp.status, 400);
    const inQuery = await api('/api/items?name[$ne]=x');
    assert.equal(inQuery.status, 400);

    const stored = await Item.findById(id).lean();
    assert.deepEqual([stored.name, stored.quantity], ['Target', 1]);
    assert.equal(await Item.countDocuments(), before + 1);
    // sanitizeFilter (src/db.js) wraps an operator in a filter value in $eq, so it is cast to the
    // path's type: a CastError before any query, never "every item".
    await assert.rejects(Item.countDocuments({ name: { $ne: null } }), { name: 'CastError', path: 'name' });
    // What it guards against: the same filter, trusted, does match every item.
    assert.equal(await Item.countDocuments({ name: mongoose.trusted({ $ne: null }) }), before + 1);
    await api(`/api/items/${id}`, { method: 'DELETE' });
  });

  // The database is held down (killHeld: a stop on purpose, as `docker kill`; mongo's `restart:
  // unless-stopped` does not bring it back) for HOLD_DOWN_MS, longer than a worker takes to notice
  // (heartbeat 2 s, server selection 2 s: src/db.js), then brought back with restart().
  const HOLD_DOWN_MS = 6_000;
  await t.test(`database held down ${HOLD_DOWN_MS / 1000} s → /ready and the API answer 503; back up → they recover by themselves`, async () => {
    const everyWorker = (p, ok) => async () => {
      const all = await Promise.all(Array.from({ length: 6 }, () => request(appPort, p, { timeoutMs: 5_000 })));
      return all.every(ok) && all;
    };
    await killHeld({ runDir, service: 'mongo', index: 1 });
    const heldUntil = Date.now() + HOLD_DOWN_MS;
    await waitFor(everyWorker('/ready', (r) => r.status === 503), { timeoutMs: 20_000, what: '/ready 503 from every worker' });
    // While it stays down, every API request is a 503 naming the cause, never a 500 or a hang.
    let rounds = 0;
    do {
      const answers = await everyWorker('/api/items', () => true)();
      for (const res of answers) assert.deepEqual([res.status, res.body?.error], [503, 'database unavailable'], res.text);
      rounds += 1;
      await sleep(500);
    } while (Date.now() < heldUntil && rounds < 40);
    const ready = await request(appPort, '/ready');
    assert.equal(ready.status, 503, 'still down at the end of the hold');
    // Through nginx too: the app's 503 and its Retry-After reach the client as they are.
    const viaNginx = await api('/api/items');
    assert.deepEqual([viaNginx.status, viaNginx.body?.error, viaNginx.headers['retry-after']], [503, 'database unavailable', '2']);

    await restart({ runDir, service: 'mongo', index: 1 });
    await waitFor(everyWorker('/ready', (r) => r.status === 200), { timeoutMs: 30_000, what: '/ready 200 again from every worker' });
    // Every worker has reconnected: every request (spread over them) succeeds.
    await waitFor(everyWorker('/api/items?limit=1', (r) => r.status === 200), { timeoutMs: 30_000, what: 'the API to answer 200 from every worker' });
  });
});
