// Statistics over rounds: a cell's median and spread, a comparison's ratio with a 95% interval
// from paired rounds, and the rule that turns a ratio into a verdict.

export const CONFIDENCE = 0.95;
export const MIN_DIFFERENCE = 0.10; // a winner must be at least 10% better

export function round(x, digits = 1) {
  if (!Number.isFinite(x)) return x ?? null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function median(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** The nearest-rank percentile of sorted values (q from 0 to 1), or null where there are none. */
export const percentileOf = (sorted, q) =>
  (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : null);

/** p50, p90, p99 and max of sorted values (an array or a typed array), each rounded to `digits`. */
export function percentiles(sorted, digits) {
  const at = (q) => round(percentileOf(sorted, q), digits);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(sorted.at(-1) ?? null, digits) };
}

/**
 * The lower median: the middle value, or the lower of the two middle ones — always a value that was
 * measured (a slice's latency percentile, a run's half-width), never an average of two.
 */
export function lowerMedian(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
}

/** median, min, max and (max - min) / median over rounds. */
export function summary(values, digits = 1) {
  const v = values.filter(Number.isFinite);
  if (v.length === 0) return { median: null, min: null, max: null, spread: null, n: 0 };
  const m = median(v);
  const min = Math.min(...v);
  const max = Math.max(...v);
  return {
    median: round(m, digits), min: round(min, digits), max: round(max, digits),
    spread: m ? round((max - min) / m, 3) : null, n: v.length,
  };
}

// Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom.
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
export const tQuantile = (df) => (df < 1 ? Infinity : df <= 30 ? T975[df - 1] : 1.96);

/**
 * Ratio of a to b from rounds measured in pairs (a[i] and b[i] in the same round, one after the
 * other): the geometric mean of the per-round ratios and its 95% t-interval. Pairing cancels the
 * machine's drift between rounds. Returns { ratio, ci95: [lo, hi] | null, n }.
 */
export function pairedRatio(a, b) {
  const d = a.flatMap((x, i) => (x > 0 && b[i] > 0 ? [Math.log(x / b[i])] : []));
  const n = d.length;
  if (n === 0) return { ratio: null, ci95: null, n };
  const mean = d.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { ratio: Math.exp(mean), ci95: null, n };
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = tQuantile(n - 1) * sd / Math.sqrt(n);
  return { ratio: Math.exp(mean), ci95: [Math.exp(mean - half), Math.exp(mean + half)], n };
}

/**
 * An interval widened to at least ±floor around its ratio (on the log scale): for a figure whose
 * rounds, all taken from the same processes, vary less than it does between two runs.
 */
export function withFloor(r, floor) {
  if (!floor || r.ratio === null || !r.ci95) return r;
  return { ...r, ci95: [Math.min(r.ci95[0], r.ratio / (1 + floor)), Math.max(r.ci95[1], r.ratio * (1 + floor))] };
}

/**
 * The label a ratio earns (better: 'higher' for throughput, 'lower' for latency, CPU and memory):
 * - 'a' or 'b' (that side **wins**): the whole 95% interval lies beyond a MIN_DIFFERENCE difference
 *   in its favour, so it excludes parity too;
 * - 'equal': the whole interval lies within ±MIN_DIFFERENCE;
 * - 'cant-tell': the interval crosses the ±MIN_DIFFERENCE line (or there is no interval).
 * A ratio near ×1.10 falls on either side of the line from one run to the next; its interval then
 * crosses the line and it is honestly "can't tell" instead of a win in one run and a tie in the next.
 */
export function decide({ ratio, ci95 }, better) {
  if (ratio === null || ratio === undefined || !ci95) return 'cant-tell';
  const up = 1 + MIN_DIFFERENCE;
  const higher = ci95[0] >= up;
  const lower = ci95[1] <= 1 / up;
  if (higher || lower) return (better === 'higher') === higher ? 'a' : 'b';
  if (ci95[0] >= 1 / up && ci95[1] <= up) return 'equal';
  return 'cant-tell';
}

/** decide()'s outcome as a verdict's label: 'wins' | 'equal' | 'cant-tell'. */
export const labelOf = (side) => (side === 'a' || side === 'b' ? 'wins' : side);

/**
 * A ratio that breaks a physical upper limit (scaling above the CPU-budget ratio; a proxied path
 * faster than direct) beyond the noise: suspect when the whole interval lies above the limit by
 * more than the difference the verdicts call a tie (the same CPU can serve a few per cent more
 * requests when it is spent better — fewer context switches, a warmer cache — and the CPU per
 * request shows it), or the ratio is above it by more than `tolerance` even where the interval is wide.
 */
export function breaksLimit({ ratio, ci95 }, limit, tolerance = 0.25) {
  if (ratio === null || limit === null || limit === undefined) return false;
  return (ci95 !== null && ci95[0] > limit * (1 + MIN_DIFFERENCE)) || ratio > limit * (1 + tolerance);
}

// A small seeded generator: an interval recomputed from the same results (`--from`) comes out the same.
export function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BOOTSTRAP_REPLICATES = 2000;

/**
 * Ratio of a statistic of a to the same statistic of b, from blocks measured in pairs (a's i-th
 * block seconds apart from b's), and its 95% interval from resampling the pairs: for a statistic
 * of the pooled blocks, like a p99 over every slice's requests, which paired rounds can't give.
 * stat(blocks) -> number. Fewer than 4 pairs: no interval.
 */
export function blockBootstrapRatio(blocksA, blocksB, stat) {
  const n = Math.min(blocksA.length, blocksB.length);
  const ratioOf = (a, b) => { const x = stat(a) / stat(b); return Number.isFinite(x) && x > 0 ? x : null; };
  const ratio = n ? ratioOf(blocksA.slice(0, n), blocksB.slice(0, n)) : null;
  if (ratio === null || n < 4) return { ratio, ci95: null, n };
  const random = mulberry32(1);
  const ratios = Array.from({ length: BOOTSTRAP_REPLICATES }, () => {
    const picks = Array.from({ length: n }, () => Math.floor(random() * n));
    return ratioOf(picks.map((j) => blocksA[j]), picks.map((j) => blocksB[j]));
  }).filter((x) => x !== null).sort((x, y) => x - y);
  const at = (q) => ratios[Math.min(ratios.length - 1, Math.max(0, Math.round(q * (ratios.length - 1))))];
  return { ratio, ci95: [at(0.025), at(0.975)], n };
}
