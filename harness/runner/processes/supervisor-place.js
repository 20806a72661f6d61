// The supervisor's `place` command: the run moved while it runs. Its cgroups are rewritten — the
// run's cpuset and budget, each instance's quota — in an order the kernel accepts
// (common/placement-steps.js), and its state with them: instances started later (a restart, a
// restart policy's, a scale's, a reload's new process) take their quota and cpuset from there. One
// command on the supervisor's event loop, so nothing else changes the run meanwhile.
import * as cgroup from '../common/cgroup.js';
import { nextPlacement } from '../common/placement.js';
import { applyPlacement, undoable } from '../common/placement-steps.js';
import { isAlive } from '../../lib/processes.js';

/** @typedef {import('../common/placement.js').Placement} Placement */

/**
 * The run's placement now, and which services can take a quota per instance ({ service: null, or
 * why not }), from its state.
 * @returns {{ now: Placement, placeable: Record<string, string | null> }}
 */
export function placementOfState(state) {
  /** @type {Record<string, number | null>} */
  const cpus = {};
  /** @type {Record<string, string | null>} */
  const placeable = {};
  for (const [name, entry] of Object.entries(state.services ?? {})) {
    if (entry.skipped) placeable[name] = `it does not run locally (${entry.skipped})`;
    else if (entry.oneshot) placeable[name] = 'it is a one-shot job, nothing of it runs';
    else {
      placeable[name] = null;
      cpus[name] = entry.cpus ?? null;
    }
  }
  const cpuset = state.cpuLimits?.pinning?.enforced ? state.isolation?.cpuset ?? null : null;
  return { now: { cpuset, budget: state.isolation?.budget ?? null, cpus }, placeable };
}

/**
 * Whether the run in `state` can be placed as `ask` says: { now, next, width }; throws one line
 * (a PlacementError for bad input) otherwise. The client checks with it before it asks, the
 * supervisor again as it applies.
 * @param {Record<string, any>} state @param {Record<string, any>} ask
 */
export function checkPlace(state, ask) {
  if (state.phase !== 'up') throw new Error(`${state.sample} is ${state.phase ?? 'not up'}: place it once it is up`);
  if (state.reload && isAlive(state.reload.pid))
    throw new Error(`a ${state.reload.op ?? 'reload'} of ${state.reload.service} is in progress (pid ` +
      `${state.reload.pid}): place the run once it has finished`);
  if (!state.cpuLimits?.enforced)
    throw new Error(`${state.sample} runs without CPU limits here (${state.cpuLimits?.reason}): nothing to place`);
  const { now, placeable } = placementOfState(state);
  return { now, ...nextPlacement(now, ask, placeable) };
}

/**
 * Applies a place to the run the supervisor owns: its cgroups, then its state. Returns the
 * placement now.
 * @param {import('./supervisor.js').Supervisor} sup @param {Record<string, any>} ask
 * @returns {Placement}
 */
export function placeRun(sup, ask) {
  const state = sup.store.get();
  if (!state) throw new Error('nothing running here');
  const { now, next, width } = checkPlace(state, ask);
  const { runId } = state;
  const instances = (service) => state.services[service].instances;
  applyPlacement(now, next, {
    runCpuset: (cpus) => cgroup.setRunCpuset(runId, cpus, { adopt: true }),
    runBudget: (budget) => cgroup.setCpuQuota(runId, undefined, budget),
    // The instances share the run's cpuset (their own groups carry only their quota).
    service: (service, { cpus }) => undoable(cpus === undefined ? [] : instances(service)
      .filter((inst) => inst.cgroup?.length).map((inst) => () => cgroup.setCpuQuota(runId, inst.name, cpus))),
  });
  sup.store.update((s) => {
    s.isolation = { ...s.isolation, cpuset: next.cpuset ?? undefined, cpus: width, budget: next.budget ?? undefined };
    if (next.cpuset) s.cpuLimits.pinning = cgroup.pinnedTo(next.cpuset);
    for (const [service, cpus] of Object.entries(next.cpus)) {
      const entry = s.services[service];
      entry.cpus = cpus;
      if (entry.spec) entry.spec.cpus = cpus; // what a scale's new instances are made from
    }
    // A run started unpinned (cgroup v1) has had its cpuset group made: a restarted process joins it too.
    const procs = cgroup.runCpusetProcs(runId);
    for (const inst of Object.values(s.services).flatMap((e) => e.instances ?? []))
      if (procs && inst.cgroupProcs && !inst.cgroupProcs.includes(procs)) inst.cgroupProcs.push(procs);
  });
  sup.log(`placed: cpuset ${next.cpuset ?? 'none'}, budget ${next.budget ?? 'none'}, cpus ${JSON.stringify(next.cpus)}`,
  );
  return next;
}
