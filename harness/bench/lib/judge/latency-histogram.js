// Latency histograms with log-spaced buckets (2% wide): small enough to keep one per latency slice
// in results.json, fine enough that a quantile read from one is within 1% of the exact one.
const BASE = 1.02;
const FLOOR_MS = 0.01;
const LOG_BASE = Math.log(BASE);

export const bucketOf = (ms) => Math.max(0, Math.floor(Math.log(Math.max(ms, FLOOR_MS) / FLOOR_MS) / LOG_BASE));
const valueOf = (k) => FLOOR_MS * BASE ** (k + 0.5);

/** [[bucket, count], …] in bucket order, from latencies in ms. */
export function histogram(latencies) {
  const counts = new Map();
  for (const ms of latencies) {
    const k = bucketOf(ms);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** The q-quantile (ms) of the histograms taken together (each may be listed more than once). */
export function quantileOf(hists, q) {
  let top = 0;
  let total = 0;
  for (const h of hists) for (const [k, n] of h) { if (k > top) top = k; total += n; }
  if (total === 0) return null;
  const dense = new Float64Array(top + 1);
  for (const h of hists) for (const [k, n] of h) dense[k] += n;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let k = 0; k <= top; k += 1) {
    seen += dense[k];
    if (seen >= rank) return valueOf(k);
  }
  return valueOf(top);
}
