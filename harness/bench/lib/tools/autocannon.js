// autocannon (Node, in-process): closed loop, or paced per connection with overallRate.
import { GeneratorError } from './errors.js';
import autocannon from 'autocannon';
import { createRequire } from 'node:module';

export function normalise(r) {
  return {
    requests: r.requests.total,
    durationS: r.duration,
    rps: r.duration > 0 ? r.requests.total / r.duration : 0,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    // non2xx in autocannon is any status outside 2xx (3xx included).
    non2xx: r.non2xx,
    socketErrors: r.errors, // errors includes timeouts
    socketErrorDetail: { errors: r.errors, timeouts: r.timeouts, resets: r.resets ?? 0 },
  };
}

// threads > 1 runs autocannon's worker threads, one per CPU the generator is pinned to; its rate
// and amount are then per worker.
// onResponse(statusCode, ms) is called for each answer, in the order they arrive (one worker only).
export async function run({
  url, connections, durationS, amount, rate, timeoutS = 10, threads = 1, keepAlive = true, onResponse, request = null,
}) {
  const workers = Math.max(1, Math.min(threads, connections));
  const opts = { url, connections, timeout: timeoutS, pipelining: 1 };
  if (workers > 1) opts.workers = workers;
  if (amount) opts.amount = Math.ceil(amount / workers); else opts.duration = durationS;
  if (rate) opts.overallRate = rate / workers;
  if (!keepAlive) opts.headers = { connection: 'close' };
  if (request) {
    const headers = { ...opts.headers, ...request.headers };
    Object.assign(opts, { method: request.method, body: request.body, headers });
  }
  const instance = autocannon(opts);
  if (onResponse && workers === 1) {
    instance.on('response', (client, statusCode, bytes, ms) => onResponse(statusCode, ms));
  }
  try {
    return { tool: 'autocannon', ...normalise(await instance) };
  } catch (e) {
    throw new GeneratorError(`autocannon failed: ${e.message}`);
  }
}

export async function version() {
  return createRequire(import.meta.url)('autocannon/package.json').version;
}
