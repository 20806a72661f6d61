// A generator thread of paced.js: its own keep-alive connections (a pool per server, http1-pool.js)
// and its share of each window's schedule, sent when the main thread asks and answered with what it
// measured. Of the schedule "request i leaves at start + i / rate" it sends the requests first,
// first + stride, first + 2·stride, … (every one with one thread), each timed from its intended send.
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Http1Pool, requestShapes } from './http1-pool.js';

// Node's timers fire up to a millisecond or more after their time, and from the intended send that
// lateness counts as the server's: against a bare node:http server on its own CPU, 1,000 req/s
// timed by setTimeout gave a p50 of 1.0–1.2 ms, polled with setImmediate 0.2–0.3 ms (hand run,
// 2026-11-25). So within SPIN_MS of the next send the loop polls (I/O is still served between
// polls); it spends its CPU, which is the generator's own.
const SPIN_MS = 2;

/** @type {Map<string, Http1Pool>} Up to workerData.connections keep-alive connections per server. */
const pools = new Map();

function poolFor(url) {
  if (!pools.has(url.host)) {
    const server = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 80) };
    pools.set(url.host, new Http1Pool(server, workerData.connections));
  }
  return pools.get(url.host);
}

/**
 * Sends this thread's requests of the window on `pool`; `shapes[i % shapes.length]` is request i.
 * `start` is performance.now() of the window's start in this thread. Resolves when every request
 * has an answer or failed: { sent, requests, non2xx, socketErrors, errorKinds, retried, endMs (the
 * last answer, ms after start), latencies, lags } — latencies (ms from the intended send, in the
 * order answers came) and lags (ms each request left after its intended time) as Float64Arrays.
 */
function pacedWindow({ pool, shapes, rate, durationS, start, first, stride }) {
  const total = Math.round(rate * durationS);
  const mine = total > first ? Math.ceil((total - first) / stride) : 0;
  const interval = 1000 / rate;
  const latencies = new Float64Array(mine);
  const lags = new Float64Array(mine);
  const errorKinds = {};
  const retriesBefore = pool.retries;
  let answered = 0;
  let sent = 0;
  let requests = 0;
  let non2xx = 0;
  let socketErrors = 0;
  let lastDone = start;
  let next = first;
  return new Promise((resolve) => {
    const finish = () => resolve({
      sent, requests, non2xx, socketErrors, errorKinds, retried: pool.retries - retriesBefore,
      endMs: Math.max(lastDone - start, total * interval), latencies: latencies.subarray(0, requests), lags,
    });
    const done = (intended, status, error) => {
      lastDone = performance.now();
      answered += 1;
      if (status > 0) {
        latencies[requests] = lastDone - intended;
        requests += 1;
        if (status < 200 || status > 299) non2xx += 1;
      } else {
        socketErrors += 1;
        errorKinds[error] = (errorKinds[error] ?? 0) + 1;
      }
      if (answered === mine && sent === mine) finish();
    };
    const tick = () => {
      const now = performance.now();
      while (sent < mine && start + next * interval <= now) {
        const intended = start + next * interval;
        lags[sent] = performance.now() - intended;
        sent += 1;
        pool.send(shapes[next % shapes.length], intended, done);
        next += stride;
      }
      if (sent < mine) {
        const wait = start + next * interval - performance.now();
        if (wait > SPIN_MS) setTimeout(tick, wait - SPIN_MS); else setImmediate(tick);
      } else if (answered === mine) finish();
    };
    tick();
  });
}

parentPort.on('message', async (message) => {
  const { id, url, requests, keepAlive, timeoutMs, rate, durationS, startEpochMs, first, stride } = message;
  try {
    const target = new URL(url);
    const pool = poolFor(target);
    pool.timeoutMs = timeoutMs;
    const r = await pacedWindow({
      pool, shapes: requestShapes(target, requests, keepAlive),
      rate, durationS, start: startEpochMs - performance.timeOrigin, first, stride,
    });
    const latencies = r.latencies.slice(); // its own buffer, to hand over without a copy
    parentPort.postMessage({ id, result: { ...r, latencies } }, [latencies.buffer, r.lags.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: err.message });
  }
});
parentPort.postMessage({ ready: true });
