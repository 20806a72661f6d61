// Are two runs consistent? For every question measured in both (and not suspect): no opposite
// winners, no "wins" in one run where the other says "equal", and each run's ratio within the
// other's 95% interval widened by that interval's width. Identical labels are not asked for: a
// ratio that sits within one between-run spread of the 10% line is "can't tell" in one run and may
// be a win in the next. Per run: the median half-width of the intervals (at most 10% of the ratio).

import { measuredRatio } from './run-to-run-spread.js';
import { decide, labelOf, lowerMedian } from './stats.js';

// The probe's fast time (box.coreSpeed.fastUs) of two runs further apart than this: the host ran at
// another speed, and ratios move with it. Consecutive runs on this machine read within 14% of each
// other; runs a day apart 90-95 us against 120-136 us, with .NET's pi ratio x1.13-x1.16 against
// x1.21-x1.22 (hand runs, 2026-11-25 and 2026-11-26, harness/bench/README.md).
export const HOST_SPEED_TOLERANCE = 0.2;

/** How fast the host ran in each run, by the probe on the topologies' CPU: null where a run has no probe. */
export function hostSpeeds(a, b) {
  const first = a.box?.coreSpeed?.fastUs ?? null;
  const second = b.box?.coreSpeed?.fastUs ?? null;
  if (!(first > 0) || !(second > 0)) return { first, second, ratio: null, differs: null };
  const ratio = second / first;
  return { first, second, ratio, differs: Math.max(ratio, 1 / ratio) > 1 + HOST_SPEED_TOLERANCE };
}

const usable = (v) => measuredRatio(v) && Array.isArray(v.ci95);

function within(ratio, ci) {
  const width = ci[1] - ci[0];
  return ratio >= ci[0] - width && ratio <= ci[1] + width;
}

/** A verdict's label; results of schema 2 (winner or 'tie') get theirs from the interval by today's rule. */
export function verdictLabel(v) {
  // A bounded verdict (schema 4) is compared by what its interval says: the bound is a separate finding.
  if (v.label === 'bounded') return v.statLabel ?? 'cant-tell';
  if (v.label !== undefined) return v.label;
  if (!v.measured && v.measured !== undefined) return null;
  return v.winner && v.winner !== 'tie' ? 'wins' : labelOf(decide(v, v.better ?? 'higher'));
}
const winnerOf = (v) => (verdictLabel(v) === 'wins' ? v.winner ?? v.statWinner : null);

function runSummary(doc) {
  const vs = doc.verdicts.filter(usable);
  const medianHalfWidth = lowerMedian(vs.map((v) => (v.ci95[1] - v.ci95[0]) / 2 / v.ratio));
  const count = (label) => vs.filter((v) => verdictLabel(v) === label).length;
  return {
    medianHalfWidth,
    narrowEnough: medianHalfWidth !== null && medianHalfWidth <= 0.10,
    wins: count('wins'),
    equal: count('equal'),
    cantTell: count('cant-tell'),
  };
}

/** Why two runs' verdicts of one question are not consistent: [] when they are. */
export function inconsistencies(va, vb) {
  const why = [];
  const [la, lb] = [verdictLabel(va), verdictLabel(vb)];
  if (la === 'wins' && lb === 'wins' && winnerOf(va) !== winnerOf(vb)) {
    why.push(`opposite winners (${winnerOf(va)} / ${winnerOf(vb)})`);
  }
  if ((la === 'wins' && lb === 'equal') || (la === 'equal' && lb === 'wins')) why.push(`"${la}" against "${lb}"`);
  if (!within(va.ratio, vb.ci95)) why.push('first ratio outside the second interval widened by its width');
  if (!within(vb.ratio, va.ci95)) why.push('second ratio outside the first interval widened by its width');
  return why;
}

export function compareRuns(a, b) {
  const [A, B] = [a, b].map((doc) => new Map(doc.verdicts.map((v) => [v.id, v])));
  const labelled = (v) => ({ ...v, label: verdictLabel(v), winner: winnerOf(v) });
  const questions = [...new Set([...A.keys(), ...B.keys()])].sort().map((id) => {
    const va = A.get(id);
    const vb = B.get(id);
    if (!usable(va) || !usable(vb)) {
      const why = ['not compared: missing, not measured or suspect in a run'];
      return { id, a: va ?? {}, b: vb ?? {}, compared: false, ok: true, why };
    }
    const why = inconsistencies(va, vb);
    return { id, a: labelled(va), b: labelled(vb), compared: true, ok: why.length === 0, why };
  });
  const compared = questions.filter((q) => q.compared);
  const runs = { first: runSummary(a), second: runSummary(b) };
  const agree = compared.filter((q) => q.ok).length;
  // Consistent: every question agrees. Precise: intervals narrow enough to decide something. Either
  // can fail alone (a noisy machine's honest floors make runs agree by deciding little).
  const consistent = agree === compared.length && compared.length > 0;
  const precise = runs.first.narrowEnough && runs.second.narrowEnough;
  return {
    questions, compared: compared.length, agree, runs, host: hostSpeeds(a, b), consistent, precise,
    ok: consistent && precise,
  };
}
