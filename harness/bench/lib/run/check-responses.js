// Check a response is right before timing: a benchmark of 404s or error pages measures nothing.
import http from 'node:http';
import { WORKLOADS } from '../workloads/index.js';

export class VerifyError extends Error {}

// An app's own request (x-bench.requests): any 2xx, whatever its body.
const ANY_2XX = { custom: true };

/**
 * @param {string} url @param {string} workload
 * @param {{ timeoutMs?: number, attempts?: number,
 *   request?: { method: string, body?: string, headers?: Record<string, string> } | null }} [options]
 */
export async function verify(url, workload, { timeoutMs = 10000, attempts = 3, request = null } = {}) {
  const w = /** @type {Partial<import('../workloads/index.js').Workload>} */ (WORKLOADS[workload] ?? ANY_2XX);
  let lastError;
  for (let i = 0; i < attempts; i++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), ...(request ?? {}) });
      const text = await res.text();
      // An app's own request: any 2xx; a workload of the bench's (never a request of its own): a 200.
      if (w.custom ? !res.ok : res.status !== 200) {
        throw new VerifyError(`${request?.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 200)}`);
      }
      if (w.custom) return text;
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        throw new VerifyError(`GET ${url} did not answer JSON: ${text.slice(0, 200)}`);
      }
      if (!w.check(body)) throw new VerifyError(`GET ${url}: expected ${w.shape}, got ${text.slice(0, 200)}`);
      return body;
    } catch (e) {
      lastError = e instanceof VerifyError ? e
        : new VerifyError(`GET ${url} failed: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
      if (i + 1 < attempts) await new Promise((r) => setTimeout(r, 300));
    }
  }
  throw lastError;
}

/**
 * Waits until each of a topology's `processes` behind one port has answered (its own pid in the body
 * of GET /), each request on a connection of its own. A process manager that starts its processes
 * one after another (PM2 with wait_ready) is healthy as soon as the first answers; the connections
 * nginx opens then stay with that one (keepalive_requests 10000), and the topology would be measured
 * as one process. Bounded in requests and time; throws naming how many answered.
 */
export async function everyProcessServes(url, processes, { timeoutMs = 30_000, maxRequests = 2000 } = {}) {
  const seen = new Set();
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < maxRequests && Date.now() < deadline; i += 1) {
    try {
      const body = await getFresh(url);
      // An app that doesn't say its pid (a service of yours) can't be checked this way.
      if (body?.pid === undefined) return 0;
      if (body?.pid) seen.add(body.pid);
      if (seen.size >= processes) return seen.size;
    } catch { /* a process between restarts: ask again */ }
    if (i % 20 === 19) await new Promise((r) => setTimeout(r, 100));
  }
  throw new VerifyError(
    `only ${seen.size} of ${processes} processes answered GET ${url} within ${Math.round(timeoutMs / 1000)} s`);
}

// One GET on a new connection (no keep-alive: each may land on another process).
function getFresh(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close' }, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => { try { resolve(JSON.parse(text)); } catch { resolve({}); } });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}
