// From measured cells to verdicts: each comparison's ratio (a over b) with its 95% interval from
// paired rounds, the winner or "tie", and whether it is suspect — a figure that breaks a physical
// limit, a generator-bound or failing cell — and so kept out. A run that wasn't pinned is flagged
// on every verdict (`unpinned`), not hidden.
import { pairedRatio, withFloor, decide, breaksLimit, round } from './stats.js';

const FIELD = {
  rps: (r) => r.rps,
  p99: (r) => r.latencyMs?.p99,
  cpuPerRequestUs: (r) => r.cpuPerRequestUs,
  memoryMiB: (r) => r.memoryMiB,
  max: (r) => r.latencyMs?.max,
  pacedP99: (r) => r.paced?.latencyMs?.p99,
};
const METRIC_FIELD = { throughput: 'rps', p99: 'p99', cpu: 'cpuPerRequestUs', memory: 'memoryMiB', max: 'max' };
// p99 of the windows at a fixed rate (latencyAt 'fixed rate'), else of the closed-loop windows.
const fieldOf = (q) => (q.metric === 'p99' && q.latencyAt === 'fixed rate' ? 'pacedP99' : METRIC_FIELD[q.metric]);

// A latency window that missed its rate or had failures measured something else than the question.
function pacedProblems(cell) {
  const missed = cell.rounds.filter((r) => r.paced && !r.paced.held);
  return missed.length ? [`${cell.id}: the fixed rate of ${missed[0].paced.rate} req/s was not held in ${missed.length} round(s) (${missed[0].paced.why})`] : [];
}
// Memory sampled through a run comes from one set of processes, so its rounds barely differ (under
// 1%), while fresh processes settle a few per cent apart: across four default runs on 2026-11-22 the
// same memory ratio moved by up to 3%. Its interval is at least that wide.
const REPEATABILITY_FLOOR = { memory: 0.03 };

/** Per-round values of a cell, keyed by round number. */
const byRound = (cell, field) => new Map(cell.rounds.map((r) => [r.round, FIELD[field](r)]));

/** Values of two cells from the rounds both completed, in round order. */
export function paired(a, b, field) {
  const va = byRound(a, field);
  const vb = byRound(b, field);
  const rounds = [...va.keys()].filter((k) => vb.has(k) && Number.isFinite(va.get(k)) && Number.isFinite(vb.get(k))).sort((x, y) => x - y);
  return { a: rounds.map((k) => va.get(k)), b: rounds.map((k) => vb.get(k)) };
}

function cellProblems(cell) {
  const why = [];
  if (cell.status !== 'ok') why.push(`${cell.id} ${cell.status}${cell.error ? `: ${cell.error}` : ''}`);
  else if (cell.errors > 0) why.push(`${cell.id} had ${cell.errors} failed requests`);
  return why;
}

// A generator-bound cell measured the generator's limit, a lower bound of what the server can do:
// a verdict it wins stands (the true margin is larger); any other outcome is kept out.
function generatorProblems(cells, winnerId) {
  return cells.filter((c) => c?.status === 'ok' && c.generatorBound && c.topology.id !== winnerId)
    .map((c) => `${c.id} is generator-bound (${Math.round(c.ceilingShare * 100)}% of the generator's ceiling)`);
}

/** Checks that a measurement obeys a physical limit (a proxied path no faster than direct). */
export function runChecks(checks, cells) {
  const byId = new Map(cells.map((c) => [c.id, c]));
  return checks.map((ch) => {
    const a = byId.get(ch.a);
    const b = byId.get(ch.b);
    if (a?.status !== 'ok' || b?.status !== 'ok') return { ...ch, ratio: null, ci95: null, ok: null };
    const r = pairedRatio(...Object.values(paired(a, b, ch.field)));
    return { ...ch, ratio: round(r.ratio, 3), ci95: r.ci95?.map((x) => round(x, 3)) ?? null, ok: !breaksLimit(r, ch.limit) };
  });
}

/**
 * The verdict of each comparison. Returns entries { id, question, workload, comparison, metric,
 * a, b, better, winner (a topology id, or 'tie'), ratio, ci95, suspect, reasons, rounds, limit }.
 */
export function computeVerdicts(comparisons, cells, { isolation, checks = [] } = {}) {
  const byId = new Map(cells.map((c) => [c.id, c]));
  const failedChecks = checks.filter((c) => c.ok === false);
  return comparisons.map((q) => {
    const a = byId.get(q.a);
    const b = byId.get(q.b);
    const base = { id: q.id, question: q.question, workload: q.workload, comparison: q.comparison, column: q.column, metric: q.metric, ...(q.latencyAt ? { latencyAt: q.latencyAt } : {}), better: q.better, a: a?.topology.id ?? q.a, b: b?.topology.id ?? q.b, cells: [q.a, q.b], limit: q.limit ?? null, unpinned: isolation ? !isolation.pinned : null };
    const reasons = [...(a ? cellProblems(a) : [`${q.a} missing`]), ...(b ? cellProblems(b) : [`${q.b} missing`])];
    if (a?.status !== 'ok' || b?.status !== 'ok') {
      return { ...base, winner: 'tie', ratio: null, ci95: null, suspect: true, measured: false, reasons, rounds: 0 };
    }
    const v = paired(a, b, fieldOf(q));
    if (fieldOf(q) === 'pacedP99') reasons.push(...pacedProblems(a), ...pacedProblems(b));
    const r = withFloor(pairedRatio(v.a, v.b), REPEATABILITY_FLOOR[q.metric]);
    if (q.limit && breaksLimit(r, q.limit.ratio)) reasons.push(`×${round(r.ratio, 2)} is above the physical limit of ×${round(q.limit.ratio, 2)} (${q.limit.why})`);
    for (const ch of failedChecks) if (ch.a === q.a || ch.a === q.b) reasons.push(`check failed: ${ch.what} ×${ch.ratio}`);
    if (r.n < 2) reasons.push(`${r.n} paired round(s): no interval`);
    const side = decide(r, q.better);
    const winner = side === 'a' ? base.a : side === 'b' ? base.b : 'tie';
    reasons.push(...generatorProblems([a, b], winner));
    return {
      ...base,
      winner,
      ratio: round(r.ratio, 3),
      ci95: r.ci95 ? r.ci95.map((x) => round(x, 3)) : null,
      suspect: reasons.length > 0,
      measured: true,
      reasons,
      rounds: r.n,
    };
  });
}

/** The verdicts of a results file again, from its measured cells, with the current rule. */
export function recomputeVerdicts(doc) {
  const comparisons = doc.verdicts.map((v) => ({ ...v, a: v.cells[0], b: v.cells[1] }));
  return computeVerdicts(comparisons, doc.cells, { isolation: doc.isolation, checks: doc.checks ?? [] });
}
