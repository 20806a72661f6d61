// Whether a block of latency slices held its fixed rate: computed from what a results file keeps,
// so `--from` judges old runs by the same rule.
import { quantileOf } from './latency-histogram.js';
import { round } from './stats.js';
import { lateWhy } from './send-lag-bound.js';

export const HELD_SHARE = 0.95; // the achieved rate must be within 5% of the target

/**
 * paced: { rate, requests, rps, errors, slices, sliceS, sliceHistograms?, latencyMs } as
 * run/measure-window.js latencyBlock records it. A slice ends when its last answer is back, so its elapsed
 * time runs one typical latency past its schedule even when every request was answered on time
 * (a 50 ms wait: 5% of a 1 s slice). The achieved rate is the requests over the scheduled time plus
 * only what the slices ran over beyond that: a backlog. A block whose generator sent late (its send
 * lag p99 past judge/send-lag-bound.js's bound) measured the generator, not the cell: not held either. Returns
 * { held, achieved, why }; a record without the counts keeps the verdict it was stored with.
 */
export function heldOf(paced) {
  const { rate, requests, rps, slices, sliceS } = paced;
  if (![rate, slices, sliceS].every((x) => Number.isFinite(x) && x > 0) || ![requests, rps].every(Number.isFinite)) {
    return { held: Boolean(paced.held), achieved: paced.rps ?? null, why: paced.why ?? null };
  }
  const scheduledS = slices * sliceS;
  const elapsedS = rps > 0 ? requests / rps : scheduledS;
  const p50s = (paced.sliceHistograms ?? []).map((h) => quantileOf([h], 0.5)).filter(Number.isFinite);
  const drainMs = p50s.length === slices ? p50s.reduce((s, x) => s + x, 0) : slices * (paced.latencyMs?.p50 ?? 0);
  const backlogS = Math.max(0, elapsedS - scheduledS - drainMs / 1000);
  const achieved = requests / (scheduledS + backlogS);
  const why = [];
  if (achieved < HELD_SHARE * rate) why.push(`achieved ${round(achieved)} of ${rate} req/s`);
  if (paced.errors > 0) why.push(`${paced.errors} failed`);
  const late = lateWhy(paced.sendLagMs);
  if (late) why.push(late);
  return { held: why.length === 0, achieved: round(achieved), why: why.join(', ') || null };
}

/** The cells with every latency block's held/why, and each cell's summary, judged again by heldOf. */
export function rejudgeHeld(cells) {
  return cells.map((c) => {
    if (!c.rounds?.some((r) => r.paced)) return c;
    const rounds = c.rounds.map((r) => (r.paced ? { ...r, paced: { ...r.paced, ...pick(heldOf(r.paced)) } } : r));
    const paced = c.paced ? { ...c.paced, held: rounds.every((r) => !r.paced || r.paced.held) } : c.paced;
    return { ...c, rounds, ...(paced ? { paced } : {}) };
  });
}
const pick = ({ held, why }) => ({ held, why });
