// Prometheus metrics of one serving process, through prom-client: every request by route, method
// and status with its latency (one histogram; its _count is the request counter), the event loop's
// active and idle time (its utilization over any window: rate of active ÷ rate of both) and delay,
// and prom-client's process metrics (CPU, memory, heap, GC). Every series carries `worker` (the
// process's pid), so the instance's one /metrics (src/metrics-server.js) can list every process.
// A process started by a primary, the reuseport launcher or PM2 hands its registry to that parent
// when asked over their IPC channel (answerParent); one started alone serves it itself.
import { performance } from 'node:perf_hooks';
import client from 'prom-client';

// Seconds: from a light JSON answer (well under 1 ms) to the longest /delay (5 s by default).
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const ASK = 'metrics:get';
export const ANSWER = 'metrics:got';

// The event loop's time in each state since start (OpenTelemetry's `nodejs.eventloop.time`),
// read from performance.eventLoopUtilization() at each collection.
function eventLoopTime(registry) {
  let last = performance.eventLoopUtilization();
  return new client.Counter({
    name: 'nodejs_eventloop_time_seconds_total',
    help: 'Time the event loop spent in each state: active (running JavaScript and callbacks) or idle (waiting for I/O).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.inc({ state: 'active' }, Math.max(0, now.active - last.active) / 1000);
      this.inc({ state: 'idle' }, Math.max(0, now.idle - last.idle) / 1000);
      last = now;
    },
  });
}

// The route a request matched, as Express names it ("/api/items/:id"); "other" when none did, so a
// client's paths never become label values.
const routeOf = (req) => (req.route ? `${req.baseUrl}${req.route.path}` : 'other');

/**
 * This process's registry (every series labelled `worker`: its pid, or what the caller names it),
 * and an Express middleware that records each request once its answer is sent (or the client went
 * away first: status "aborted").
 * @param {{ worker?: string }} [options]
 */
export function createMetrics({ worker = String(process.pid) } = {}) {
  const registry = new client.Registry();
  registry.setDefaultLabels({ worker });
  client.collectDefaultMetrics({ register: registry });
  eventLoopTime(registry);
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the end of its answer, by route, method and status.',
    labelNames: ['route', 'method', 'status_code'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const middleware = (req, res, next) => {
    const end = duration.startTimer();
    res.once('close', () => end({
      route: routeOf(req),
      method: req.method,
      status_code: res.writableFinished ? String(res.statusCode) : 'aborted',
    }));
    next();
  };
  return { registry, middleware };
}

/** Answers the parent's requests for this process's registry over the IPC channel it started us with. */
export function answerParent(registry) {
  process.on('message', async (/** @type {{ cmd?: string, id?: number }} */ msg) => {
    if (msg?.cmd !== ASK) return;
    try {
      process.send?.({ cmd: ANSWER, id: msg.id, metrics: await registry.getMetricsAsJSON() });
    } catch {
      // The channel closed while we collected (a drain): the parent counts this process as missing.
    }
  });
}
