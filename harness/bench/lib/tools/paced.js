// A paced open-loop generator for latency at a fixed rate: request i leaves at start + i / rate
// whether or not earlier ones came back, and its latency counts from that intended time, so a stall
// of the server is charged to every request it delayed (no coordinated omission, as wrk2's -R).
// Why not a packaged one: wrk2 isn't packaged here, autocannon's rate mode spends a per-second
// budget as fast as it can (a burst at saturation at the top of every second), and loadtest
// reports whole milliseconds. Why its own HTTP/1.1 client on `net` sockets rather than node:http or
// undici: it costs a fraction of their CPU per request (harness/bench/README.md, "The paced generator").
// It sends from threads of its own (paced-worker.js), never from the caller's, and records how late
// each request left (its send lag): a window whose generator was late measured the generator.
import { performance } from 'node:perf_hooks';
import { GeneratorError } from './errors.js';
import { requestShapes } from './http1-pool.js';
import { generatorThread } from './generator-heap.js';
import { percentiles } from '../judge/stats.js';

/** Latency percentiles (ms, 0.01 ms resolution) of a list of latencies (an array or a typed array). */
export const latencySummary = (latencies) => percentiles(Float64Array.from(latencies).sort(), 2);

// A window starts this long after it is asked for, so that every thread has its message by then.
const START_MARGIN_MS = 5;

/**
 * Keeps connections open from one run() to the next: pass it as `agent` (and destroy() it after).
 * Its generator threads (paced-worker.js, `threads` of them) send and time every request, each with
 * its share of the connections; the thread that calls run() sends nothing, so whatever else it does
 * — a blocking call, a long loop — can't make a request leave late.
 */
class ThreadAgent {
  constructor(connections, threads) {
    this.calls = new Map();
    this.nextId = 0;
    this.failed = null;
    const script = new URL('./paced-worker.js', import.meta.url);
    const workerData = { connections: Math.max(1, Math.ceil(connections / threads)) };
    this.workers = Array.from({ length: threads }, () => generatorThread(script, { workerData }));
    this.ready = Promise.all(this.workers.map((w) => new Promise((resolve, reject) => {
      w.on('message', (m) => {
        if (m.ready) return resolve(undefined);
        const call = this.calls.get(m.id);
        this.calls.delete(m.id);
        if (m.error) call?.reject(new GeneratorError(`paced: a generator thread failed: ${m.error}`));
        else call?.resolve(m.result);
      });
      w.on('error', (err) => {
        const why = err instanceof Error ? err.message : String(err);
        this.fail(new GeneratorError(`paced: a generator thread crashed: ${why}`), reject);
      });
      w.on('exit', (code) => {
        if (!this.destroyed) this.fail(new GeneratorError(`paced: a generator thread exited (${code})`), reject);
      });
    })));
    this.ready.catch(() => {}); // awaited by the first window; an early failure must not go unhandled meanwhile
  }

  fail(err, reject) {
    this.failed ??= err;
    reject(err);
    for (const call of this.calls.values()) call.reject(err);
    this.calls.clear();
  }

  /** One window: thread k sends requests k, k + threads, …; resolves with each thread's result. */
  async window(message) {
    await this.ready;
    if (this.failed) throw this.failed;
    const startEpochMs = performance.timeOrigin + performance.now() + START_MARGIN_MS;
    return Promise.all(this.workers.map((w, k) => new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.calls.set(id, { resolve, reject });
      w.postMessage({ ...message, startEpochMs, id, first: k, stride: this.workers.length });
    })));
  }

  destroy() {
    this.destroyed = true;
    return Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export const keepAliveAgent = (connections = 64, { threads = 1 } = {}) => new ThreadAgent(connections, threads);

function options({ url, rate, durationS, connections, threads, method, body, headers, requests }) {
  if (!(rate > 0) || !(durationS > 0)) {
    throw new GeneratorError(`paced: rate and duration must be positive (rate ${rate}, ${durationS} s)`);
  }
  for (const [name, n] of Object.entries({ connections, threads })) {
    if (!(Number.isInteger(n) && n > 0)) {
      throw new GeneratorError(`paced: ${name} must be a positive whole number (got ${n})`);
    }
  }
  let target;
  try { target = new URL(url); } catch { throw new GeneratorError(`paced: not a URL: ${url}`); }
  if (target.protocol !== 'http:') throw new GeneratorError(`paced: only http:// URLs (got ${target.protocol})`);
  const list = requests ?? [{ method, body, headers }];
  if (!Array.isArray(list) || list.length === 0) {
    throw new GeneratorError('paced: requests must be a non-empty list of { method, path, body, headers }');
  }
  try { requestShapes(target, list); } catch (err) { throw new GeneratorError(`paced: ${err.message}`); }
  return { target, list };
}

/**
 * Sends `rate` requests per second to `url` for durationS over up to `connections` keep-alive
 * connections (or the caller's `agent`, left open), from `threads` generator threads that each send
 * rate / threads. Every request is a GET of the url, or `method` with `body` (a string, JSON by
 * default) and `headers`; or request i is requests[i % requests.length], each
 * { method, path, body, headers }. Returns { tool, requests, durationS, rps, latencyMs, sendLagMs
 * (how late the sends left), non2xx, socketErrors, socketErrorDetail, sent, retried } and, with
 * `raw`, the latencies and lags themselves (ms) to pool with other windows.
 * @typedef {{ method?: string, path?: string, body?: string, headers?: Record<string, string> }} RequestSpec
 * @param {{ url: string, rate: number, durationS: number, connections?: number, timeoutS?: number,
 *   agent?: ThreadAgent | null, raw?: boolean, threads?: number, method?: string, body?: string,
 *   headers?: Record<string, string>, requests?: RequestSpec[], keepAlive?: boolean }} options
 */
export async function run({
  url, rate, durationS, connections = 64, timeoutS = 5, agent: shared = null, raw = false, threads = 1, method = 'GET',
  body, headers, requests, keepAlive = true,
}) {
  const { target, list } = options({ url, rate, durationS, connections, threads, method, body, headers, requests });
  const agent = shared ?? keepAliveAgent(connections, { threads });
  const timeoutMs = timeoutS * 1000;
  let parts;
  try {
    parts = await agent.window({ url: target.href, requests: list, keepAlive, timeoutMs, rate, durationS });
  } finally {
    if (!shared) await agent.destroy();
  }
  return merge(parts, raw);
}

/** One result from each thread's part of the window. */
function merge(parts, raw) {
  const sum = (k) => parts.reduce((s, p) => s + p[k], 0);
  const latencies = parts.flatMap((p) => Array.from(p.latencies));
  const lags = parts.flatMap((p) => Array.from(p.lags));
  const requests = sum('requests');
  const socketErrors = sum('socketErrors');
  /** @type {Record<string, number>} */
  const kinds = {};
  for (const p of parts) for (const [k, n] of Object.entries(p.errorKinds)) kinds[k] = (kinds[k] ?? 0) + n;
  const durationS = Math.max(...parts.map((p) => p.endMs)) / 1000;
  return {
    tool: 'paced',
    requests,
    durationS,
    rps: requests / durationS,
    latencyMs: latencySummary(latencies),
    sendLagMs: latencySummary(lags),
    non2xx: sum('non2xx'),
    socketErrors,
    socketErrorDetail: /** @type {Record<string, number>} */ ({ errors: socketErrors, ...kinds }),
    sent: sum('sent'),
    retried: sum('retried'),
    threads: parts.length,
    ...(raw ? { latencies, lags } : {}),
  };
}

export async function version() {
  return `paced (node ${process.versions.node}, HTTP/1.1 on net sockets)`;
}
