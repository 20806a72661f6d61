// What bounded a cell: a verdict about a strategy holds only where that strategy was the bottleneck.
// From what a saturated window records (the topology's CPU time by role, the wall time, the
// generator's share of the machine, the connections and the answers' count), judged again on every
// `--from`, so an old results file gets today's rule:
//   strategy     the topology spent its CPU budget (at least SPENT of it), or every one of its Node
//                processes kept its one JavaScript thread busy (one process at 2 CPUs using about one
//                is bounded by its thread: that is the answer, not a fault);
//   proxy        nginx's one worker process was busy (at least SPENT of a CPU);
//   connections  the closed loop's connections: by Little's law n connections waiting at least the
//                workload's shortest time cannot pass n / that time (at least SPENT of it reached);
//   generator    the load generator's limit (its measured ceiling, or its share of a machine it
//                shares);
//   machine      none of these, on CPUs the generator shares: the generator, nginx and the kernel's
//                network work took the rest of the cores;
//   unknown      none of these, on CPUs of its own.
import { median, round } from './stats.js';

export const SPENT = 0.9;
// A cell above this share of its load generator's ceiling (ceilings in results.json) measured the generator.
export const GENERATOR_BOUND = 0.7;
// The load generator's share of the whole machine above which a question that shares its CPUs is
// flagged generator-bound: past it, the generator takes more than one core in seven from a 2-core
// topology and competes with it; CPU-heavy requests keep it far below (generator.js).
export const GENERATOR_SHARE_LIMIT = 0.15;

// Of rounds with a wall time; median() keeps the finite values.
const perWall = (rounds, field) => median(rounds.map((r) => (Number.isFinite(r[field]) ? r[field] / r.wallMs : null)));

/**
 * The bound of one ok closed-loop cell: { by, why, usedCpus, appCpus, proxyCpus, budget }, or null
 * where the cell recorded no CPU time (an unpinned run on a machine without cgroups).
 * @param {any} cell
 * @param {{ minLatencyMs?: number, ceilings?: Record<string, { rps: number }>,
 *   generatorShareLimit?: number }} [context]
 */
export function boundOf(cell, { minLatencyMs, ceilings = {}, generatorShareLimit = GENERATOR_SHARE_LIMIT } = {}) {
  if (cell?.status !== 'ok' || !cell.rounds?.length) return null;
  const rounds = cell.rounds.filter((r) => r.wallMs > 0);
  const used = perWall(rounds, 'cpuMs');
  if (!Number.isFinite(used)) return null;
  const t = cell.topology;
  const budget = t.budgetCpus ?? null;
  const app = perWall(rounds, 'appCpuMs');
  const proxy = perWall(rounds, 'proxyCpuMs');
  const rps = cell.rps?.median ?? median(rounds.map((r) => r.rps));
  const base = { usedCpus: round(used, 2), appCpus: round(app, 2), proxyCpus: round(proxy, 2), budget };
  const cpus = (x) => `${round(x, 2)} CPU`;
  const by = (what, why) => ({ ...base, by: what, why });
  if (budget && used >= SPENT * budget) return by('strategy', `spent ${cpus(used)} of its ${budget}-CPU budget`);
  if (t.runtime === 'node' && Number.isFinite(app) && app >= SPENT * t.processes) {
    const many = t.processes > 1;
    return by('strategy', `its ${t.processes} Node process${many ? 'es' : ''} kept ${many ? 'their' : 'its'} `
      + `JavaScript thread${many ? 's' : ''} busy (${cpus(app)} of ${budget} CPU${budget > 1 ? 's' : ''})`);
  }
  if (Number.isFinite(proxy) && proxy >= SPENT) {
    return by('proxy', `nginx's one worker process was busy (${cpus(proxy)})`);
  }
  if (minLatencyMs && cell.connections) {
    const cap = cell.connections / (minLatencyMs / 1000);
    if (rps >= SPENT * cap) {
      return by('connections', `${cell.connections} connections waiting at least ${minLatencyMs} ms cap it at `
        + `${Math.round(cap)} req/s (Little's law); it reached ${Math.round(rps)}`);
    }
  }
  const ceiling = ceilings[cell.tool]?.rps;
  if (ceiling && rps > GENERATOR_BOUND * ceiling) {
    const share = Math.round((100 * rps) / ceiling);
    return by('generator', `${Math.round(rps)} req/s is ${share}% of the load generator's ceiling`);
  }
  const shared = t.cpuset === 'all';
  if (shared && Number.isFinite(cell.generatorShare) && cell.generatorShare > generatorShareLimit) {
    const share = Math.round(cell.generatorShare * 100);
    return by('generator', `the load generator took ${share}% of the machine it shares with it`);
  }
  const spent = `it spent ${cpus(used)} of its ${budget}-CPU budget`;
  if (shared) {
    return by('machine', `${spent}: the load generator, nginx and the kernel's network work share these cores with it`);
  }
  return by('unknown', `${spent} on CPUs of its own`);
}

// A capacity search bounded by the paced generator: its capacity above GENERATOR_BOUND of the
// generator's own measured ceiling (ceilings.paced, the highest rate it holds against a bare nginx).
// A capacity above the ceiling itself disproves that ceiling (the same generator held the higher
// rate, on time, in the search): the ceiling was mis-measured (a stall of a busy machine during its
// search), and it bounds nothing.
function capacityBoundOf(cell, bound, pacedCeiling) {
  const cap = cell.capacity?.rps;
  if (!(pacedCeiling > 0) || !(cap > GENERATOR_BOUND * pacedCeiling) || cap > pacedCeiling) return bound;
  const share = Math.round((100 * cap) / pacedCeiling);
  const why = `its capacity, ${Math.round(cap)} req/s, is ${share}% of the paced generator's ceiling`;
  return { ...bound, by: 'generator', why };
}

/**
 * The cells with `bound` set on every ok closed-loop cell (kept as is on the others), and
 * `capacityBound` where the capacity search had a bound of its own (the paced generator's).
 * @param {any[]} cells
 * @param {{ workloads?: Record<string, any>, ceilings?: Record<string, any>, generatorShareLimit?: number }} [context]
 */
export function withBounds(cells, { workloads = {}, ceilings = {}, generatorShareLimit } = {}) {
  return cells.map((c) => {
    if (c.kind !== 'closed' || c.status !== 'ok') return c;
    const bound = boundOf(c, { minLatencyMs: workloads[c.workload]?.minLatencyMs, ceilings, generatorShareLimit });
    if (!bound) return c;
    const capacityBound = capacityBoundOf(c, bound, ceilings.paced?.rps);
    return { ...c, bound, ...(capacityBound !== bound ? { capacityBound } : {}) };
  });
}

/**
 * Whether a throughput or capacity comparison of two cells rests on the strategies: both cells bounded
 * by their strategy, or the winner bounded by something else while the loser was by its strategy
 * (the winner's true figure is only higher). Returns null where it does, else what bounded it.
 * @param {any} a @param {any} b @param {string | null} winnerId a topology id or null
 */
export function comparisonBound(a, b, winnerId, { metric = 'throughput' } = {}) {
  const cells = [a, b].map((c) => ({ ...c, bound: metric === 'capacity' ? c.capacityBound ?? c.bound : c.bound }));
  if (cells.some((c) => !c.bound) || cells.every((c) => c.bound.by === 'strategy')) return null;
  const winner = cells.find((c) => winnerId && c.topology.id === winnerId);
  const loser = winnerId ? cells.find((c) => c.topology.id !== winnerId) : null;
  if (loser?.bound.by === 'strategy' && winner?.bound.by !== 'strategy') return null;
  const other = cells.filter((c) => c.bound.by !== 'strategy');
  return { by: other[0].bound.by, why: other.map((c) => `${c.topology.label}: ${c.bound.why}`).join('; ') };
}
