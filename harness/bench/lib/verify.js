// Check a response is right before timing: a benchmark of 404s or error pages measures nothing.
import { WORKLOADS } from './workloads.js';

export class VerifyError extends Error {}

export async function verify(url, workload, { timeoutMs = 10000, attempts = 3 } = {}) {
  const w = WORKLOADS[workload];
  if (!w) throw new VerifyError(`unknown workload "${workload}"`);
  let lastError;
  for (let i = 0; i < attempts; i++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      if (res.status !== 200) throw new VerifyError(`GET ${url} answered ${res.status}: ${text.slice(0, 200)}`);
      let body;
      try { body = JSON.parse(text); } catch { throw new VerifyError(`GET ${url} did not answer JSON: ${text.slice(0, 200)}`); }
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
