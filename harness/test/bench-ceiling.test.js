// The paced generator's ceiling: the highest rate it holds (answered, on time, nothing failed),
// found by a bounded search, and measured against the bench's bare nginx as the other tools are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { measureCeilings, pacedCeiling, pacedHeld, PACED_LAG_MS } from '../bench/lib/run/generator-ceiling.js';
import { runProcesses, tempRunDir } from './helpers.js';
import { runnerFor } from '../runner/index.js';

/** A generator that holds any rate up to `limit` and answers only `limit` per second above it. */
function generatorUpTo(limit, calls = []) {
  return async ({ rate, durationS }) => {
    calls.push(rate);
    const answered = Math.min(rate, limit) * durationS;
    const late = rate > limit;
    return {
      requests: answered,
      durationS,
      sendLagMs: { p99: late ? 40 : 0.3 },
      latencyMs: { p99: late ? 900 : 1 },
      non2xx: 0,
      socketErrors: 0,
    };
  };
}

test('a step holds only if it answered 95% of its rate on time with nothing failed', () => {
  const ok = { requests: 1000, durationS: 1, sendLagMs: { p99: 0.5 }, non2xx: 0, socketErrors: 0 };
  assert.equal(pacedHeld(1000, ok).held, true);
  assert.match(pacedHeld(1000, { ...ok, requests: 900 }).why, /answered 900 of 1000/);
  assert.match(pacedHeld(1000, { ...ok, sendLagMs: { p99: PACED_LAG_MS } }).why, /send lag p99/);
  assert.match(pacedHeld(1000, { ...ok, socketErrors: 1 }).why, /1 failed/);
});

test('the search brackets the highest held rate within 5%, in a bounded number of steps', async () => {
  const calls = [];
  const c = await pacedCeiling({
    url: 'http://127.0.0.1:1/',
    startRate: 10_000,
    maxSteps: 10,
    stepS: 1,
    warmS: 0.1,
    run: generatorUpTo(43_000, calls),
  });
  assert.ok(c.bracketed);
  assert.ok(c.rps <= 43_000 && c.rps >= 43_000 * 0.95, `${c.rps} req/s`);
  assert.ok((c.bracket[1] - c.bracket[0]) / c.bracket[1] <= 0.05, JSON.stringify(c.bracket));
  assert.equal(calls.length, c.steps.length + 1, 'the steps, and one warm-up run before them');
  const rates = [...new Set(c.steps.map((s) => s.rate))];
  assert.ok(rates.length <= 10, `${rates.length} rates tried`);
  assert.deepEqual(rates.slice(0, 4), [10_000, 20_000, 40_000, 80_000], 'up by ×2 while held');
  assert.ok(
    c.steps.every((s) => s.held === s.rate <= 43_000),
    JSON.stringify(c.steps),
  );
  assert.ok(
    c.steps.filter((s) => !s.held).every((s, i, failed) => s.try === 2 || failed[i + 1]?.rate === s.rate),
    'a rate fails only after its second try fails',
  );
});

test('a stall in one try does not make a rate fail; failing every try does', async () => {
  let tried = 0;
  // The first try at 20,000 req/s hits a stall of the machine; every rate above 30,000 fails.
  const stalledOnce = async ({ rate, durationS }) => {
    const stalled = rate === 20_000 && tried++ === 0;
    const over = rate > 30_000;
    return {
      requests: rate * durationS * (over ? 0.8 : 1),
      durationS,
      sendLagMs: { p99: stalled || over ? 30 : 0.2 },
      latencyMs: { p99: 1 },
      non2xx: 0,
      socketErrors: 0,
    };
  };
  const c = await pacedCeiling({
    url: 'http://127.0.0.1:1/',
    startRate: 10_000,
    maxSteps: 8,
    warmS: 0.1,
    run: stalledOnce,
  });
  assert.deepEqual(
    c.steps.filter((s) => s.rate === 20_000).map((s) => s.held),
    [false, true],
    'tried again, and held',
  );
  assert.ok(c.rps >= 28_500 && c.rps <= 30_000, `${c.rps} req/s`);
});

test('a generator that holds nothing, or everything tried, says so', async () => {
  const none = await pacedCeiling({
    url: 'http://127.0.0.1:1/',
    startRate: 1000,
    maxSteps: 4,
    warmS: 0.1,
    run: generatorUpTo(0),
  });
  assert.equal(none.rps, 0);
  assert.equal(none.bracketed, false);
  const all = await pacedCeiling({
    url: 'http://127.0.0.1:1/',
    startRate: 1000,
    maxSteps: 3,
    warmS: 0.1,
    run: generatorUpTo(1e9),
  });
  assert.equal(all.rps, 4000, 'the highest rate tried: a lower bound');
  assert.deepEqual(all.bracket, [4000, null]);
  assert.equal(all.bracketed, false);
});

test("ceilings.paced: the paced generator against the bench's bare nginx", async (t) => {
  const runDir = tempRunDir('paced-ceiling');
  t.after(() => fs.rmSync(runDir, { recursive: true, force: true }));
  const out = await measureCeilings(['paced'], {
    runner: await runnerFor('processes'),
    runDir,
    isolation: { pinned: false, generatorThreads: 1 },
    durationS: 0.5,
  });
  const c = out.paced;
  assert.ok(c.steps.length >= 1, JSON.stringify(c));
  for (const s of c.steps)
    assert.ok(s.rate > 0 && s.achievedRps >= 0 && s.lagP99Ms >= 0 && typeof s.held === 'boolean', JSON.stringify(s));
  assert.ok(c.rps === 0 || c.steps.some((s) => s.held && s.rate === c.rps), 'the ceiling is a rate that held');
  assert.equal(c.lagP99LimitMs, PACED_LAG_MS);
  assert.deepEqual(runProcesses(runDir), [], 'nginx is stopped');
});
