// The load generator must not fight the system under test for CPU: the benchmark pins itself (and
// so wrk, autocannon and loadtest, which it runs) to CPUs of its own, and every topology to the
// rest, under the same explicit CPU budget. Where cpusets can't be written, it runs unpinned and
// every result says so.
import os from 'node:os';
import { availableCpus, formatCpuList, pinProcess } from '../../../runner/index.js';

// The generator's priority against other load on the machine (the topologies get the highest CPU
// weight through the runner): nice -10, inherited by wrk and by autocannon's threads.
const GENERATOR_NICE = -10;

function raisePriority() {
  try { os.setPriority(GENERATOR_NICE); return GENERATOR_NICE; } catch { return os.getPriority(); }
}

/** A quarter of the CPUs (at least one) for the generator, the rest for the system under test. */
export function splitCpus(cpus) {
  if (cpus.length < 2) return { generator: cpus, sut: cpus, shared: true };
  const g = Math.max(1, Math.floor(cpus.length / 4));
  return { generator: cpus.slice(0, g), sut: cpus.slice(g), shared: false };
}

/**
 * The CPU budgets a run sweeps: 1, 2, 4, … up to the CPUs left after the generator's. On a machine
 * that leaves a single CPU (2 cores) the second budget is the whole machine, which the generator
 * then shares: its own CPU use is measured in every window and set beside the verdicts.
 */
export function defaultBudgets(cpus) {
  const room = splitCpus(cpus).sut.length; // every CPU where the generator shares them
  const out = [];
  for (let b = 1; b <= room; b *= 2) out.push(b);
  // Every CPU left after the generator's, whether or not a power of two (6 of 8: the cores a team has).
  if (!out.includes(room)) out.push(room);
  if (room < 2 && cpus.length >= 2) out.push(cpus.length);
  return out;
}

/** The budgets a run sweeps and why those: for the list line and results.json (protocol.budgetChoice). */
export function budgetChoice(iso, asked) {
  const budgets = iso.budgets.map((b) => b.budget);
  if (asked) return { budgets, why: 'asked for (BUDGETS=)' };
  const gen = iso.generatorThreads;
  const shared = iso.budgets.filter((b) => b.cpuset === 'all').map((b) => b.budget);
  const whole = shared.length
    ? `; ${shared.join(', ')} CPU${shared.at(-1) > 1 ? 's' : ''} also, the whole machine, which the generator then `
      + 'shares (its share is measured)'
    : '';
  return {
    budgets,
    why: `1, doubling, and every CPU left after the load generator's (CPU ${iso.generatorCpus}`
      + `${gen > 1 ? ', a quarter of them' : ''})${whole}`,
  };
}

/** BUDGETS=1,2 -> [1, 2]; one line naming the problem for anything but whole numbers ≥ 1. */
export function parseBudgets(text) {
  const out = String(text).split(',').map((x) => x.trim()).map((x) => {
    const n = Number(x);
    if (x === '' || !Number.isInteger(n) || n < 1) {
      throw new Error(`BUDGETS: '${x}' is not a whole number of CPUs ≥ 1 (e.g. BUDGETS=1,2)`);
    }
    return n;
  });
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * Plans the isolation: { generatorCpus, sutCpus, budgetCpus, budgets, processes } — `budgets` (whole
 * CPUs) default to defaultBudgets(); each is placed on the CPUs left to the system under test where
 * it fits there (cpuset 'sut'), else on every CPU, shared with the generator (cpuset 'all'); one
 * beyond the machine is refused. `budget` (the drills' and experiments' budget) defaults to every
 * CPU left to the system under test; `processes` is how many processes their scaled topologies use
 * (at least 2, one per CPU of that budget).
 */
/** @param {{ budget?: number, budgets?: number[] }} [options] @param {number[]} [cpus] */
export function planIsolation({ budget, budgets } = {}, cpus = availableCpus()) {
  const split = splitCpus(cpus);
  const room = split.sut.length; // every CPU where the generator shares them
  const budgetCpus = budget ?? room;
  if (!(budgetCpus > 0) || budgetCpus > room) {
    const why = split.shared
      ? `this machine has ${cpus.length} CPU(s)`
      : `${room} CPU(s) are left after the load generator's ${split.generator.length}`;
    throw new Error(`a CPU budget of ${budget} doesn't fit: ${why}`);
  }
  const sweep = budgets ?? defaultBudgets(cpus);
  const over = sweep.find((b) => b > cpus.length);
  if (over) throw new Error(`BUDGETS: ${over} CPUs is more than this machine has (${cpus.length})`);
  return {
    generatorCpus: formatCpuList(split.generator),
    sutCpus: formatCpuList(split.sut),
    generatorThreads: split.generator.length,
    budgetCpus,
    budgets: sweep.map((b) => ({ budget: b, cpuset: split.shared || b > room ? 'all' : 'sut' })),
    processes: Math.max(2, Math.round(budgetCpus)),
    shared: split.shared,
  };
}

/**
 * The isolation the command line asks for: planIsolation() of --budget and --budgets (their text),
 * or the one line that says what is wrong with them.
 * @param {{ budget?: number, budgets?: string }} opts
 */
export const isolationOf = ({ budget, budgets }) =>
  planIsolation({ budget, budgets: budgets === undefined ? undefined : parseBudgets(budgets) });

/** Pins this process to the generator's CPUs. Returns the isolation record kept in the results. */
export function pinGenerator(iso, { pin = pinProcess } = {}) {
  const base = {
    generatorCpus: iso.generatorCpus, sutCpus: iso.sutCpus, budgetCpus: iso.budgetCpus, budgets: iso.budgets,
    generatorThreads: iso.generatorThreads, generatorNice: raisePriority(),
    topologyPriority: 'highest CPU weight (cgroup)',
  };
  const unpinned = (reason) => ({ record: { ...base, pinned: false, reason }, release: () => {} });
  if (iso.shared) return unpinned('fewer than 2 CPUs: the generator and the system under test share them');
  try {
    const handle = pin(`bench-generator-${process.pid}`, process.pid, iso.generatorCpus);
    return { record: { ...base, pinned: true, mechanism: 'cgroup cpuset' }, release: handle.release };
  } catch (e) {
    return unpinned(`cpusets not writable (${e.code ?? e.message}): unpinned`);
  }
}
