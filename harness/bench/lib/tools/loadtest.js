// loadtest (Node, in-process): the tutorials' tool. With requestsPerSecond it is open loop:
// it sends on a timer whether or not earlier responses came back.
import { GeneratorError } from './errors.js';
import { loadTest } from 'loadtest';
import { createRequire } from 'node:module';

const pick = (v) => (v === false || v === undefined ? null : v);

export function normalise(r) {
  const codes = r.errorCodes || {};
  // errorCodes holds HTTP statuses (>= 400) and error names (e.g. ECONNREFUSED, -1 for timeout).
  const count = (statuses) => Object.entries(codes)
    .reduce((sum, [code, n]) => sum + (/^\d{3}$/.test(code) === statuses ? n : 0), 0);
  const p = r.percentiles || {};
  return {
    requests: r.totalRequests,
    durationS: r.elapsedSeconds,
    rps: r.elapsedSeconds > 0 ? r.totalRequests / r.elapsedSeconds : 0,
    latencyMs: { p50: pick(p[50]), p90: pick(p[90]), p95: pick(p[95]), p99: pick(p[99]), max: r.maxLatencyMs },
    non2xx: count(true),
    socketErrors: count(false),
    socketErrorDetail: codes,
  };
}

// keepAlive false is loadtest's default ("Agent: none": a new connection per request).
// onError(kind) is called for each failed request: an HTTP status, or the socket error's code.
export async function run({ url, connections, durationS, amount, rate, timeoutS = 10, keepAlive = true, onError }) {
  // Without a statusCallback loadtest records an HTTP error (e.g. 502) as '-1', like a socket error.
  const statusCallback = (error, result) => {
    if (error && onError) {
      onError(result?.statusCode ? String(result.statusCode) : (error.code ?? error.message ?? 'unknown'));
    }
  };
  const opts = {
    url, concurrency: connections, agentKeepAlive: keepAlive, quiet: true, timeout: timeoutS * 1000, statusCallback,
  };
  if (amount) opts.maxRequests = amount; else opts.maxSeconds = durationS;
  if (rate) opts.requestsPerSecond = rate;
  try {
    // loadtest's index.d.ts still declares only the callback form; without one it returns a promise.
    const result = await /** @type {Function} */ (loadTest)(opts);
    return { tool: 'loadtest', ...normalise(result) };
  } catch (e) {
    throw new GeneratorError(`loadtest failed: ${e.message}`);
  }
}

export async function version() {
  return createRequire(import.meta.url)('loadtest/package.json').version;
}
