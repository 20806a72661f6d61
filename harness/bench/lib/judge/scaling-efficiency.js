// Scaling efficiency: a strategy's throughput at a budget of B CPUs against B × the same app's one
// process at budget 1, from rounds of the same scenario (paired, so the machine's drift cancels).
// No strategy can exceed ×1.00 by more than the noise: one that does is flagged suspect (a figure
// beyond a physical limit is a fault in the measurement, not a finding).
import { withFloor, breaksLimit, round } from './stats.js';
import { roundsRatio } from './verdicts.js';

/**
 * defs: [{ id, workload, cell, base, budget, … }] (plan/scenarios.js scalingOf). floor: the interval's least
 * half-width.
 */
export function computeScaling(defs, cells, { floor = 0 } = {}) {
  const byId = new Map(cells.map((c) => [c.id, c]));
  return defs.map((d) => {
    const def = {
      id: d.id, workload: d.workload, cell: d.cell, base: d.base, budget: d.budget, sample: d.sample,
      strategy: d.strategy, topology: d.topology, processes: d.processes,
    };
    const [c, b] = [byId.get(d.cell), byId.get(d.base)];
    if (c?.status !== 'ok' || b?.status !== 'ok') {
      return { ...def, efficiency: null, ci95: null, rps: null, suspect: null, measured: false };
    }
    const r = withFloor(roundsRatio(c, b, 'rps'), floor);
    const suspect = breaksLimit(r, d.budget);
    // The figure the tables show reproduces from the two medians beside it; its interval is the
    // paired rounds' (widened to hold it).
    const ratio = c.rps?.median && b.rps?.median ? c.rps.median / b.rps.median : r.ratio;
    return {
      ...def,
      rps: c.rps?.median ?? null,
      baseRps: b.rps?.median ?? null,
      efficiency: ratio === null ? null : round(ratio / d.budget, 3),
      ci95: r.ci95 ? [Math.min(r.ci95[0], ratio), Math.max(r.ci95[1], ratio)].map((x) => round(x / d.budget, 3)) : null,
      suspect,
      ...(suspect ? {
        why: `×${round(r.ratio, 2)} of one process at budget 1 on ${d.budget} CPU: `
          + `beyond the physical limit of ×${d.budget}`,
      } : {}),
      measured: true,
    };
  });
}
