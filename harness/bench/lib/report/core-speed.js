// What the probe on the topologies' CPU (box.coreSpeed, lib/run/core-speed.js) says of the saturated
// slices, from results.json alone.
import { lowerMedian, round } from '../judge/stats.js';

/**
 * How the saturated slices of each workload went with the probe: the share of the probe's readings
 * during a slice that were slow, and each slice's req/s over its cell's median. Returns
 * [{ workload, fast: { slices, rps }, slow: { slices, rps } }] — a slice is fast when under a fifth of
 * its readings were slow and slow when at least half were; rps is the mean of those slices' req/s
 * relative to their cell's median — or [] without the probe's readings or the slices' start times.
 */
export function slicesBySpeed(doc) {
  const c = doc.box?.coreSpeed;
  if (!c?.readings?.length) return [];
  const t0 = Date.parse(c.startedAt);
  const readings = c.readings.map(([t, us]) => ({ at: t0 + t, slow: c.fastUs / us < c.slowBelow }));
  const slowShareIn = (from, to) => {
    const inside = readings.filter((r) => r.at >= from && r.at < to);
    return inside.length ? inside.filter((r) => r.slow).length / inside.length : null;
  };
  const byWorkload = new Map();
  for (const cell of doc.cells ?? []) {
    const slices = (cell.rounds ?? []).flatMap((r) => (r.sliceAt ?? []).map((at, i) => ({
      at,
      rps: r.sliceRps?.[i],
      s: r.durationS && r.slices ? r.durationS / r.slices : 1,
    })));
    const mid = lowerMedian(slices.map((x) => x.rps));
    if (!mid) continue;
    const w = byWorkload.get(cell.workload) ?? { workload: cell.workload, fast: [], slow: [] };
    for (const x of slices) {
      const share = slowShareIn(x.at, x.at + x.s * 1000);
      if (share === null || !Number.isFinite(x.rps)) continue;
      if (share < 0.2) w.fast.push(x.rps / mid);
      else if (share >= 0.5) w.slow.push(x.rps / mid);
    }
    byWorkload.set(cell.workload, w);
  }
  const mean = (xs) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 2) : null);
  return [...byWorkload.values()].map((w) => ({
    workload: w.workload,
    fast: { slices: w.fast.length, rps: mean(w.fast) },
    slow: { slices: w.slow.length, rps: mean(w.slow) },
  }));
}
