// The workload records (harness/bench/lib/workloads/): every file of that folder but index.js is
// one, named as its file (adding a workload is one file and its test here), and each keeps the
// contract the plan, the response check and the report rely on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { WORKLOADS, workloadSpec } from '../bench/lib/workloads/index.js';

const DIR = path.join(import.meta.dirname, '..', 'bench', 'lib', 'workloads');
const DEFAULT_RUN = ['every budget', 'larger budgets', 'no'];

test('every file of the folder is one workload, named as its file', () => {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.js') && f !== 'index.js');
  assert.deepEqual(files.map((f) => path.basename(f, '.js')).sort(), Object.keys(WORKLOADS).sort());
  assert.deepEqual(Object.keys(WORKLOADS), ['light', 'pi', 'delay', 'db'], 'in their order');
});

test('every record keeps the contract: names, sizes, where the default run asks it, the answer check', () => {
  const orders = Object.values(WORKLOADS).map((w) => w.order);
  assert.equal(new Set(orders).size, orders.length, 'no two share an order');
  for (const [name, w] of Object.entries(WORKLOADS)) {
    assert.equal(w.name, name);
    assert.match(name, /^[a-z0-9-]+$/);
    assert.ok(w.title.length > 3, name);
    assert.equal(typeof w.params, 'object', name);
    assert.ok(Number.isInteger(w.connections) && w.connections > 0, name);
    assert.ok(w.latencyRatePerCpu > 0, name);
    assert.ok(DEFAULT_RUN.includes(w.defaultRun), `${name}: defaultRun ${w.defaultRun}`);
    assert.equal(typeof w.check, 'function', name);
    assert.equal(w.check(null), false, `${name}: null is no right answer`);
    assert.equal(w.check('text'), false, `${name}: a string is no right answer`);
    assert.ok(w.shape.length > 3, name);
  }
});

test('what a right answer is, workload by workload', () => {
  assert.ok(WORKLOADS.light.check({ ok: true }) && !WORKLOADS.light.check({}));
  assert.ok(WORKLOADS.pi.check({ pi: 3.14 }) && !WORKLOADS.pi.check({ pi: 4.2 }));
  assert.ok(WORKLOADS.delay.check({}) && !WORKLOADS.delay.check([]));
  assert.ok(WORKLOADS.db.check([{ id: 1 }]) && WORKLOADS.db.check({ items: [{ id: 1 }] }) && !WORKLOADS.db.check([]));
  assert.ok(WORKLOADS.db.database && !WORKLOADS.light.database, 'only the database read starts the store');
});

test("an app's own request is a workload of its run; a name that is neither is one line naming both", () => {
  const app = { requests: [{ name: 'orders', path: '/orders', method: 'POST' }] };
  assert.equal(workloadSpec(app, 'orders').title, 'POST /orders');
  assert.equal(workloadSpec(app, 'orders').custom, true);
  assert.equal(workloadSpec(app, 'light'), WORKLOADS.light);
  assert.throws(() => workloadSpec(app, 'nope'), /^Error: unknown workload "nope" \(one of: light, pi, delay, db, orders\)$/);
});
