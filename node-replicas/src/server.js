// Entry point: a plain node:http server, one process per replica. See README.md.
import http from 'node:http';
import { ConfigError, loadConfig } from './config.js';
import { createApp } from './app.js';
import { onClientError } from './client-errors.js';
import { installShutdown } from './shutdown.js';
import { createMetrics, serveMetrics } from './metrics.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`configuration error: ${err.message}`);
  process.exit(2);
}

const { handler, state, routeOf } = createApp(config);
const metrics = config.metricsPort === null ? null : createMetrics();
const observed = metrics
  ? (req, res) => { metrics.observe(req, res, routeOf(req.url)); return handler(req, res); }
  : handler;
const server = http.createServer(observed);
server.keepAliveTimeout = config.keepAliveTimeoutMs;
server.headersTimeout = config.headersTimeoutMs;
server.on('clientError', onClientError);
// `Expect: 100-continue`: answer at once (a body is refused anyway) instead of inviting the body.
server.on('checkContinue', observed);
server.on('error', (err) => {
  console.error(`${config.instance}: cannot listen on ${config.host}:${config.port}: ${err.message}`);
  process.exit(1);
});

installShutdown({ server, state, config });

server.listen(config.port, config.host, () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  console.log(`${config.instance} listening on ${config.host}:${port} (pid ${process.pid}, GET / delay ${config.homeDelayMs} ms)`);
});

if (metrics) {
  serveMetrics({ registry: metrics.registry, port: config.metricsPort, host: config.host }).then(
    (m) => console.log(`${config.instance} metrics on ${config.host}:${/** @type {import('node:net').AddressInfo} */ (m.address()).port}/metrics`),
    (err) => {
      console.error(`${config.instance}: cannot serve metrics on ${config.host}:${config.metricsPort}: ${err.message}`);
      process.exit(1);
    },
  );
}
