// Open-loop load for the drills: load-schedule.js's fixed schedule (each request timed from when it
// was meant to leave, and how late it left), sent from a thread of its own (load-thread.js says
// why). The summaries below are what a drill keeps of the records.
import { performance } from 'node:perf_hooks';
import { generatorThread } from '../tools/generator-heap.js';
import { percentiles } from '../judge/stats.js';

/**
 * Starts the load in its own thread; resolves once its schedule has started. `mix` = { get: '/path',
 * post: { path, body, contentType }, postShare }. Returns { now(), startedAt, stop() -> Promise<records> }:
 * now() is ms since the schedule's start (the clock every record's `at` uses), startedAt when that
 * was (epoch ms); stop() ends the schedule and returns its records (load-schedule.js runSchedule).
 * @param {{ url: string, rate: number, mix: any, idPrefix?: string }} options
 * @returns {Promise<{ now: () => number, startedAt: number, stop: () => Promise<any[]> }>}
 */
export async function startLoad({ url, rate, mix, idPrefix }) {
  if (!(rate > 0)) throw new Error(`rate must be a positive number of requests per second (got ${rate})`);
  new URL(url); // a bad URL throws here, not in the thread
  const worker = generatorThread(new URL('./load-thread.js', import.meta.url), {
    workerData: { url, rate, mix, idPrefix },
  });
  const ended = new Promise((resolve, reject) => {
    worker.once('error', reject);
    const early = (code) => new Error(`the drill's generator thread exited (${code}) before its records`);
    worker.once('exit', (code) => reject(early(code)));
    worker.on('message', (m) => { if (m.records) resolve(m.records); });
  });
  ended.catch(() => {}); // awaited by stop(); an early failure must not go unhandled meanwhile
  const started = await Promise.race([
    new Promise((resolve) => worker.on('message', (m) => { if (m.started) resolve(m.started); })),
    ended.then(() => { throw new Error("the drill's generator thread ended before it started"); }),
  ]);
  const origin = started - performance.timeOrigin; // the schedule's start on this thread's clock
  return {
    now: () => performance.now() - origin,
    startedAt: Math.round(started),
    async stop() {
      worker.postMessage('stop');
      try {
        return await ended;
      } finally {
        await worker.terminate();
      }
    },
  };
}

export const failed = (r) => r.error !== undefined || !(r.status >= 200 && r.status < 300);

/**
 * Latency of every answered request (5xx included), as wrk and autocannon count it; a refused
 * connection or a timeout has no answer, and is counted as failed instead: { p50, p90, p99, max } (ms).
 */
export function latencyOf(records) {
  const lat = records.filter((r) => r.status !== undefined).map((r) => r.latencyMs);
  return percentiles(lat.sort((a, b) => a - b), 1);
}

/** How late the generator sent the requests (ms after their intended send): { p50, p99, max }. */
export function sendLagOf(records) {
  const { p50, p99, max } = percentiles(records.map((r) => r.lagMs).filter(Number.isFinite).sort((a, b) => a - b), 1);
  return { p50, p99, max };
}

/**
 * { get: { requests, failed, retried, errors }, post: {...}, latencyMs: { p50, p90, p99, max },
 * sendLagMs: { p50, p99, max } }
 */
export function summarise(records) {
  const byMethod = (method) => {
    const rs = records.filter((r) => r.method === method);
    const bad = rs.filter(failed);
    const byError = Object.groupBy(bad, (r) => r.error ?? `HTTP ${r.status}`);
    const errors = Object.fromEntries(Object.entries(byError).map(([key, them]) => [key, them.length]));
    return { requests: rs.length, failed: bad.length, retried: rs.filter((r) => r.retried).length, errors };
  };
  return { get: byMethod('GET'), post: byMethod('POST'), latencyMs: latencyOf(records), sendLagMs: sendLagOf(records) };
}
