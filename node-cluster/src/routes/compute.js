// CPU-bound and wait-bound endpoints for the benchmark, with the same meaning, parameters and
// defaults as node-replicas: /pi?samples=N (Monte-Carlo) and /delay?ms=N.
import { Router } from 'express';
import { boundedInt } from '../validation.js';

// Share of random points of the unit square inside the quarter circle, × 4. Synchronous on
// purpose: one request keeps one worker's core busy.
export function estimatePi(samples, random = Math.random) {
  let inside = 0;
  for (let i = 0; i < samples; i += 1) {
    const x = random();
    const y = random();
    if (x * x + y * y <= 1) inside += 1;
  }
  return (4 * inside) / samples;
}

export function computeRoutes({ who, piDefaultSamples, piMaxSamples, delayMaxMs }) {
  const router = Router();
  router.get('/pi', (req, res) => {
    const samples = boundedInt(req.query, 'samples', { min: 1, max: piMaxSamples, fallback: piDefaultSamples });
    res.json({ ...who(), samples, pi: estimatePi(samples) });
  });
  // A timer, not a busy wait: stands in for a slow downstream call.
  router.get('/delay', async (req, res) => {
    const ms = boundedInt(req.query, 'ms', { min: 0, max: delayMaxMs, fallback: 0 });
    if (ms > 0) await new Promise((resolve) => { setTimeout(resolve, ms); });
    res.json({ ...who(), ms });
  });
  return router;
}
