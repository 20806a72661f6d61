import test from 'node:test';
import assert from 'node:assert/strict';
import { BadRequest, parseQuery } from '../src/params.js';
import { estimatePi } from '../src/pi.js';

const spec = { n: { min: 1, max: 100, default: 10 } };

test('a missing parameter takes its default', () => {
  assert.deepEqual(parseQuery('', spec), { n: 10 });
});

test('a whole number within bounds is accepted, including both bounds', () => {
  assert.deepEqual(parseQuery('n=1', spec), { n: 1 });
  assert.deepEqual(parseQuery('n=100', spec), { n: 100 });
  assert.deepEqual(parseQuery('n=042', spec), { n: 42 });
});

for (const [query, why] of [
  ['n=abc', 'non-numeric'], ['n=-1', 'negative'], ['n=0', 'below min'], ['n=101', 'above max'],
  ['n=1.5', 'fraction'], ['n=1e2', 'exponent'], ['n=+5', 'sign'], ['n=%205', 'leading space'],
  ['n=', 'empty'], ['n', 'no value'], ['n=1&n=2', 'repeated'], ['m=1', 'unknown name'],
  [`n=${'9'.repeat(1000)}`, 'huge'], ['n=Infinity', 'Infinity'], ['n=NaN', 'NaN'],
]) {
  test(`rejects ${why} (${query.slice(0, 20)})`, () => {
    assert.throws(() => parseQuery(query, spec), BadRequest);
  });
}

test('the error names the parameter and the accepted range, and never echoes a huge value', () => {
  let message = '';
  assert.throws(() => parseQuery(`n=${'7'.repeat(5000)}`, spec), (/** @type {Error} */ e) => {
    message = e.message;
    return e instanceof BadRequest;
  });
  assert.match(message, /'n' must be a whole number from 1 to 100/);
  assert.ok(message.length < 200, `message too long: ${message.length}`);
});

test('a path without parameters rejects any parameter', () => {
  assert.throws(() => parseQuery('x=1', {}), /this path takes none/);
  assert.deepEqual(parseQuery('', {}), {});
});

test('estimatePi is deterministic for a seed and varies with it', () => {
  assert.equal(estimatePi(10_000, 42), estimatePi(10_000, 42));
  assert.notEqual(estimatePi(10_000, 42), estimatePi(10_000, 43));
  // Seed 0 would stall xorshift32 at 0 (every point at the origin, inside: 4.0); it is replaced.
  assert.notEqual(estimatePi(10_000, 0), 4);
});

test('estimatePi approaches pi with many samples', () => {
  // 200k samples: the standard error is about 0.004, so 0.05 is over 10 standard errors.
  for (const seed of [1, 2, 3, 12345, 0xdeadbeef]) assert.ok(Math.abs(estimatePi(200_000, seed) - Math.PI) < 0.05, `seed ${seed}`);
});
