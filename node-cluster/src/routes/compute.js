// CPU-bound and wait-bound endpoints for the benchmark, with the same meaning, parameters and
// defaults as node-replicas: /pi?samples=N (Monte-Carlo) and /delay?ms=N.
import { Router } from 'express';
import { boundedInt } from '../validation.js';

// Share of random points of the unit square inside the quarter circle, × 4. Synchronous on
// purpose: one request keeps one worker's core busy. xorshift32 rather than Math.random, whose cost
// per call swings from second to second (V8 refills its buffer through the runtime): the same
// generator and work per sample as node-replicas and dotnet-api.
export function estimatePi(samples, seed = (Math.random() * 4294967296) >>> 0) {
  let s = seed | 0 || 1; // xorshift32 must not start at 0
  let inside = 0;
  for (let i = 0; i < samples; i += 1) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    const x = (s >>> 0) / 4294967296;
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    const y = (s >>> 0) / 4294967296;
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
