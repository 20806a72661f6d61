// One thread's share of a paced window: of the schedule "request i leaves at start + i / rate", the
// requests first, first + stride, first + 2·stride, … (every one with one thread), each sent on a
// pool (http1-pool.js) and timed from its intended send.
import { performance } from 'node:perf_hooks';

// Node's timers fire up to a millisecond or more after their time, and from the intended send that
// lateness counts as the server's: against a bare node:http server on its own CPU, 1,000 req/s
// timed by setTimeout gave a p50 of 1.0–1.2 ms, polled with setImmediate 0.2–0.3 ms (hand run,
// 2026-11-25). So within SPIN_MS of the next send the loop polls (I/O is still served between
// polls); it spends its CPU, which is the generator's own.
const SPIN_MS = 2;

/**
 * Sends this thread's requests of the window on `pool`; `shapes[i % shapes.length]` is request i.
 * `start` is performance.now() of the window's start in this thread. Resolves when every request
 * has an answer or failed: { sent, requests, non2xx, socketErrors, errorKinds, retried, endMs (the
 * last answer, ms after start), latencies, lags } — latencies (ms from the intended send, in the
 * order answers came) and lags (ms each request left after its intended time) as Float64Arrays.
 */
export function pacedWindow({ pool, shapes, rate, durationS, start, first = 0, stride = 1 }) {
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
