// The drills' open-loop schedule, run in the generator thread (load-thread.js) and nowhere else:
// request i leaves at t0 + i / rate whatever the server does, a deterministic share of them POSTs,
// and each answer is recorded against the time it was *meant* to leave, so a stall shows in the
// latency instead of hiding as fewer requests (coordinated omission). Each request also records
// how late it actually left (its send lag): the generator's own stall, which the drill judges
// before it publishes anything (judge/send-lag-bound.js). One keep-alive agent, as a browser or an HTTP
// client library would use. The client does what HTTP/1.1 clients do on a reused connection the
// server closed before answering (RFC 9112 §9.3.1): an idempotent request (GET) is sent again once
// on a fresh connection; a POST is not (the client can't know whether it was processed) and counts
// as failed. Retries are counted, not hidden. With `idPrefix`, each POST carries an id of its own
// (the prefix and a counter, in place of `{id}` in its body), so what the store kept can be counted.
// Nothing here may block: the thread runs only this (a test walks its imports).
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const STALE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Whether request number i (0-based) of a run is a POST, spreading `share` evenly. */
export function isPost(i, share) {
  return share > 0 && Math.floor((i + 1) * share) > Math.floor(i * share);
}

/** The id of POST number n (1-based) of a load whose ids start with `prefix`. */
export const postId = (prefix, n) => `${prefix}${n}`;

/**
 * @param {any} agent @param {URL} url
 * @param {{ method: string, body?: string, contentType?: string }} spec @param {number} timeoutMs
 * @returns {Promise<{ status?: number, error?: string, reused?: boolean, answered?: boolean }>}
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

/**
 * Starts the schedule at `t0` (performance.now() of this thread). `mix` = { get: '/path',
 * post: { path, body, contentType }, postShare }. Returns { stop() -> Promise<records> }: stop()
 * ends the schedule, waits for the requests in flight (each bounded by timeoutMs) and returns one
 * record per request: { method, at (ms after t0 it was meant to leave), lagMs (how late it left),
 * latencyMs (from `at` to its answer), status?, error?, retried, id? }.
 * @param {{ url: string, rate: number, mix: any, idPrefix?: string, timeoutMs?: number, maxSockets?: number,
 *   t0: number }} options
 */
export function runSchedule({ url, rate, mix, idPrefix, timeoutMs = 10_000, maxSockets = 64, t0 }) {
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const getUrl = new URL(mix.get, base);
  const post = mix.post && { ...mix.post, url: new URL(mix.post.path, base) };
  const share = post ? (mix.postShare ?? 0) : 0;
  const records = [];
  const inFlight = new Set();
  let sent = 0;
  let posts = 0;
  let stopped = false;
  let timer;

  async function one(i) {
    const at = i * (1000 / rate);
    const lagMs = performance.now() - t0 - at;
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
      lagMs,
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
  // a connection before reusing it. The timer is set for the next request's own time.
  function tick() {
    setImmediate(() => {
      dispatch();
      if (!stopped) timer = setTimeout(tick, Math.max(0, t0 + (sent * 1000) / rate - performance.now()));
    });
  }
  timer = setTimeout(tick, Math.max(0, t0 - performance.now()));

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...inFlight]);
      agent.destroy();
      return records.sort((a, b) => a.at - b.at);
    },
  };
}
