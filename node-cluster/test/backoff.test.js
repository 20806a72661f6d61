import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBackoff } from '../src/backoff.js';

test('delay grows ×1.5 per consecutive crash and is capped', () => {
  const b = createBackoff({ initialMs: 100, maxMs: 1_000, maxCrashes: 100 });
  const delays = Array.from({ length: 8 }, () => b.onCrash(10));
  assert.deepEqual(delays, [100, 150, 225, 338, 506, 759, 1000, 1000]);
});

test('a worker that stayed up long enough resets the count', () => {
  const b = createBackoff({ initialMs: 100, resetAfterMs: 30_000 });
  b.onCrash(10);
  b.onCrash(10);
  assert.equal(b.onCrash(10), 225);
  assert.equal(b.onCrash(30_000), 100, 'crash after 30 s of uptime starts over');
  assert.equal(b.crashes, 1);
});

test('more than maxCrashes in a row is a crash loop: no more respawns', () => {
  const b = createBackoff({ maxCrashes: 3 });
  assert.notEqual(b.onCrash(0), null);
  assert.notEqual(b.onCrash(0), null);
  assert.notEqual(b.onCrash(0), null);
  assert.equal(b.onCrash(0), null);
  assert.equal(b.onCrash(0), null);
});
