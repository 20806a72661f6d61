// From measured cells to verdicts: each comparison's ratio (a over b) with its 95% interval from
// paired rounds, its label (wins, equal, can't tell), and whether it is suspect — a figure that
// breaks a physical limit, a generator-bound or failing cell — and so kept out. A run that wasn't
// pinned is flagged on every verdict (`unpinned`), not hidden.
import {
  pairedRatio, withFloor, decide, labelOf, breaksLimit, round, blockBootstrapRatio, median, MIN_DIFFERENCE,
} from './stats.js';
import { quantileOf } from './latency-histogram.js';
import { heldOf } from './held-rate.js';
import { comparisonBound, GENERATOR_SHARE_LIMIT } from './bottleneck.js';

const FIELD = {
  rps: (r) => r.rps,
  p99: (r) => r.latencyMs?.p99,
  cpuPerRequestUs: (r) => r.cpuPerRequestUs,
  memoryMiB: (r) => r.memoryMiB,
  max: (r) => r.latencyMs?.max,
  pacedP99: (r) => r.paced?.latencyMs?.p99,
  pacedCpu: (r) => r.paced?.cpuPerRequestUs,
};
const METRIC_FIELD = {
  throughput: 'rps', capacity: 'rps', p99: 'p99', cpu: 'cpuPerRequestUs', memory: 'memoryMiB', max: 'max',
};
// p99 and CPU per request of the windows at a fixed rate (latencyAt 'fixed rate'), else of the
// closed-loop windows.
const AT_FIXED_RATE = { p99: 'pacedP99', cpu: 'pacedCpu' };
const fieldOf = (q) => (q.latencyAt === 'fixed rate' && AT_FIXED_RATE[q.metric]) || METRIC_FIELD[q.metric];

// A latency window that missed its rate or had failures measured something else than the question
// (judged again from the record, by the current rule: judge/held-rate.js).
function pacedProblems(cell) {
  const missed = cell.rounds.filter((r) => r.paced).map((r) => ({ rate: r.paced.rate, ...heldOf(r.paced) }))
    .filter((h) => !h.held);
  if (!missed.length) return [];
  const [first] = missed;
  return [`${cell.id}: the fixed rate of ${first.rate} req/s was not held in ${missed.length} round(s) (${first.why})`];
}
// Memory sampled through a run comes from one set of processes, so its rounds barely differ (under
// 1%), while fresh processes settle a few per cent apart: between two default runs on 2026-11-22 the
// same memory ratio moved by 3–8% (the cluster's ×2.02 and ×2.13, ×1.97 and ×2.12). Its interval is
// at least ±5% — each run's share of that spread.
const REPEATABILITY_FLOOR = { memory: 0.05 };

// A p99 at a fixed rate is compared as the p99 of a typical second: the median over a cell's 1 s
// latency slices of each slice's p99, with its interval from resampling the slices in pairs (a's and
// b's i-th slices were taken seconds apart). On a shared VM the seconds the hypervisor stalls every
// cell alike (30–90 ms p99s in all four cells of one round, 2026-11-22) decide a pooled p99 and swung
// its ratio ×0.3–×3; the median second is the topology's own tail. Results without slices: paired
// rounds. CPU per request at a fixed rate the same way: over the paired slices, each side's CPU time
// by its requests, its interval from resampling the pairs (25 slices where 5 rounds gave ±20%).
const perRequest = (xs) => xs.reduce((s, x) => s + x[0], 0) / xs.reduce((s, x) => s + x[1], 0);
const SLICED = {
  p99: (a, b) => overSlices(a, b, 'sliceHistograms', (hs) => median(hs.map((h) => quantileOf([h], 0.99)))),
  cpu: (a, b) => overSlices(a, b, 'sliceCpu', perRequest),
};
function overSlices(a, b, field, stat) {
  const [sa, sb] = [a, b].map((cell) =>
    new Map(cell.rounds.flatMap((r) => (r.paced?.[field] ?? []).map((x, i) => [`${r.round}:${i}`, x]))));
  const keys = [...sa.keys()].filter((k) => sb.has(k));
  if (keys.length < 4) return null; // too few to resample: per round, as results without slices
  const r = blockBootstrapRatio(keys.map((k) => sa.get(k)), keys.map((k) => sb.get(k)), stat);
  return { ...r, rounds: new Set(keys.map((k) => k.split(':')[0])).size, slices: keys.length };
}
// Capacity at the latency target: the saturated throughput's paired ratio times the ratio of the
// fractions of it each side held at a fixed rate; its interval the paired one widened by both
// sides' bisection brackets (run/capacity.js) — never narrower than what either measurement knows.
function capacityRatio(a, b) {
  const [ca, cb] = [a.capacity, b.capacity];
  if (!ca?.fraction || !cb?.fraction) return null;
  const r = roundsRatio(a, b, 'rps');
  if (r.ratio === null) return r;
  const [fa, fb] = [ca.bracket, cb.bracket];
  return {
    ratio: r.ratio * (fa[0] / fb[0]),
    ci95: r.ci95 ? [r.ci95[0] * (fa[0] / fb[1]), r.ci95[1] * (fa[1] / fb[0])] : null,
    n: r.n,
  };
}
const capacityProblems = (cell) => {
  if (cell.capacity?.late) return [`${cell.id}: its capacity was not measured: ${cell.capacity.late}`];
  if (!cell.capacity || cell.capacity.fraction) return [];
  return [`${cell.id} held no fixed rate under the ${cell.capacity.p99TargetMs} ms target: `
    + `its capacity is below ${cell.capacity.range[0]} of its saturated throughput`];
};

// Throughput and capacity say something about a strategy only where it bounded the cells (judge/bottleneck.js).
const BOUND_METRICS = new Set(['throughput', 'capacity']);

/** The paired ratio of two cells' values (pairedRatio) over the rounds both completed, in round order. */
export function roundsRatio(a, b, field) {
  const [va, vb] = [a, b].map((cell) => new Map(cell.rounds.map((r) => [r.round, FIELD[field](r)])));
  const rounds = [...va.keys()].filter((k) => vb.has(k) && Number.isFinite(va.get(k)) && Number.isFinite(vb.get(k)))
    .sort((x, y) => x - y);
  return pairedRatio(rounds.map((k) => va.get(k)), rounds.map((k) => vb.get(k)));
}

function cellProblems(cell) {
  if (cell.status !== 'ok') return [`${cell.id} ${cell.status}${cell.error ? `: ${cell.error}` : ''}`];
  return cell.errors > 0 ? [`${cell.id} had ${cell.errors} failed requests`] : [];
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
    const r = roundsRatio(a, b, ch.field);
    const ci95 = r.ci95?.map((x) => round(x, 3)) ?? null;
    return { ...ch, ratio: round(r.ratio, 3), ci95, ok: !breaksLimit(r, ch.limit) };
  });
}

/**
 * An open-loop rate can't be sustained above what the same topology serves in a closed loop (its
 * capacity: the probe taken right before the search, or its saturated windows of the same workload
 * in this run, whichever is higher): one that is, beyond the 10% a verdict calls noise, is suspect.
 * Returns the cells with `suspect` set on such open-loop cells (and cleared on the others).
 */
export function flagOpenLoop(cells) {
  return cells.map((c) => {
    if (c.kind !== 'openloop' || c.status !== 'ok') return c;
    const { suspect, ...rest } = c;
    const closed = cells.find((x) =>
      x.kind === 'closed' && x.status === 'ok' && x.workload === c.workload && x.topology?.id === c.topology.id);
    const capacity = Math.max(c.probeRps ?? 0, closed?.rps?.median ?? 0);
    if (!(capacity > 0) || !(c.maxRate > capacity * (1 + MIN_DIFFERENCE))) return rest;
    const why = `sustained ${round(c.maxRate, 0)} req/s, ×${round(c.maxRate / capacity, 2)} of its closed-loop `
      + `capacity (${round(capacity, 0)} req/s): beyond a physical limit`;
    return { ...rest, suspect: why };
  });
}

/**
 * The generator's share of the machine during two cells' saturated windows (the larger), and
 * whether it shares their CPUs; only a question that shares them can be generator-bound.
 */
function generatorOf(a, b) {
  const shares = [a, b].map((c) => c.generatorShare).filter(Number.isFinite);
  if (!shares.length) return null;
  const share = Math.max(...shares);
  const shared = [a, b].some((c) => c.topology.cpuset === 'all');
  return {
    share: round(share, 3), shared, bound: shared && share > GENERATOR_SHARE_LIMIT, limit: GENERATOR_SHARE_LIMIT,
  };
}

// A question whose spread between runs was never measured (repeatability.json has no entry for it)
// gets the interval of its own rounds, and says so (floorKnown: false): nothing says how far a
// second run's ratio may move. floorId: the id the same question had in a spread written before
// budgets were swept (kept in results files of that time); its own id comes first.
function floorFor(q, floors) {
  const known = floors[q.id] ?? (q.floorId ? floors[q.floorId] : undefined);
  return known ? { floor: known, known: true } : { floor: 0, known: false };
}

// What every verdict of a comparison says, measured or not.
function verdictBase(q, a, b, isolation) {
  return {
    id: q.id, question: q.question, workload: q.workload, comparison: q.comparison, column: q.column,
    metric: q.metric, ...(q.latencyAt ? { latencyAt: q.latencyAt } : {}), better: q.better,
    a: a?.topology.id ?? q.a, b: b?.topology.id ?? q.b, cells: [q.a, q.b],
    budget: q.budget ?? a?.topology.budgetCpus ?? null,
    ...(q.strategy ? { strategy: q.strategy } : {}), ...(q.floorId ? { floorId: q.floorId } : {}),
    ...(q.control ? { control: q.control } : {}), limit: q.limit ?? null,
    unpinned: isolation ? !isolation.pinned : null,
  };
}

// The ratio over slices or brackets where the question has one (p99 and CPU at a fixed rate,
// capacity), else null: paired rounds.
function pooledRatio(q, a, b) {
  if (q.latencyAt === 'fixed rate' && SLICED[q.metric]) return SLICED[q.metric](a, b);
  return q.metric === 'capacity' ? capacityRatio(a, b) : null;
}

/**
 * The verdict of each comparison. Returns entries { id, question, workload, comparison, metric, a,
 * b, better, budget, label ('wins' | 'equal' | 'cant-tell' | null when not measured), winner (a
 * topology id when label is 'wins', else null), ratio, ci95, suspect, reasons, rounds, limit,
 * generator ({ share, shared, bound, limit }), floorKnown }.
 * @param {any[]} comparisons @param {any[]} cells
 * @param {{ isolation?: { pinned: boolean }, checks?: object[], floors?: Record<string, number> }} [options]
 * @returns {any[]}
 */
export function computeVerdicts(comparisons, cells, { isolation, checks = [], floors = {} } = {}) {
  const byId = new Map(cells.map((c) => [c.id, c]));
  const failedChecks = checks.filter((c) => c.ok === false);
  return comparisons.map((q) => {
    const a = byId.get(q.a);
    const b = byId.get(q.b);
    const base = verdictBase(q, a, b, isolation);
    const reasons = [...(a ? cellProblems(a) : [`${q.a} missing`]), ...(b ? cellProblems(b) : [`${q.b} missing`])];
    if (a?.status !== 'ok' || b?.status !== 'ok') {
      return {
        ...base, label: null, winner: null, ratio: null, ci95: null, suspect: true, measured: false, reasons, rounds: 0,
        generator: null,
      };
    }
    if (q.latencyAt === 'fixed rate') reasons.push(...pacedProblems(a), ...pacedProblems(b));
    const pooled = pooledRatio(q, a, b);
    if (q.metric === 'capacity') reasons.push(...capacityProblems(a), ...capacityProblems(b));
    // At least as wide as the question's spread over repeated runs (judge/run-to-run-spread.js), and for memory ±5%.
    const between = floorFor(q, floors);
    const floor = Math.max(REPEATABILITY_FLOOR[q.metric] ?? 0, between.floor);
    const r = withFloor(pooled ?? roundsRatio(a, b, fieldOf(q)), floor);
    if (q.limit && breaksLimit(r, q.limit.ratio)) {
      reasons.push(`×${round(r.ratio, 2)} is above the physical limit of ×${round(q.limit.ratio, 2)} (${q.limit.why})`);
    }
    const failed = failedChecks.filter((ch) => ch.a === q.a || ch.a === q.b);
    reasons.push(...failed.map((ch) => `check failed: ${ch.what} ×${ch.ratio}`));
    if (!r.ci95) reasons.push(pooled ? `${r.n} paired slice(s): no interval` : `${r.n} paired round(s): no interval`);
    const side = decide(r, q.better);
    const won = side === 'a' ? base.a : side === 'b' ? base.b : null;
    reasons.push(...generatorProblems([a, b], won));
    // A comparison whose cells something other than the strategies bounded is labelled for that.
    const bound = BOUND_METRICS.has(q.metric) ? comparisonBound(a, b, won, { metric: q.metric }) : null;
    return {
      ...base,
      label: bound ? 'bounded' : labelOf(side),
      ...(bound ? { bound, statLabel: labelOf(side), statWinner: won } : {}),
      winner: bound ? null : won,
      ratio: round(r.ratio, 3),
      ci95: r.ci95 ? r.ci95.map((x) => round(x, 3)) : null,
      suspect: reasons.length > 0,
      measured: true,
      reasons,
      rounds: pooled?.rounds ?? r.n,
      ...(pooled?.slices ? { slices: pooled.slices } : {}),
      generator: generatorOf(a, b),
      floorKnown: between.known,
      ...(between.floor ? { betweenRuns: round(between.floor, 3) } : {}),
    };
  });
}

/** The median floor of the measured throughput questions: what a scaling interval borrows. */
export function throughputFloor(floors = {}) {
  return median(Object.entries(floors).filter(([id]) => id.endsWith('.throughput')).map(([, f]) => f)) ?? 0;
}
