// Do two runs give the same verdicts? For every question measured in both (and not suspect):
// the same winner or a tie in both, and each run's ratio within the other's 95% interval widened by
// that interval's width. Per run: the median half-width of the intervals (narrow enough to decide:
// at most 10% of the ratio) and whether every question whose sides differ by more than 25% names a
// winner — agreement bought by calling everything a tie does not count.

import { measuredRatio } from './repeatability.js';

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

function runSummary(doc) {
  const vs = doc.verdicts.filter(usable);
  const half = vs.map((v) => (v.ci95[1] - v.ci95[0]) / 2 / v.ratio).sort((p, q) => p - q);
  const medianHalfWidth = half.length ? half[Math.floor((half.length - 1) / 2)] : null;
  const big = vs.filter((v) => v.ratio > 1.25 || v.ratio < 1 / 1.25);
  const undecided = big.filter((v) => v.winner === 'tie').map((v) => v.id);
  return { verdicts: vs.length, medianHalfWidth, narrowEnough: medianHalfWidth !== null && medianHalfWidth <= 0.10, big: big.length, decided: big.length - undecided.length, undecided };
}

export function compareRuns(a, b) {
  const byId = (doc) => new Map(doc.verdicts.map((v) => [v.id, v]));
  const A = byId(a);
  const B = byId(b);
  const questions = [];
  for (const id of [...new Set([...A.keys(), ...B.keys()])].sort()) {
    const va = A.get(id);
    const vb = B.get(id);
    const why = [];
    if (!usable(va) || !usable(vb)) {
      questions.push({ id, a: va ?? {}, b: vb ?? {}, compared: false, ok: true, why: ['not compared: missing, not measured or suspect in a run'] });
      continue;
    }
    if (va.winner !== vb.winner) why.push(`winner differs (${va.winner} / ${vb.winner})`);
    if (!within(va.ratio, vb.ci95)) why.push('first ratio outside the second interval by more than its width');
    if (!within(vb.ratio, va.ci95)) why.push('second ratio outside the first interval by more than its width');
    questions.push({ id, a: va, b: vb, compared: true, ok: why.length === 0, why });
  }
  const compared = questions.filter((q) => q.compared);
  const runs = { first: runSummary(a), second: runSummary(b) };
  const agree = compared.filter((q) => q.ok).length;
  return {
    questions, compared: compared.length, agree, runs, host: hostSpeeds(a, b),
    ok: agree === compared.length && compared.length > 0 && runs.first.narrowEnough && runs.second.narrowEnough
      && runs.first.undecided.length === 0 && runs.second.undecided.length === 0,
  };
}
