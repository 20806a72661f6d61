// Open-loop load for the drills: requests leave on a fixed schedule (`rate` per second) whatever
// the server does, a deterministic share of them POSTs, and each answer is recorded against the
// time it was *meant* to leave, so a stall shows in the latency instead of hiding as fewer
// requests (coordinated omission). One keep-alive agent, as a browser or an HTTP client library
// would use. The client does what HTTP/1.1 clients do on a reused connection the server closed
// before answering (RFC 9112 §9.3.1): an idempotent request (GET) is sent again once on a fresh
// connection; a POST is not (the client can't know whether it was processed) and counts as failed.
// Retries are counted, not hidden. With `idPrefix`, each POST carries an id of its own (the prefix
// and a counter, in place of `{id}` in its body), so what the store kept can be counted afterwards.
import http from 'node:http';

const STALE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Whether request number i (0-based) of a run is a POST, spreading `share` evenly. */
export function isPost(i, share) {
  return share > 0 && Math.floor((i + 1) * share) > Math.floor(i * share);
}

/**
 * @param {any} agent @param {string} url
 * @param {{ method: string, body?: string, contentType?: string }} spec @param {number} timeoutMs
 */
function send(agent, url, { method, body, contentType }, timeoutMs) {
  // agent false: a fresh connection of its own (the retry of a request a stale connection lost).
  return new Promise((resolve) => {
    const headers =
      body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
    const req = http.request(url, { method, agent, headers, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode }));
      res.once('error', (/** @type {NodeJS.ErrnoException} */ err) =>
        resolve({ error: err.code ?? err.message, answered: true }),
      );
    });
    req.once('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.once('error', (/** @type {NodeJS.ErrnoException} */ err) =>
      resolve({ error: err.code ?? err.message, reused: req.reusedSocket }),
    );
    req.end(body);
  });
}

/** The id of POST number n (1-based) of a load whose ids start with `prefix`. */
export const postId = (prefix, n) => `${prefix}${n}`;

/**
 * Starts the load at once. `mix` = { get: '/path', post: { path, body, contentType }, postShare }.
 * Returns { stop() -> Promise<records>, since(ms) }: stop() ends the schedule, waits for the
 * requests in flight (each bounded by timeoutMs) and returns one record per request:
 * { method, at (ms after start it was meant to leave), latencyMs, status?, error?, retried, id? }.
 * @param {{ url: string, rate: number, mix: any, idPrefix?: string, timeoutMs?: number, maxSockets?: number }} options
 */
export function startLoad({ url, rate, mix, idPrefix, timeoutMs = 10_000, maxSockets = 64 }) {
  if (!(rate > 0)) throw new Error(`rate must be a positive number of requests per second (got ${rate})`);
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const getUrl = new URL(mix.get, base);
  const post = mix.post && { ...mix.post, url: new URL(mix.post.path, base) };
  const share = post ? (mix.postShare ?? 0) : 0;
  const records = [];
  const inFlight = new Set();
  const t0 = performance.now();
  const startedAt = Date.now();
  let sent = 0;
  let posts = 0;
  let stopped = false;
  let timer;

  async function one(i) {
    const at = i * (1000 / rate);
    const asPost = isPost(i, share);
    const target = asPost ? post.url : getUrl;
    const id = asPost && idPrefix !== undefined ? postId(idPrefix, ++posts) : undefined;
    const body = id === undefined ? post?.body : post.body.replaceAll('{id}', id);
    const spec = asPost
      ? { method: 'POST', body, contentType: post.contentType ?? 'application/json' }
      : { method: 'GET' };
    let result = await send(agent, target, spec, timeoutMs);
    let retried = false;
    if (!asPost && result.reused && STALE.has(result.error)) {
      retried = true;
      result = await send(false, target, spec, timeoutMs);
    }
    records.push({
      method: spec.method,
      at,
      latencyMs: performance.now() - t0 - at,
      status: result.status,
      error: result.error,
      retried,
      ...(id === undefined ? {} : { id }),
    });
  }

  function dispatch() {
    const due = Math.floor(((performance.now() - t0) * rate) / 1000) + 1;
    while (!stopped && sent < due) {
      const p = one(sent);
      sent += 1;
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
    }
  }
  // Requests leave from the check phase, right after the event loop has read pending I/O: a pooled
  // connection the server has just closed is out of the pool by then, as a careful client checks
  // a connection before reusing it.
  function tick() {
    setImmediate(dispatch);
    if (!stopped) timer = setTimeout(tick, Math.max(1, Math.min(10, 1000 / rate)));
  }
  tick();

  return {
    /** ms since the load started (the clock every record's `at` uses), and when that was (epoch ms). */
    now: () => performance.now() - t0,
    startedAt,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...inFlight]);
      agent.destroy();
      return records.sort((a, b) => a.at - b.at);
    },
  };
}

export const failed = (r) => r.error !== undefined || !(r.status >= 200 && r.status < 300);

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round1 = (x) => (x === null ? null : Math.round(x * 10) / 10);

/** { get: { requests, failed, retried, errors }, post: {...}, latencyMs: { p50, p90, p99, max } } */
export function summarise(records) {
  const byMethod = (method) => {
    const rs = records.filter((r) => r.method === method);
    const bad = rs.filter(failed);
    const errors = {};
    for (const r of bad) {
      const key = r.error ?? `HTTP ${r.status}`;
      errors[key] = (errors[key] ?? 0) + 1;
    }
    return { requests: rs.length, failed: bad.length, retried: rs.filter((r) => r.retried).length, errors };
  };
  // Latency of every answered request (5xx included), as wrk and autocannon count it; a refused
  // connection or a timeout has no answer, and is counted as failed instead.
  const lat = records
    .filter((r) => r.status !== undefined)
    .map((r) => r.latencyMs)
    .sort((a, b) => a - b);
  return {
    get: byMethod('GET'),
    post: byMethod('POST'),
    latencyMs: {
      p50: round1(percentile(lat, 50)),
      p90: round1(percentile(lat, 90)),
      p99: round1(percentile(lat, 99)),
      max: round1(lat.at(-1) ?? null),
    },
  };
}
