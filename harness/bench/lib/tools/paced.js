// A paced open-loop generator for latency at a fixed rate: request i leaves at start + i / rate
// whether or not earlier ones came back, and its latency counts from that intended time, so a stall
// of the server is charged to every request it delayed (no coordinated omission, as wrk2's -R).
// Why not a packaged one: wrk2 isn't packaged here, autocannon's rate mode spends a per-second
// budget as fast as it can (a burst at saturation at the top of every second), and loadtest
// reports whole milliseconds.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { GeneratorError } from './errors.js';

// Node's timers fire up to a millisecond or more after their time, and from the intended send that
// lateness counts as the server's: against a bare node:http server on its own CPU, 1,000 req/s
// timed by setTimeout gave a p50 of 1.0–1.2 ms, polled with setImmediate 0.2–0.3 ms (hand run,
// 2026-11-25). So within SPIN_MS of the next send the loop polls (I/O is still served between
// polls); it spends its CPU, which is the generator's own.
const SPIN_MS = 2;

const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : null);

/** Latency percentiles (ms, 0.01 ms resolution) of a list of latencies. */
export function latencySummary(latencies) {
  const s = [...latencies].sort((a, b) => a - b);
  const r = (x) => (x === null ? null : Math.round(x * 100) / 100);
  return { p50: r(percentile(s, 0.5)), p90: r(percentile(s, 0.9)), p99: r(percentile(s, 0.99)), max: r(s.at(-1) ?? null) };
}

/** A keep-alive agent for run(): pass one to keep the sockets open from one window to the next. */
export const keepAliveAgent = (connections = 64) => new http.Agent({ keepAlive: true, maxSockets: connections });

/**
 * GETs `url` at `rate` per second for durationS, over up to `connections` keep-alive sockets (or
 * the caller's `agent`, left open). Returns { tool, requests, durationS, rps, latencyMs, sendLagMs
 * (how late the sends left), non2xx, socketErrors, sent } and, with `raw`, the latencies and lags
 * themselves (ms) to pool with other windows.
 */
export async function run({ url, rate, durationS, connections = 64, timeoutS = 5, agent: shared = null, raw = false }) {
  if (!(rate > 0) || !(durationS > 0)) throw new GeneratorError(`paced: rate and duration must be positive (rate ${rate}, ${durationS} s)`);
  const agent = shared ?? keepAliveAgent(connections);
  const total = Math.round(rate * durationS);
  const latencies = [];
  const lags = []; // how late each request left against its intended time (ms): the generator's own delay
  let non2xx = 0;
  let socketErrors = 0;
  let sent = 0;
  let pending = 0;
  let lastDone = 0;
  let wake = null;
  const start = performance.now();
  const send = (intended) => {
    lags.push(performance.now() - intended);
    pending += 1;
    let finished = false;
    const done = (ok, status) => {
      if (finished) return;
      finished = true;
      pending -= 1;
      lastDone = performance.now();
      if (ok) { latencies.push(lastDone - intended); if (status < 200 || status > 299) non2xx += 1; } else socketErrors += 1;
      if (pending === 0 && sent === total) wake?.();
    };
    const req = http.get(url, { agent, timeout: timeoutS * 1000 }, (res) => {
      res.on('error', () => done(false));
      res.on('end', () => done(true, res.statusCode));
      res.resume();
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done(false));
  };
  try {
    await new Promise((resolve) => {
      wake = resolve;
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
        while (sent < due) { send(start + (sent * 1000) / rate); sent += 1; }
        const wait = start + (sent * 1000) / rate - performance.now();
        if (sent < total) { if (wait > SPIN_MS) setTimeout(tick, wait - SPIN_MS); else setImmediate(tick); } else if (pending === 0) resolve();
      };
      tick();
    });
  } finally {
    if (!shared) agent.destroy();
  }
  const elapsedS = (Math.max(lastDone, start + (total * 1000) / rate) - start) / 1000;
  return {
    tool: 'paced',
    requests: latencies.length,
    durationS: elapsedS,
    rps: latencies.length / elapsedS,
    latencyMs: latencySummary(latencies),
    sendLagMs: latencySummary(lags),
    non2xx,
    socketErrors,
    socketErrorDetail: { errors: socketErrors },
    sent,
    ...(raw ? { latencies, lags } : {}),
  };
}

export async function version() {
  return `node ${process.versions.node}`;
}
