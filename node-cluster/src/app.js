// The Express app, without listening: the worker listens, tests can mount it as they like.
import cluster from 'node:cluster';
import os from 'node:os';
import express from 'express';
import { computeRoutes } from './routes/compute.js';
import { items } from './routes/items.js';
import { connectionState, isConnected, databaseInfo } from './db.js';
import { HttpError, toHttpError } from './errors.js';
import { log } from './log.js';

/**
 * @param {{ bodyLimit?: string, instance?: string, piDefaultSamples?: number, piMaxSamples?: number, delayMaxMs?: number, state?: { draining: boolean }, observe?: import('express').RequestHandler }} [options]
 * `observe`: a middleware that sees every request first (src/metrics.js).
 */
export function createApp({
  bodyLimit = '16kb', instance, piDefaultSamples = 1_000_000, piMaxSamples = 10_000_000, delayMaxMs = 5_000,
  state = { draining: false }, observe,
} = {}) {
  const who = () => ({
    instance: instance ?? os.hostname(),
    pid: process.pid,
    worker: cluster.worker?.id ?? null,
  });

  const app = express();
  app.disable('x-powered-by');
  // nginx is the only hop in front: client addresses come from its X-Forwarded-For.
  app.set('trust proxy', 'loopback, uniquelocal');
  if (observe) app.use(observe);
  app.use(express.json({ limit: bodyLimit }));

  app.get('/', (_req, res) => {
    res.json({ message: 'Welcome to the node-cluster API', ...who() });
  });
  app.get('/health', (_req, res) => res.json({ status: 'ok', ...who() }));
  // Ready = connected to MongoDB and not shutting down.
  app.get('/ready', (_req, res) => {
    const mongodb = connectionState();
    const reason = state.draining ? 'draining' : (isConnected() ? undefined : 'database unavailable');
    res.status(reason ? 503 : 200).json({ status: reason ? 'not ready' : 'ready', reason, mongodb, ...who() });
  });
  app.use(computeRoutes({ who, piDefaultSamples, piMaxSamples, delayMaxMs }));
  // Write traffic that needs no database (the fault and rollout drills): 201 with the parsed body.
  app.post('/echo', (req, res) => {
    if (!req.is('application/json')) throw new HttpError(415, 'send the body as application/json');
    if (Object.keys(req.query).length) throw new HttpError(400, 'POST /echo takes no query parameters');
    res.status(201).json({ ...who(), echo: req.body });
  });
  app.all('/echo', (req, res) => res.set('Allow', 'POST').status(405).json({ error: `method ${req.method} not allowed; use POST` }));
  app.get('/api/database', async (_req, res, next) => {
    try { res.json(await databaseInfo()); } catch (e) { next(new HttpError(503, `the database does not answer: ${e.message}`)); }
  });
  app.use('/api/items', items);

  app.use((req, _res, next) => next(new HttpError(404, `no route for ${req.method} ${req.path}`)));

  // Four arguments: Express's error handler signature.
  app.use((err, req, res, _next) => {
    const { status, body } = toHttpError(err);
    if (status >= 500 && status !== 503) log('request failed', { method: req.method, path: req.path, error: err?.stack ?? String(err) });
    if (res.headersSent) return res.destroy();
    return res.status(status).json(body);
  });
  return app;
}
