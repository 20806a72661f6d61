// One worker: the HTTP server plus its own MongoDB connection. Run by the primary (cluster mode),
// directly with CLUSTERING_ENABLED=false, or through src/serve.js (reuseport launcher, PM2).
// Shuts down gracefully on the primary's "shutdown" message, SIGTERM or SIGINT: stop accepting,
// finish in-flight requests, then exit. `reusePort`: listen with SO_REUSEPORT beside other
// processes on the same port (Node >= 22.12 on Linux). `ownPrimary` (src/primary.js's workers):
// drain through cluster.worker.disconnect(), which tells the primary the exit is planned. Any
// other cluster worker (PM2's) closes its server and keeps the IPC channel: PM2's metrics in the
// instance exit(1) the moment that channel is gone, cutting the drain short.
import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { connect, disconnect } from './db.js';
import { log } from './log.js';
import { createMetrics, answerParent } from './metrics.js';
import { startMetricsServer } from './metrics-server.js';

export function startWorker(config = loadConfig(), { reusePort = false, ownPrimary = cluster.isWorker } = {}) {
  // Test hooks: make a worker fail during start-up (always, or while a given file exists), to
  // exercise the primary's crash backoff and a rolling restart onto a broken release.
  if (process.env.CRASH_ON_START === '1') throw new Error('CRASH_ON_START=1: failing at start-up on purpose');
  const crashFile = process.env.CRASH_ON_START_FILE;
  if (crashFile && fs.existsSync(crashFile)) throw new Error(`${crashFile} exists: failing at start-up on purpose`);

  const state = { draining: false };
  // Metrics where the instance has a /metrics: handed to the process that started this one (a
  // primary, the reuseport launcher, PM2), which serves them with its other processes'; alone, here.
  const metrics = config.metricsPort === null ? null : createMetrics();
  if (metrics && (cluster.isWorker || process.send)) answerParent(metrics.registry);
  else if (metrics) startMetricsServer({ port: config.metricsPort, host: config.host, own: metrics.registry });
  const app = createApp({ ...config, state, observe: metrics?.middleware });
  // In-flight responses, so a shutdown can ask each to close its connection when done. Tracked
  // before the app sees the request: a synchronous route has answered by the time it returns.
  const inFlight = new Set();
  // Each open connection with no request in progress, and since when: accepted, or its last answer.
  const quietSince = new Map();
  let closing = false;
  const server = http.createServer((req, res) => {
    if (closing) res.shouldKeepAlive = false;
    inFlight.add(res);
    quietSince.delete(req.socket);
    res.on('close', () => {
      inFlight.delete(res);
      if (!req.socket.destroyed) quietSince.set(req.socket, Date.now());
    });
    app(req, res);
  });
  server.on('connection', (socket) => {
    quietSince.set(socket, Date.now());
    socket.on('close', () => quietSince.delete(socket));
  });
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.keepAliveTimeoutMs + 1_000;

  connect(config.mongodbUri, { maxPoolSize: config.maxPoolSize, username: config.mongodbUsername, password: config.mongodbPassword });

  server.listen({ port: config.port, host: config.host, reusePort }, () => {
    log('worker listening', { port: (/** @type {import('node:net').AddressInfo} */ (server.address())).port, worker: cluster.worker?.id ?? null });
    // Whoever started this process with an IPC channel learns that it accepts connections: the
    // reuseport launcher, PM2's wait_ready (the cluster primary ignores it).
    process.send?.('ready');
  });

  const exit = async (code) => {
    await disconnect();
    process.exit(code);
  };

  // delayMs: keep accepting this long first (config.drainDelayMs on a stop from outside), /ready
  // 503 and keep-alive on, as node-replicas and dotnet-api do: with every answer closing its
  // connection nginx (which, on Compose, sends here until the container exits) would open one per
  // request, and the listening socket's close resets those still in its accept queue (a POST on
  // one: a 502 nginx never resends). Idle, nginx closes its connections itself (keepalive_timeout).
  let draining = false;
  function shutdown(reason, delayMs = 0) {
    if (draining) return;
    draining = true;
    state.draining = true;
    log('worker draining', { reason, inFlight: inFlight.size, delayMs });
    // While draining, "idle" means quiet for the grace, not just without a request: a connection
    // accepted a moment ago has its request in flight, unread yet (after a wait at the CPU quota
    // the loop runs its timers before it reads), and closing it loses a POST as a 502 nginx never
    // resends (a cluster rolling restart, make test 2026-12-05). server.close() closes idle
    // connections through this method too (Node >= 19), cluster.worker.disconnect() included.
    server.closeIdleConnections = () => {
      for (const [socket, since] of quietSince) if (Date.now() - since >= config.idleGraceMs) socket.destroy();
    };
    // Backstop: requests still running when the drain timeout (counted from now, the delay
    // included) runs out are cut off. At once, the database connection not waited for: its close
    // takes up to a second (db.js) while a connection attempt is in flight, out of the 2 s the
    // primary gives a worker past the timeout before its SIGKILL (supervisor.js), and a timer late
    // under load took the rest (make test 2026-12-05).
    setTimeout(() => {
      log('worker drain timeout, exiting', { inFlight: inFlight.size });
      process.exit(0);
    }, config.drainMs).unref();
    // A process that owns its listening socket, stopped from outside after a drain delay (behind
    // a DNS name: compose), stops accepting when the delay is over and stays up refusing for the
    // grace below: nginx's next tries are refused at once and mark it failed (max_fails) for its
    // fail_timeout, which outlasts that grace plus nginx's re-resolution of the name once the
    // container is gone — so nginx never waits out a connect to the vanished address. Its open
    // connections are left be meanwhile, each closing after its next answer: one nginx has just
    // opened may be about to carry a POST.
    const ownSocket = !ownPrimary && !cluster.isWorker && delayMs > 0;
    let stopped = null;
    // After the delay: every answer closes its connection, and the port closes once a turn of the
    // event loop has accepted nothing (at most 50 turns). Node accepts one queued connection per
    // turn, in its poll phase (a setImmediate runs right after it); closed with connections still
    // queued, the port resets them, and a POST nginx wrote on one is a 502 it never resends. A
    // process held at its CPU quota gathers them while its loop waits (node-replicas' shutdown.js).
    let closeNow;
    const closed = new Promise((resolve) => { closeNow = resolve; }).then(() => {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      if (ownSocket) stopped = new Promise((resolve) => net.Server.prototype.close.call(server, resolve));
    });
    const afterQuietTurn = (turnsLeft) => {
      let accepted = false;
      const seen = () => { accepted = true; };
      server.once('connection', seen);
      setImmediate(() => {
        server.off('connection', seen);
        if (accepted && turnsLeft > 1) afterQuietTurn(turnsLeft - 1);
        else closeNow();
      });
    };
    setTimeout(() => afterQuietTurn(50), delayMs).unref();
    // Keep-alive clients first get one more response each, marked `Connection: close`, so they
    // stop reusing the socket themselves. Closing a socket that looks idle at once races with a
    // request the client is already sending on it (ECONNRESET), hence the short grace. (After the
    // step above, also when the grace is 0.)
    setTimeout(() => closed.then(() => {
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      idle.unref();
      const done = () => {
        clearInterval(idle);
        log('worker drained');
        exit(0);
      };
      if (ownPrimary) {
        // Closes this worker's listening handle, waits for its connections to end, then tells
        // the primary this exit was planned (worker.exitedAfterDisconnect), and drops the IPC.
        process.once('disconnect', done);
        cluster.worker.disconnect();
      } else if (stopped) {
        stopped.then(done);
      } else {
        server.close(done);
      }
    }), delayMs + Math.min(config.idleGraceMs, Math.max(0, config.drainMs - delayMs))).unref();
  }

  process.on('message', (/** @type {{ cmd?: string, delayMs?: number }} */ msg) => {
    if (msg?.cmd === 'shutdown') shutdown('primary', msg.delayMs ?? 0);
  });
  process.on('SIGTERM', () => shutdown('SIGTERM', config.drainDelayMs));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // SIGHUP means "rolling restart" to the primary; a worker that gets it too (a signal sent to
  // the whole process group) keeps serving.
  process.on('SIGHUP', () => {});
  return server;
}
