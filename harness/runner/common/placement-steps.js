// Applying a placement (common/placement.js) to a running run in an order the kernel accepts at
// every step — cgroup v1 refuses a child's CPU quota above its parent's, and a parent's cpuset that
// leaves out CPUs a child still has — and putting back what was done when a step fails:
//   1. the run's cpuset widened to the old and the new CPUs together
//   2. the services whose quota per instance shrinks (and their cpuset)
//   3. the run's budget
//   4. the other services: a quota that grows, or the cpuset alone
//   5. the run's cpuset narrowed to the new CPUs
import { availableCpus, formatCpuList, parseCpuList } from './cgroup.js';

/** @typedef {import('./placement.js').Placement} Placement */
/** @typedef {() => void} Undo */

/**
 * Runs each step (each returns what undoes it); when one throws, undoes those done, newest first,
 * and rethrows. Returns what undoes them all.
 * @param {(() => Undo)[]} steps @returns {Undo}
 */
export function undoable(steps) {
  /** @type {Undo[]} */
  const done = [];
  try {
    for (const step of steps) done.push(step());
  } catch (err) {
    for (const undo of done.reverse()) try { undo(); } catch { /* best effort: the error says what failed */ }
    throw err;
  }
  return () => { for (const undo of [...done].reverse()) undo(); };
}

const limit = (cpus) => cpus ?? Infinity;
const union = (a, b) => formatCpuList([...new Set([...parseCpuList(a), ...parseCpuList(b)])].sort((x, y) => x - y));

/**
 * Moves a run from `now` to `next`. `ops` do one thing each and return what undoes it:
 * runCpuset(cpus), runBudget(budget | null), service(name, { cpus?, cpuset? }) for every instance of a
 * service (only what changes is given). A failed step leaves the run as it was, and throws.
 * @param {Placement} now @param {Placement} next
 * @param {{ runCpuset: (cpus: string) => Undo, runBudget: (budget: number | null) => Undo,
 *   service: (name: string, change: { cpus?: number | null, cpuset?: string }) => Undo }} ops
 */
export function applyPlacement(now, next, ops) {
  const cpusetMoves = next.cpuset !== null && next.cpuset !== now.cpuset;
  const cpuset = cpusetMoves ? next.cpuset : undefined;
  const services = Object.keys(next.cpus);
  const shrinks = services.filter((s) => limit(next.cpus[s]) < limit(now.cpus[s]));
  const others = services.filter((s) => !shrinks.includes(s) && (cpusetMoves || next.cpus[s] !== now.cpus[s]));
  const quota = (s) => (next.cpus[s] !== now.cpus[s] ? { cpus: next.cpus[s] } : {});
  /** @type {(() => Undo)[]} */
  const steps = [];
  if (cpusetMoves) steps.push(() => ops.runCpuset(union(now.cpuset ?? formatCpuList(availableCpus()), cpuset)));
  for (const s of shrinks) steps.push(() => ops.service(s, { ...quota(s), cpuset }));
  if (next.budget !== now.budget) steps.push(() => ops.runBudget(next.budget));
  for (const s of others) steps.push(() => ops.service(s, { ...quota(s), cpuset }));
  if (cpusetMoves) steps.push(() => ops.runCpuset(cpuset));
  try {
    undoable(steps);
  } catch (err) {
    throw new Error(`the run could not be placed (${err.message}): what had changed is put back`, { cause: err });
  }
}
