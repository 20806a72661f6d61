// A cell's record: guarded steps (a failing cell is recorded and the run goes on; a failing
// generator stops it) and the summary of its rounds once they are all in.
import { summary, round, median } from '../judge/stats.js';
import { GeneratorError } from '../tools/errors.js';
import { summariseAppMetrics } from './app-metrics.js';

// Median and spread of the figures every window has: req/s, latency, CPU per request; failures summed.
function figures(windows) {
  const over = (f, digits = 2) => summary(windows.map(f), digits);
  return {
    rps: over((w) => w.rps, 1),
    latencyMs: Object.fromEntries(['p50', 'p90', 'p99', 'max'].map((q) => [q, over((w) => w.latencyMs[q])])),
    cpuPerRequestUs: over((w) => w.cpuPerRequestUs),
    errors: windows.reduce((s, w) => s + w.errors, 0),
  };
}

/** A cell's figures over its rounds: median and spread of each. */
export function summariseRounds(rounds) {
  const paced = rounds.filter((r) => r.paced).map((r) => r.paced);
  const appMetrics = summariseAppMetrics(rounds);
  return {
    ...figures(rounds),
    memoryMiB: summary(rounds.map((r) => r.memoryMiB), 1),
    requests: rounds.reduce((s, r) => s + r.requests, 0),
    // The latency windows at a fixed rate, over the rounds that had one.
    ...(paced.length
      ? { paced: { rate: paced[0].rate, rounds: paced.length, ...figures(paced), held: paced.every((w) => w.held) } }
      : {}),
    // The samples' own /metrics beside the bench's probes (run/app-metrics.js), where the app has them.
    ...(appMetrics ? { appMetrics } : {}),
  };
}

/** Runs fn for a cell unless it already failed: a failing cell is recorded, a failing generator stops the run. */
export async function guarded(rec, fn) {
  if (rec.status === 'failed') return;
  try {
    await fn();
  } catch (e) {
    if (e instanceof GeneratorError) throw e;
    Object.assign(rec, { status: 'failed', error: e.message });
  }
}

/**
 * @param {object} rec
 * @param {{ tool: string, windowS: number | null, warmupS: number, rewarmS: number, ceiling?: object }} how
 */
export function finish(rec, { tool, windowS, warmupS, rewarmS, ceiling }) {
  if (rec.status === 'failed') return;
  const error = rec.rounds.length === 0 ? 'no round completed'
    : rec.rounds.every((r) => r.requests === 0)
      ? `no request completed in ${rec.rounds.length} round(s) at ${rec.connections} connections` : null;
  if (error) {
    Object.assign(rec, { status: 'failed', error });
    return;
  }
  Object.assign(rec, { status: 'ok', tool, windowS, warmupS, rewarmS, ...summariseRounds(rec.rounds) });
  rec.generatorBound = Boolean(ceiling?.rps && rec.rps.median > 0.7 * ceiling.rps);
  // The generator's share of the machine in the cell's saturated windows (the median round).
  rec.generatorShare = median(rec.rounds.map((r) => r.generatorShare).filter(Number.isFinite));
  rec.ceilingShare = ceiling?.rps ? round(rec.rps.median / ceiling.rps, 3) : null;
}
