// The paced generator the p99 verdicts use, against a real local server: it sends on its schedule
// whatever the server does, charges a stall to every request it delayed (no coordinated
// omission), and counts failures instead of crashing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { run, keepAliveAgent } from '../bench/lib/tools/paced.js';
import { GeneratorError } from '../bench/lib/tools/errors.js';
import { latencyBlock, sliceOrder, sliceSeed } from '../bench/lib/run/measure-window.js';

const urlOf = (server) => `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`;

function serve(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: urlOf(server) }));
  });
}

/**
 * A raw TCP server (for answers node:http would not give); `onRequest(socket, n)` for the n-th
 * request on each connection.
 */
function serveRaw(onRequest) {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => {
      let n = 0;
      socket.on('data', (d) => {
        for (const _ of d.toString('latin1').matchAll(/\r\n\r\n/g)) onRequest(socket, n++);
      });
      socket.on('error', () => {});
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, url: urlOf(server) }));
  });
}

/**
 * A server that records who sent what — every request's method, path, body and connection (its
 * client port), in arrival order — closed after the test.
 */
async function recording(t) {
  const seen = [];
  const { server, url } = await serve((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      seen.push({
        method: req.method,
        url: req.url,
        type: req.headers['content-type'],
        host: req.headers.host,
        body,
        port: req.socket.remotePort,
      });
      res.end('{}');
    });
  });
  t.after(() => server.close());
  return { seen, url };
}

const countBy = (xs) =>
  [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map()).values()].sort((a, b) => a - b);

test('a stall of the server is charged to every request scheduled during it', async () => {
  let first = true;
  const { server, url } = await serve((req, res) => {
    if (first) {
      first = false;
      const until = Date.now() + 300;
      while (Date.now() < until) {
        /* the event loop blocked, as a long GC or a sync call would */
      }
    }
    res.end('{}');
  });
  try {
    const r = await run({ url, rate: 50, durationS: 2, connections: 8, raw: true });
    assert.equal(r.sent, 100, 'the schedule: rate × duration');
    assert.equal(r.lags.length, 100);
    assert.ok(Math.min(...r.lags) >= 0, 'no request leaves before its intended time');
    // Here the server blocks the thread that called run(); the generator's own thread sends on, as
    // generator-threads.test.js checks with a block that takes no CPU (this one takes a core, and on
    // a busy 2-core machine that can hold the generator's thread back too).
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
  const { server, url } = await serve((req, res) => {
    res.statusCode = 503;
    res.end();
  });
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

test('misuse is refused with one line: a rate, duration, thread count or request that cannot be sent', async () => {
  await assert.rejects(
    run({ url: 'http://127.0.0.1:1/', rate: 0, durationS: 1 }),
    /rate and duration must be positive/,
  );
  await assert.rejects(
    run({ url: 'http://127.0.0.1:1/', rate: 10, durationS: 1, threads: 1.5 }),
    /threads must be a positive whole number/,
  );
  await assert.rejects(run({ url: 'https://127.0.0.1:1/', rate: 10, durationS: 1 }), /only http:\/\/ URLs/);
  await assert.rejects(run({ url: 'http://127.0.0.1:1/', rate: 10, durationS: 1, method: 'GET /x' }), GeneratorError);
  await assert.rejects(
    run({ url: 'http://127.0.0.1:1/', rate: 10, durationS: 1, method: 'POST', body: /** @type {any} */ ({ a: 1 }) }),
    /body must be a string/,
  );
  await assert.rejects(
    run({ url: 'http://127.0.0.1:1/', rate: 10, durationS: 1, headers: { 'x-a': 'b\r\nx-evil: 1' } }),
    /not a valid header/,
  );
  await assert.rejects(
    run({ url: 'http://127.0.0.1:1/', rate: 10, durationS: 1, headers: { 'Content-Length': '5' } }),
    /the generator's to set/,
  );
  await assert.rejects(run({ url: 'http://127.0.0.1:1/', rate: 10, durationS: 1, requests: [] }), /non-empty list/);
});

test(
  "a latency block takes the cells in turn, pools each one's slices, and keeps a stall with the cell it hit",
  async () => {
    const order = [];
    const calm = await serve((req, res) => {
      order.push('calm');
      res.end('{}');
    });
    // One answer held back STALL_MS. A timer rather than a busy loop, so that the stall is the
    // server's alone: a busy CI machine can pause this whole process for 150 ms, never for 800.
    const STALL_MS = 800;
    let stalls = 1;
    const stalled = await serve((req, res) => {
      order.push('stalled');
      if (stalls > 0) {
        stalls -= 1;
        setTimeout(() => res.end('{}'), STALL_MS);
      } else {
        res.end('{}');
      }
    });
    try {
      const byId = await latencyBlock({
        slices: 3,
        sliceS: 0.5,
        targets: [
          { id: 'calm', url: calm.url, rate: 40, connections: 4 },
          { id: 'stalled', url: stalled.url, rate: 40, connections: 4 },
        ],
      });
      const c = byId.get('calm');
      const s = byId.get('stalled');
      assert.equal(c.requests, 60, '3 slices × 0.5 s × 40/s, pooled');
      assert.equal(s.requests, 60);
      assert.equal(c.slices, 3);
      // Whether a cell held its rate is heldOf's (bench-units); on a loaded machine the calm one may not.
      assert.equal(c.errors, 0);
      assert.equal(s.errors, 0);
      assert.ok(s.latencyMs.max >= STALL_MS, `the stall stays with the cell it hit: ${s.latencyMs.max} ms`);
      assert.ok(c.latencyMs.max < STALL_MS, `and not with the other: ${c.latencyMs.max} ms`);
      // In turn, each slice in the order sliceOrder gives it (consecutive runs of one server's requests show it).
      const expected = [0, 1, 2].flatMap((s) => sliceOrder(['calm', 'stalled'], sliceSeed(0, s)));
      const collapse = (xs) => xs.filter((x, i) => i === 0 || xs[i - 1] !== x);
      assert.deepEqual(collapse(order), collapse(expected), 'the slices follow the schedule');
    } finally {
      calm.server.close();
      stalled.server.close();
    }
    // Port 1, where nothing listens: the closed server's port could be another test's by now.
    const refused = await latencyBlock({
      slices: 1,
      sliceS: 0.25,
      targets: [{ id: 'gone', url: 'http://127.0.0.1:1/', rate: 40, connections: 2 }],
    });
    assert.equal(refused.get('gone').held, false, 'a cell that refuses is not held');
    assert.match(refused.get('gone').why, /failed/);
  },
);

test('a latency block warms each target at its rate first, and does not count it', async () => {
  const seen = new Map([
    ['a', 0],
    ['b', 0],
  ]);
  const a = await serve((req, res) => {
    seen.set('a', seen.get('a') + 1);
    res.end('{}');
  });
  const b = await serve((req, res) => {
    seen.set('b', seen.get('b') + 1);
    res.end('{}');
  });
  try {
    const byId = await latencyBlock({
      slices: 2,
      sliceS: 0.5,
      warmS: 0.25,
      targets: [
        { id: 'a', url: a.url, rate: 40, connections: 2 },
        { id: 'b', url: b.url, rate: 40, connections: 2 },
      ],
    });
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

test('open loop: requests keep leaving while every earlier answer is held', async () => {
  // The server answers nothing until the first HELD requests (due over the first 290 ms) have all
  // arrived. A generator that waited for an answer before sending on would never get there, and its
  // requests would time out. Counted, not timed: the generator sends from a thread of its own, and a
  // 300 ms timer here raced against its sends lost whenever the machine held this thread back
  // (6 of ~30 arrived in one run beside another test file, this thread's loop stalled ~250 ms).
  const HELD = 30;
  const held = [];
  let arrivedBeforeFirstAnswer = 0;
  let answered = 0;
  const answer = (res) => {
    answered += 1;
    res.end('{}');
  };
  const { server, url } = await serve((req, res) => {
    if (arrivedBeforeFirstAnswer > 0) return answer(res);
    held.push(res);
    if (held.length === HELD) {
      arrivedBeforeFirstAnswer = held.length;
      held.forEach(answer);
    }
  });
  try {
    const r = await run({ url, rate: 100, durationS: 1, connections: 64, raw: true });
    assert.equal(r.sent, 100);
    assert.equal(r.requests, 100, 'none timed out waiting');
    assert.equal(answered, 100);
    assert.equal(arrivedBeforeFirstAnswer, HELD, `${HELD} requests in flight at once, none answered`);
    assert.ok(Math.min(...r.lags) >= 0, 'no request leaves before its intended time');
    // The first request waited for the HELD-th, meant to leave 290 ms after it: its latency, counted
    // from its intended send, can be no less.
    const waited = ((HELD - 1) * 1000) / 100;
    assert.ok(Math.max(...r.latencies) >= waited, `the first request held ${Math.max(...r.latencies)} ms`);
  } finally {
    server.close();
  }
});

test(
  'latency counts from the intended send: a server stalled 200 ms charges every request due meanwhile',
  async (t) => {
    // The server in its own process, so that the generator keeps its schedule while the server stalls.
    const code = `
    import http from 'node:http';
    let n = 0;
    const server = http.createServer((req, res) => {
      n += 1;
      if (n === 50) { const until = Date.now() + 200; while (Date.now() < until) {} }
      res.end('{}');
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
    setTimeout(() => process.exit(0), 20000).unref();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.after(() => child.kill());
    const [line] = await once(child.stdout, 'data');
    const url = `http://127.0.0.1:${String(line).trim()}/`;
    const r = await run({ url, rate: 100, durationS: 1.5, connections: 2, raw: true });
    assert.equal(r.requests, 150);
    assert.equal(r.non2xx + r.socketErrors, 0);
    assert.ok(r.latencyMs.max >= 180, `the request the stall hit: ${r.latencyMs.max} ms`);
    // ~20 requests were due during the stall, the first ten of them at least 100 ms before it ended.
    // A generator that waited for answers (closed loop) on 2 connections would show 2 slow requests.
    const slow = r.latencies.filter((ms) => ms >= 100).length;
    assert.ok(slow >= 8, `${slow} requests of 100 ms or more`);
  },
);

test(
  'failures are counted by kind, not thrown: a timeout, a connection cut mid-answer, an answer that is not HTTP',
  async () => {
    const silent = await serveRaw(() => {});
    const cut = await serveRaw((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"cut'));
    const garbage = await serveRaw((socket) => socket.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    try {
      const t = await run({ url: silent.url, rate: 20, durationS: 0.5, timeoutS: 0.2 });
      assert.equal(t.socketErrors, 10);
      assert.equal(t.socketErrorDetail.timeout, 10);
      const c = await run({ url: cut.url, rate: 20, durationS: 0.5 });
      assert.equal(c.socketErrors, 10);
      assert.equal(c.requests, 0);
      const g = await run({ url: garbage.url, rate: 20, durationS: 0.5 });
      assert.equal(g.socketErrorDetail['bad response'], 10);
    } finally {
      for (const s of [silent, cut, garbage]) s.server.close();
    }
  },
);

test('a safe request on a kept connection the server closed unanswered is sent again once; a POST is not', async () => {
  // The stale keep-alive race made certain: the server answers the first request of each connection
  // and closes the connection on the next one without a word.
  const { server, url } = await serveRaw((socket, n) => {
    if (n === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
    else socket.destroy();
  });
  try {
    const get = await run({ url, rate: 20, durationS: 0.5, connections: 1 });
    assert.equal(get.requests, 10, 'every GET answered, on a fresh connection where the kept one failed');
    assert.equal(get.retried, 9, 'and each resend counted');
    const post = await run({ url, rate: 20, durationS: 0.5, connections: 1, method: 'POST', body: '{}' });
    assert.equal(post.retried, 0, 'a POST may have been processed: never sent twice');
    assert.equal(post.requests + post.socketErrors, 10);
    assert.ok(post.socketErrors >= 4, `${post.socketErrors} POSTs failed on a closed connection`);
  } finally {
    server.close();
  }
});

test('POST with a JSON body, and a mix of requests taken in turn', async (t) => {
  const { seen, url } = await recording(t);
  const r = await run({ url, rate: 20, durationS: 0.5, method: 'POST', body: JSON.stringify({ a: 1 }) });
  assert.equal(r.requests, 10);
  assert.deepEqual(
    seen.map((x) => [x.method, x.url, x.type, x.body]),
    Array(10).fill(['POST', '/', 'application/json', '{"a":1}']),
  );
  seen.length = 0;
  const mix = await run({
    url,
    rate: 20,
    durationS: 0.5,
    connections: 1,
    requests: [
      { path: '/items?x=1' },
      {
        method: 'POST',
        path: '/items',
        body: '{"name":"é"}',
        headers: { 'content-type': 'application/json; charset=utf-8', Host: 'api.test' },
      },
    ],
  });
  assert.equal(mix.requests, 10);
  assert.deepEqual(
    seen.map((x) => [x.method, x.url, x.body]),
    Array.from({ length: 10 }, (_, i) => (i % 2 ? ['POST', '/items', '{"name":"é"}'] : ['GET', '/items?x=1', ''])),
  );
  assert.equal(seen[1].type, 'application/json; charset=utf-8', 'a content type given is kept');
  assert.equal(seen[1].host, 'api.test', "and a Host, in place of the url's");
  assert.equal(seen[0].host, new URL(url).host);
});

test('threads: each sends its share of the rate on connections of its own, and the shares add up', async (t) => {
  const { seen, url } = await recording(t);
  const r = await run({ url, rate: 100, durationS: 1, connections: 2, threads: 2, raw: true });
  assert.equal(r.threads, 2);
  assert.equal(r.sent, 100);
  assert.equal(r.requests, 100);
  assert.equal(r.latencies.length, 100);
  assert.equal(r.lags.length, 100);
  assert.deepEqual(
    countBy(seen.map((x) => x.port)),
    [50, 50],
    'two connections, one per thread, half the requests each',
  );
});

test('an agent keeps its connections open from one run to the next, in one thread or several', async (t) => {
  const { seen, url } = await recording(t);
  for (const threads of [1, 2]) {
    seen.length = 0;
    const agent = keepAliveAgent(2, { threads });
    try {
      for (let i = 0; i < 3; i += 1) assert.equal((await run({ url, rate: 40, durationS: 0.25, agent })).requests, 10);
    } finally {
      await agent.destroy();
    }
    assert.equal(seen.length, 30);
    // Opened as needed (one thread at this rate needs one), never one per run.
    const used = new Set(seen.map((x) => x.port)).size;
    assert.ok(used >= threads && used <= 2, `${threads} thread(s): 30 requests over ${used} connection(s)`);
  }
});

test('keepAlive false: every request on a connection of its own, closed after its answer', async (t) => {
  const { seen, url } = await recording(t);
  const r = await run({ url, rate: 20, durationS: 0.5, connections: 2, keepAlive: false });
  assert.equal(r.requests, 10);
  assert.equal(r.socketErrors, 0);
  assert.equal(new Set(seen.map((x) => x.port)).size, 10);
});
