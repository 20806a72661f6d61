// The load generator must not fight the system under test for CPU: the benchmark pins itself (and
// so wrk, autocannon and loadtest, which it runs) to CPUs of its own, and every topology to the
// rest, under the same explicit CPU budget. Where cpusets can't be written, it runs unpinned and
// every result says so.
import os from 'node:os';
import { availableCpus, formatCpuList, pinProcess } from '../../runner/cgroup.js';

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
 * Plans the isolation: { generatorCpus, sutCpus, budgetCpus, processes } — `budget` (CPUs) defaults
 * to every CPU left to the system under test and must fit there; `processes` is how many
 * processes the scaled topologies use (at least 2, one per CPU of the budget).
 */
/** @param {{ budget?: number }} [options] @param {number[]} [cpus] */
export function planIsolation({ budget } = {}, cpus = availableCpus()) {
  const split = splitCpus(cpus);
  const room = split.shared ? cpus.length : split.sut.length;
  const budgetCpus = budget ?? room;
  if (!(budgetCpus > 0) || budgetCpus > room) {
    throw new Error(`a CPU budget of ${budget} doesn't fit: ${split.shared ? `this machine has ${cpus.length} CPU(s)` : `${room} CPU(s) are left after the load generator's ${split.generator.length}`}`);
  }
  return {
    generatorCpus: formatCpuList(split.generator),
    sutCpus: formatCpuList(split.sut),
    generatorThreads: split.generator.length,
    budgetCpus,
    processes: Math.max(2, Math.round(budgetCpus)),
    shared: split.shared,
  };
}

/**
 * Pins this process to the generator's CPUs. Returns the isolation record kept in the results.
 * @returns {{ record: { pinned: boolean, reason?: string, mechanism?: string, [field: string]: any }, release: () => void }}
 */
export function pinGenerator(iso, { pin = pinProcess } = {}) {
  const base = {
    generatorCpus: iso.generatorCpus, sutCpus: iso.sutCpus, budgetCpus: iso.budgetCpus, generatorThreads: iso.generatorThreads,
    generatorNice: raisePriority(), topologyPriority: 'highest CPU weight (cgroup)',
  };
  if (iso.shared) return { record: { ...base, pinned: false, reason: 'fewer than 2 CPUs: the generator and the system under test share them' }, release: () => {} };
  try {
    const handle = pin(`bench-generator-${process.pid}`, process.pid, iso.generatorCpus);
    return { record: { ...base, pinned: true, mechanism: 'cgroup cpuset' }, release: handle.release };
  } catch (e) {
    return { record: { ...base, pinned: false, reason: `cpusets not writable (${e.code ?? e.message}): unpinned` }, release: () => {} };
  }
}
