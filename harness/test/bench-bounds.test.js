// What bounded a capacity search: the paced generator only where the cell's capacity came near its
// measured ceiling, never where the capacity passed it (that ceiling was then mis-measured).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBounds } from '../bench/lib/judge/bottleneck.js';
import { boundText } from '../bench/lib/report/bound-text.js';

// One ok closed-loop cell of one Node process at 2 CPUs that spent the whole budget: its strategy bounded it.
const cell = (capacityRps) => ({
  id: 'pi:express-1-nginx-b2',
  kind: 'closed',
  status: 'ok',
  workload: 'pi',
  tool: 'wrk',
  rps: { median: 1000 },
  topology: { runtime: 'node', processes: 1, budgetCpus: 2, cpuset: 'all' },
  rounds: [{ wallMs: 1000, cpuMs: 1950, appCpuMs: 1000, proxyCpuMs: 100, rps: 1000 }],
  capacity: { rps: capacityRps },
});
const boundsAt = (capacityRps, ceiling) =>
  withBounds([cell(capacityRps)], { ceilings: { paced: { rps: ceiling } } })[0];

test('a capacity at 80% of the paced ceiling is bounded by the generator', () => {
  const c = boundsAt(800, 1000);
  assert.equal(c.bound.by, 'strategy');
  assert.equal(c.capacityBound.by, 'generator');
  assert.match(c.capacityBound.why, /800 req\/s, is 80% of the paced generator's ceiling/);
});

test("a capacity at half the paced ceiling keeps the closed loop's bound", () => {
  assert.equal(boundsAt(500, 1000).capacityBound, undefined);
});

test('a capacity above the paced ceiling disproves the ceiling: no generator bound', () => {
  const c = boundsAt(3446, 40);
  assert.equal(c.capacityBound, undefined, 'the ceiling of 40 req/s was contradicted by 3,446 held');
  assert.equal(c.bound.by, 'strategy');
});

test('a generator-bound verdict: more cores for the generator where the budget had CPUs of its own', () => {
  const doc = { meta: { machine: { cores: 2 } } };
  const bound = { by: 'generator', why: "its capacity is 80% of the paced generator's ceiling" };
  const own = boundText(doc, { bound, budget: 1 });
  assert.equal(own.short, 'generator-bound here: a generator with more cores');
  assert.doesNotMatch(own.long, /share these/);
  const shared = boundText(doc, { bound, budget: 2 });
  assert.equal(shared.short, 'generator-bound here: measure on ≥ 3 cores');
  assert.match(shared.long, /share these 2 cores/);
});
