// The paced generator the p99 verdicts use, against a real local server: it sends on its schedule
// whatever the server does, charges a stall to every request it delayed (no coordinated
// omission), and counts failures instead of crashing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { run } from '../bench/lib/tools/paced.js';

function serve(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
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
    const r = await run({ url, rate: 50, durationS: 2, connections: 8 });
    assert.equal(r.sent, 100, 'the schedule: rate × duration');
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
