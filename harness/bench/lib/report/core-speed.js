// What the probe on the topologies' CPU (box.coreSpeed, lib/run/core-speed.js) says of the saturated
// slices, from results.json alone.
import { lowerMedian } from '../judge/stats.js';

const round2 = (x) => Math.round(x * 100) / 100;

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
  const times = c.readings.map(([t]) => t0 + t);
  const slow = c.readings.map(([, us]) => c.fastUs / us < c.slowBelow);
  const slowShareIn = (from, to) => {
    const inside = slow.slice(lowerBound(times, from), lowerBound(times, to));
    return inside.length ? inside.filter(Boolean).length / inside.length : null;
  };
  const byWorkload = new Map();
  for (const cell of doc.cells ?? []) {
    const slices = (cell.rounds ?? []).flatMap((r) => (r.sliceAt ?? []).map((at, i) => ({
      at,
      rps: r.sliceRps?.[i],
      s: r.durationS && r.slices ? r.durationS / r.slices : 1,
    })));
    const rpss = slices.map((x) => x.rps).filter(Number.isFinite);
    const mid = lowerMedian(rpss);
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
  const mean = (xs) => (xs.length ? round2(xs.reduce((a, b) => a + b, 0) / xs.length) : null);
  return [...byWorkload.values()].map((w) => ({
    workload: w.workload,
    fast: { slices: w.fast.length, rps: mean(w.fast) },
    slow: { slices: w.slow.length, rps: mean(w.slow) },
  }));
}

function lowerBound(xs, x) {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (xs[m] < x) lo = m + 1; else hi = m; }
  return lo;
}
