// `place`: a running run moved to other CPUs, another budget, other quotas per instance, without a
// restart (the benchmark measures one deployment at several budgets and pays its warm-up once).
// The run's supervisor owns its state, so it applies the change (supervisor-place.js); this asks it,
// after the same check, so that bad input fails here with a PlacementError and changes nothing.
import path from 'node:path';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { changesOf } from '../common/placement.js';
import { ask as askSupervisor, readState } from './supervisor-client.js';
import { checkPlace } from './supervisor-place.js';

/**
 * Moves the run in runDir: `cpuset` (a CPU list), `budget` (CPUs over the whole run), `cpus`
 * ({ service: CPUs per instance }); each optional, what is given changes. Returns the placement now:
 * { cpuset, budget, cpus: { service: CPUs | null } }.
 * @param {import('../common/contract.js').PlaceOptions} options
 * @returns {Promise<import('../common/contract.js').Placement>}
 */
export async function place({ runDir = DEFAULT_RUN_DIR, log = () => {}, ...ask } = {}) {
  runDir = path.resolve(runDir);
  const state = await readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  if (state.stale) throw new Error(`${state.sample} can't be placed: ${state.stale.reason}`);
  const { now, next } = checkPlace(state, ask);
  const changes = changesOf(now, next);
  if (!changes.length) return next;
  const placed = await askSupervisor(runDir, 'place', { ask });
  log(`placed ${state.sample}: ${changes.join(', ')}`);
  return placed;
}
