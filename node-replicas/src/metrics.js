// Prometheus metrics of this process, through prom-client: every request by route, method and
// status with its latency (one histogram; its _count is the request counter), the event loop's
// active and idle time (its utilization over any window: rate of active ÷ rate of both) and delay,
// and prom-client's process metrics (CPU, memory, heap, GC). Served by a server of its own on
// METRICS_PORT, never on the app's port: nginx proxies only the app's port, so /metrics can't be
// reached through it; Prometheus scrapes each replica on the service network.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import client from 'prom-client';

// Seconds: from a light JSON answer (well under 1 ms) to the longest /delay (5 s by default).
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The event loop's time in each state since start (OpenTelemetry's `nodejs.eventloop.time`),
 * read from performance.eventLoopUtilization() at each scrape.
 * @param {client.Registry} registry
 */
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

/**
 * A registry with this process's metrics, and `observe(req, res, route)`, which records the request
 * once its answer is sent (or the client went away first: status "aborted").
 * @param {{ labels?: Record<string, string> }} [options] labels on every series (a cluster's worker)
 */
export function createMetrics({ labels = {} } = {}) {
  const registry = new client.Registry();
  registry.setDefaultLabels(labels);
  client.collectDefaultMetrics({ register: registry });
  eventLoopTime(registry);
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the end of its answer, by route, method and status.',
    labelNames: ['route', 'method', 'status_code'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  function observe(req, res, route) {
    const end = duration.startTimer({ route, method: req.method });
    res.once('close', () => end({ status_code: res.writableFinished ? String(res.statusCode) : 'aborted' }));
  }
  return { registry, observe };
}

/**
 * The metrics server: GET /metrics answers the registry's text; anything else 404, another method
 * on /metrics 405. Resolves with the server once it listens.
 * @param {{ registry: { metrics: () => Promise<string>, contentType: string }, port: number, host: string }} options
 * @returns {Promise<http.Server>}
 */
export function serveMetrics({ registry, port, host }) {
  const server = http.createServer(async (req, res) => {
    const path = req.url.split('?')[0];
    const send = (status, type, text, headers = {}) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    if (path !== '/metrics') return send(404, 'application/json; charset=utf-8', '{"error":"not found; try /metrics"}');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(405, 'application/json; charset=utf-8', '{"error":"use GET"}', { Allow: 'GET, HEAD' });
    }
    try {
      return send(200, registry.contentType, await registry.metrics());
    } catch (err) {
      return send(500, 'application/json; charset=utf-8', JSON.stringify({ error: `metrics: ${err.message}` }));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
