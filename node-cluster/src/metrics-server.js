// The instance's one /metrics, on METRICS_PORT (never the app's port, which nginx proxies). Served
// by the process that started the serving processes — the cluster primary, the reuseport launcher,
// or PM2's own process (ecosystem.config.cjs) — which asks each of them for its registry over their
// IPC channel at every scrape and merges the answers with prom-client's AggregatorRegistry.aggregate:
// every series keeps its `worker` label, so each process is a series of its own. Not prom-client's
// clusterMetrics(): it knows only cluster.workers (the launcher's processes are not), and one worker
// that dies between the question and its answer fails the whole scrape after 5 s. Here a process
// that exits or does not answer within ANSWER_MS is left out of that scrape and counted in
// `nodejs_cluster_workers{state="missing"}`: a respawn never breaks the aggregate.
// Alone (CLUSTERING_ENABLED=false) the serving process serves its own registry here.
import http from 'node:http';
import client from 'prom-client';
import { ASK, ANSWER, createMetrics } from './metrics.js';
import { log } from './log.js';

const ANSWER_MS = 2_000;
let lastId = 0;

/**
 * One process's metrics as JSON, or null when it exits, its channel is closed, or it takes longer
 * than timeoutMs. `worker`: a cluster Worker, or anything with its send(msg, cb), isConnected() and
 * 'message' and 'exit' events.
 */
export function askWorker(worker, { timeoutMs = ANSWER_MS } = {}) {
  const id = (lastId += 1);
  return new Promise((resolve) => {
    const done = (value) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(value);
    };
    const onMessage = (msg) => { if (msg?.cmd === ANSWER && msg.id === id) done(msg.metrics); };
    const onExit = () => done(null);
    const timer = setTimeout(() => done(null), timeoutMs);
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    if (!worker.isConnected()) return done(null);
    try {
      worker.send({ cmd: ASK, id }, (err) => { if (err) done(null); });
    } catch {
      done(null);
    }
    return undefined;
  });
}

/**
 * The instance's metrics text: `own` (this process's registry) and every worker's, merged.
 * @param {{ own: client.Registry, workers: () => any[], timeoutMs?: number }} options
 */
export async function instanceMetrics({ own, workers, timeoutMs }) {
  const listed = workers();
  const answers = await Promise.all(listed.map((w) => askWorker(w, { timeoutMs })));
  const answered = answers.filter(Boolean);
  const count = {
    help: 'Serving processes of this instance at the scrape: answered (their series are in it) or missing (exited or too slow to answer).',
    name: 'nodejs_cluster_workers',
    type: 'gauge',
    aggregator: 'sum',
    values: [
      { labels: { state: 'answered' }, value: answered.length },
      { labels: { state: 'missing' }, value: listed.length - answered.length },
    ],
  };
  const merged = client.AggregatorRegistry.aggregate([await own.getMetricsAsJSON(), [count], ...answered]);
  return merged.metrics();
}

/**
 * Serves GET /metrics on port/host with the text `metrics()` resolves to; anything else 404, another
 * method 405. Resolves with the server once it listens.
 * @param {{ metrics: () => Promise<string>, port: number, host: string }} options
 * @returns {Promise<http.Server>}
 */
export function serveMetrics({ metrics, port, host }) {
  const server = http.createServer(async (req, res) => {
    const send = (status, type, text, headers = {}) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    const json = 'application/json; charset=utf-8';
    if (req.url.split('?')[0] !== '/metrics') return send(404, json, '{"error":"not found; try /metrics"}');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, json, '{"error":"use GET"}', { Allow: 'GET, HEAD' });
    try {
      return send(200, client.Registry.PROMETHEUS_CONTENT_TYPE, await metrics());
    } catch (err) {
      return send(500, json, JSON.stringify({ error: `metrics: ${err.message}` }));
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

/**
 * Starts the instance's metrics server where METRICS_PORT is set: the caller's own registry plus
 * every worker's (`workers`: those alive now). Logs where it listens; a port it can't have stops
 * the process (exit 1), as the app's own port does.
 * @param {{ port: number | null, host: string, workers?: () => any[], own: client.Registry }} options
 */
export function startMetricsServer({ port, host, workers = () => [], own }) {
  if (port === null) return null;
  return serveMetrics({ metrics: () => instanceMetrics({ own, workers }), port, host }).then(
    (server) => {
      log('metrics listening', { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port });
      server.unref();
      return server;
    },
    (err) => {
      log('cannot serve metrics', { port, error: err.message });
      process.exit(1);
    },
  );
}

/**
 * The /metrics of a process that starts the serving ones (a primary, the launcher, PM2's): its own
 * process metrics, labelled worker="primary", and every worker's. Nothing where METRICS_PORT is unset.
 * @param {{ metricsPort: number | null, host: string }} config @param {() => any[]} workers
 */
export function startInstanceMetrics(config, workers) {
  if (config.metricsPort === null) return null;
  const own = createMetrics({ worker: 'primary' }).registry;
  return startMetricsServer({ port: config.metricsPort, host: config.host, workers, own });
}
