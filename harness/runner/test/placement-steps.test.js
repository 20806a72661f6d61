// The order a place is applied in (common/placement-steps.js), which cgroup v1 insists on — a
// parent's quota never below a child's, a parent's cpuset never without a child's CPUs — and what
// a failed step leaves: everything done before it put back, newest first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPlacement } from '../common/placement-steps.js';

// Ops that record what they are asked to do (and what undoes it), failing where told to.
function recorder(failOn) {
  const log = [];
  const op = (what) => {
    if (what === failOn) throw new Error(`${what} refused`);
    log.push(what);
    return () => log.push(`undo ${what}`);
  };
  return {
    log,
    ops: {
      runCpuset: (cpus) => op(`run cpuset ${cpus}`),
      runBudget: (budget) => op(`run budget ${budget}`),
      service: (name, change) => op(`${name} ${JSON.stringify(change)}`),
    },
  };
}

const wide = { cpuset: '0,1', budget: 2, cpus: { app: 2, db: null } };
const narrow = { cpuset: '1', budget: 1, cpus: { app: 0.5, db: null } };

test('moving in: the cpuset widened first, quotas down before the budget, the cpuset narrowed last', () => {
  const { log, ops } = recorder();
  applyPlacement(wide, narrow, ops);
  assert.deepEqual(log, [
    'run cpuset 0,1', 'app {"cpus":0.5,"cpuset":"1"}', 'run budget 1', 'db {"cpuset":"1"}', 'run cpuset 1',
  ]);
});

test('moving out: the budget up before the quotas, every service to the new cpuset', () => {
  const { log, ops } = recorder();
  applyPlacement({ ...narrow, cpuset: '0' }, wide, ops);
  assert.deepEqual(log, [
    'run cpuset 0,1', 'run budget 2', 'app {"cpus":2,"cpuset":"0,1"}', 'db {"cpuset":"0,1"}', 'run cpuset 0,1',
  ]);
});

test('only a quota: no cpuset or budget written; nothing to change: nothing written', () => {
  const one = recorder();
  applyPlacement(wide, { ...wide, cpus: { app: 1, db: null } }, one.ops);
  assert.deepEqual(one.log, ['app {"cpus":1}']);
  const none = recorder();
  applyPlacement(wide, wide, none.ops);
  assert.deepEqual(none.log, []);
});

test('a step that fails: those done before it undone, newest first, and one error saying so', () => {
  const { log, ops } = recorder('run budget 1');
  assert.throws(() => applyPlacement(wide, narrow, ops),
    /^Error: the run could not be placed \(run budget 1 refused\): what had changed is put back$/);
  assert.deepEqual(log, [
    'run cpuset 0,1', 'app {"cpus":0.5,"cpuset":"1"}', 'undo app {"cpus":0.5,"cpuset":"1"}', 'undo run cpuset 0,1',
  ]);
});
