// How far a verdict's ratio moves from one run to the next on the same machine. The rounds of one run
// share the state the machine is in for minutes at a time (neighbours on the host, the caches they
// leave): on 2026-11-22 a cluster of 2 came out ×0.80 of one process on light JSON in one default
// run, every round ×0.77–×0.86, and ×0.96 in the next, every round ×0.90–×1.10. An interval from one
// run's rounds can't see that; the spread over repeated runs can. A verdict's interval is therefore
// at least as wide as that spread (Z standard deviations of the log ratio over the runs).
import { readFileSync } from 'node:fs';
import { inline } from '../report/template.js';

export const Z = 1.96;
export const MIN_RUNS = 3;
export const REPEATABILITY_FILE = new URL('../../repeatability.json', import.meta.url);

/** A verdict with a ratio to compare: measured, not suspect. */
export const measuredRatio = (v) =>
  Boolean(v && v.measured !== false && !v.suspect && Number.isFinite(v.ratio) && v.ratio > 0);

/**
 * The spread of each question's ratio over repeated runs (results.json documents of one mode):
 * { mode, runs: [{ startedAt, label, commit }], questions: { id: { n, ratios, sdLog } } }. A
 * question measured (not suspect) in fewer than MIN_RUNS runs gets no entry. `earlier`: a spread
 * written before (of the same mode), whose runs and ratios count as well — runs of other days, whose
 * results are gone.
 */
export function spreadOverRuns(docs, earlier = null) {
  const modes = new Set([...docs.map((d) => d.mode), ...(earlier ? [earlier.mode] : [])]);
  if (modes.size > 1) {
    throw new Error(`runs of different modes (${[...modes].join(', ')}): their spreads are not the same thing`);
  }
  const ratios = new Map(Object.entries(earlier?.questions ?? {}).map(([id, q]) => [id, [...q.ratios]]));
  for (const v of docs.flatMap((d) => d.verdicts ?? []).filter(measuredRatio)) {
    ratios.set(v.id, [...(ratios.get(v.id) ?? []), v.ratio]);
  }
  const questions = {};
  for (const [id, xs] of [...ratios].sort(([x], [y]) => x.localeCompare(y))) {
    if (xs.length < MIN_RUNS) continue;
    const logs = xs.map(Math.log);
    const mean = logs.reduce((s, x) => s + x, 0) / logs.length;
    const sdLog = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / (logs.length - 1));
    questions[id] = { n: xs.length, ratios: xs, sdLog: Number(sdLog.toFixed(4)) };
  }
  return {
    mode: [...modes][0] ?? null,
    runs: [...(earlier?.runs ?? []), ...docs.map((d) => ({
      startedAt: d.startedAt,
      label: d.label ?? null,
      commit: d.meta?.git?.commit?.slice(0, 12) ?? null,
    }))],
    z: Z,
    questions,
  };
}

/** The half-width (as a factor, like withFloor's) a question's interval gets at least: Z sd of its log ratio. */
export function floorOf(spread, id) {
  const q = spread?.questions?.[id];
  return q ? Math.exp((spread.z ?? Z) * q.sdLog) - 1 : 0;
}

/** The committed spread (harness/bench/repeatability.json), or null where there is none. */
export function loadSpread() {
  try {
    return JSON.parse(readFileSync(REPEATABILITY_FILE, 'utf8'));
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw new Error(`${REPEATABILITY_FILE.pathname}: ${e.message}`, { cause: e });
  }
}

/** What results.json says of it: where the spreads come from, in a line, and the floors by question. */
export function describeSpread(spread) {
  if (!spread) return null;
  const dates = spread.runs.map((r) => r.startedAt?.slice(0, 10)).filter(Boolean);
  const span = [...new Set(dates)].join(', ') || 'unknown dates';
  return {
    runs: spread.runs.length,
    mode: spread.mode,
    z: spread.z ?? Z,
    text: inline('protocol-between-runs', {
      runs: spread.runs.length, mode: spread.mode === 'full' ? 'full' : 'default', span, z: `${spread.z ?? Z}`,
    }),
    floors: Object.fromEntries(Object.keys(spread.questions).map((id) => [id, Number(floorOf(spread, id).toFixed(4))])),
  };
}
