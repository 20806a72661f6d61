// The paced generator the p99 verdicts use, against a real local server: it sends on its schedule
// whatever the server does, charges a stall to every request it delayed (no coordinated
// omission), and counts failures instead of crashing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { run } from '../bench/lib/tools/paced.js';
import { latencyBlock, sliceOrder, sliceSeed } from '../bench/lib/measure.js';

function serve(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(/** @type {import('node:net').AddressInfo} */ (server.address())).port}/` }));
  });
}

test('a stall of the server is charged to every request scheduled during it', async () => {
  let first = true;
  const { server, url } = await serve((req, res) => {
    if (first) {
      first = false;
      const until = Date.now() + 300;
      while (Date.now() < until) { /* the event loop blocked, as a long GC or a sync call would */ }
    }
    res.end('{}');
  });
  try {
    const r = await run({ url, rate: 50, durationS: 2, connections: 8, raw: true });
    assert.equal(r.sent, 100, 'the schedule: rate × duration');
    assert.equal(r.lags.length, 100);
    assert.ok(Math.min(...r.lags) >= 0, 'no request leaves before its intended time');
    // Here the server blocks the generator's own process: the sends due meanwhile left late, and the
    // window says so (sendLagMs), apart from the latencies.
    assert.ok(r.sendLagMs.max >= 250, `send lag ${r.sendLagMs.max} ms`);
    assert.equal(r.requests, 100);
    assert.equal(r.non2xx + r.socketErrors, 0);
    assert.ok(r.latencyMs.max >= 250, `the stalled request: ${r.latencyMs.max} ms`);
    // ~15 requests were due during the 300 ms stall; a closed-loop count would show one slow request.
    assert.ok(r.latencyMs.p90 >= 50, `p90 ${r.latencyMs.p90} ms: the requests queued behind the stall count`);
  } finally {
    server.close();
  }
});

test('non-2xx answers and refused connections are counted, not thrown', async () => {
  const { server, url } = await serve((req, res) => { res.statusCode = 503; res.end(); });
  try {
    const r = await run({ url, rate: 40, durationS: 0.5 });
    assert.equal(r.non2xx, 20);
  } finally {
    server.close();
  }
  const refused = await run({ url, rate: 40, durationS: 0.5 });
  assert.equal(refused.socketErrors, 20);
  assert.equal(refused.requests, 0);
});

test('a rate or duration that is not positive is refused', async () => {
  await assert.rejects(run({ url: 'http://127.0.0.1:1/', rate: 0, durationS: 1 }), /rate and duration must be positive/);
});

test('a latency block takes the cells in turn, pools each one\'s slices, and keeps a stall with the cell it hit', async () => {
  const order = [];
  const calm = await serve((req, res) => { order.push('calm'); res.end('{}'); });
  let stalls = 1;
  const stalled = await serve((req, res) => {
    order.push('stalled');
    if (stalls > 0) {
      stalls -= 1;
      const until = Date.now() + 200;
      while (Date.now() < until) { /* one 200 ms stall */ }
    }
    res.end('{}');
  });
  try {
    const byId = await latencyBlock({ slices: 3, sliceS: 0.5, targets: [
      { id: 'calm', url: calm.url, rate: 40, connections: 4 },
      { id: 'stalled', url: stalled.url, rate: 40, connections: 4 },
    ] });
    const c = byId.get('calm');
    const s = byId.get('stalled');
    assert.equal(c.requests, 60, '3 slices × 0.5 s × 40/s, pooled');
    assert.equal(s.requests, 60);
    assert.equal(c.slices, 3);
    // The calm cell held its rate. The stalled one may not have: the 200 ms stall can stretch its slice.
    assert.ok(c.held, c.why);
    assert.ok(s.latencyMs.max >= 150, `the stall stays with the cell it hit: ${s.latencyMs.max} ms`);
    assert.ok(c.latencyMs.max < 150, `and not with the other: ${c.latencyMs.max} ms`);
    // In turn, each slice in the order sliceOrder gives it (consecutive runs of one server's requests show it).
    const expected = [0, 1, 2].flatMap((s) => sliceOrder(['calm', 'stalled'], sliceSeed(0, s)));
    const collapse = (xs) => xs.filter((x, i) => i === 0 || xs[i - 1] !== x);
    assert.deepEqual(collapse(order), collapse(expected), 'the slices follow the schedule');
  } finally {
    calm.server.close();
    stalled.server.close();
  }
  const refused = await latencyBlock({ slices: 1, sliceS: 0.25, targets: [{ id: 'gone', url: calm.url, rate: 40, connections: 2 }] });
  assert.equal(refused.get('gone').held, false, 'a cell that refuses is not held');
  assert.match(refused.get('gone').why, /failed/);
});

test('a latency block warms each target at its rate first, and does not count it', async () => {
  const seen = new Map([['a', 0], ['b', 0]]);
  const a = await serve((req, res) => { seen.set('a', seen.get('a') + 1); res.end('{}'); });
  const b = await serve((req, res) => { seen.set('b', seen.get('b') + 1); res.end('{}'); });
  try {
    const byId = await latencyBlock({ slices: 2, sliceS: 0.5, warmS: 0.25, targets: [
      { id: 'a', url: a.url, rate: 40, connections: 2 },
      { id: 'b', url: b.url, rate: 40, connections: 2 },
    ] });
    for (const id of ['a', 'b']) {
      const r = byId.get(id);
      assert.equal(r.requests, 40, '2 slices × 0.5 s × 40/s: the warm run is not among them');
      assert.equal(seen.get(id), 50, 'the server saw the warm run too (0.25 s × 40/s)');
      assert.equal(r.sliceLagP99Ms.length, 2, 'the send lag of each counted slice');
      assert.ok(r.sliceLagP99Ms.every((x) => x >= 0));
    }
  } finally {
    a.server.close();
    b.server.close();
  }
});
