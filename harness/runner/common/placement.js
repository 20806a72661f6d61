// Moving a running run (`place`): what is asked — the CPUs the run is pinned to, its one CPU budget,
// a service's quota per instance — checked against this machine and the run as it is, and the
// placement that results. Both backends check by it before they touch anything, so that a bad ask
// changes nothing (a PlacementError: one line).
import { PlacementError } from './errors.js';
import { availableCpus, formatCpuList, parseCpuList } from './cgroup.js';
import { isolationOf } from './isolation.js';

/**
 * A run's CPU placement: `cpuset` the CPU list every process of it is pinned to (null: not pinned),
 * `budget` its one quota over all of it in CPUs (null: none), `cpus` each service's quota per
 * instance in CPUs (null: none).
 * @typedef {{ cpuset: string | null, budget: number | null, cpus: Record<string, number | null> }} Placement
 */

const OPTIONS = ['runDir', 'cpuset', 'budget', 'cpus', 'log'];
const given = (v) => v !== undefined && v !== null;
// A number of CPUs, as a number or its text ("0.5"); NaN for anything else.
const cpuNumber = (v) =>
  typeof v === 'number' || (typeof v === 'string' && /^-?\d*\.?\d+$/.test(v.trim())) ? Number(v) : NaN;
const show = (v) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

// The CPU list asked for, as the machine's CPU list format writes it ("0,1"); one line if it is none.
function cpusetAsked(value) {
  try {
    return formatCpuList(parseCpuList(String(value)));
  } catch (err) {
    throw new PlacementError(`cpuset ${show(value)}: ${err.message}`);
  }
}

function budgetAsked(value) {
  const n = cpuNumber(value);
  if (!(n > 0)) throw new PlacementError(`budget ${show(value)} is not a positive number of CPUs`);
  return n;
}

// Each service's quota asked for: { service: CPUs }. `placeable`: { service: null, or why it can't take one }.
function cpusAsked(value, placeable) {
  if (typeof value !== 'object' || Array.isArray(value))
    throw new PlacementError(`cpus ${show(value)}: expected { <service>: <CPUs per instance> }`);
  const max = availableCpus().length;
  /** @type {Record<string, number>} */
  const out = {};
  for (const [service, v] of Object.entries(value)) {
    if (!Object.hasOwn(placeable, service))
      throw new PlacementError(`no service '${service}' in this run (there are: ${Object.keys(placeable).join(', ')})`,
      );
    if (placeable[service]) throw new PlacementError(`${service} takes no CPU quota: ${placeable[service]}`);
    const n = cpuNumber(v);
    if (!(n >= 0.01 && n <= max))
      throw new PlacementError(`cpus of ${service}: ${show(v)} must be a number of CPUs from 0.01 to ${max}`);
    out[service] = n;
  }
  return out;
}

// isolationOf's check (CPUs this machine lets us use, a budget that fits on them) as a PlacementError.
function fits(check, hint) {
  try {
    return check();
  } catch (err) {
    throw new PlacementError(`${err.message}${hint}`);
  }
}

/**
 * The placement after `ask` ({ cpuset?, budget?, cpus?: { service: CPUs } }, place()'s options),
 * from `now`: what is given changes, the rest stays. `placeable` names every service of the run:
 * null, or why it can't take a quota. Returns { next, width } (width: how many CPUs next.cpuset
 * has, or the machine's where it is not pinned); throws a PlacementError naming what is wrong.
 * @param {Placement} now @param {Record<string, any>} ask @param {Record<string, string | null>} placeable
 * @returns {{ next: Placement, width: number }}
 */
export function nextPlacement(now, ask, placeable) {
  const unknown = Object.keys(ask).filter((k) => !OPTIONS.includes(k));
  if (unknown.length) throw new PlacementError(`place takes cpuset, budget and cpus, not ${unknown.join(', ')}`);
  const cpuset = given(ask.cpuset) ? cpusetAsked(ask.cpuset) : now.cpuset;
  const budget = given(ask.budget) ? budgetAsked(ask.budget) : now.budget;
  const cpus = { ...now.cpus, ...(given(ask.cpus) ? cpusAsked(ask.cpus, placeable) : {}) };
  const width = fits(() => isolationOf({ cpuset }), '').cpus;
  fits(() => isolationOf({ cpuset, budget }), given(ask.budget) ? '' : ': place a budget that fits too');
  // A quota per instance above the whole run's budget can never be used (and cgroup v1 refuses it).
  const over = budget && (given(ask.budget) || given(ask.cpus))
    ? Object.entries(cpus).find(([, c]) => c !== null && c > budget) : undefined;
  if (over)
    throw new PlacementError(
      `${over[0]} would have ${over[1]} CPU(s) per instance, more than the run's budget of ${budget}: place cpus ` +
        `for ${over[0]} of at most ${budget} too`,
    );
  return { next: { cpuset, budget, cpus }, width };
}

/** What changes from `now` to `next`, one phrase each ("cpuset 0,1 -> 1", "app 2 -> 1 CPU per instance"). */
export function changesOf(now, next) {
  const none = (v) => (v === null ? 'none' : String(v));
  const lines = [];
  if (now.cpuset !== next.cpuset) lines.push(`cpuset ${none(now.cpuset)} -> ${next.cpuset}`);
  if (now.budget !== next.budget) lines.push(`budget ${none(now.budget)} -> ${next.budget} CPU`);
  for (const [service, c] of Object.entries(next.cpus))
    if (now.cpus[service] !== c) lines.push(`${service} ${none(now.cpus[service])} -> ${c} CPU per instance`);
  return lines;
}
