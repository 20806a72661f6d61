// The drills' front door for the bench's plan: a drill cell of drillCells (cells.js) — kind fault,
// rollout, stop or scale-down, with its topology and mix — run against its deployment through the
// Runner of the deployment's engine.
import { faultDrill } from './fault.js';
import { rolloutDrill } from './rollout.js';
import { lifecycleDrill } from './lifecycle.js';
import { drillOf } from './strategies.js';
import { describeSample } from '../topologies/app-descriptions.js';
import { lateWhy, LATE_TRIES, SEND_LAG_P99_BOUND_MS } from '../judge/send-lag-bound.js';
import { swarmRolloutDrill } from './swarm.js';
import { DRILL_KINDS } from '../report/drill-verdict.js';

/** @typedef {import('../../../runner/index.js').Runner} Runner */

export { drillCells, whyNotDrillable, DRILL_DEFAULTS } from './cells.js';
export { STRATEGY_KEYS } from './strategies.js';

// Who and what a drill cell drills, copied into its record (results.json describes itself).
function aboutOf(cell, name) {
  const what = cell.orchestrator === 'swarm' ? SWARM_TEXT : drillOf(cell.strategy).text[cell.kind];
  return { strategy: cell.strategy, processes: cell.processes, budget: cell.budget, app: name ?? cell.app, what };
}

const SWARM_TEXT =
  '`docker service update --force` on a Swarm stack (the sample\'s compose.swarm.yaml): Swarm starts a new task, ' +
  'healthy first, takes the old one out of its DNS, then stops it, one at a time';

// A drill whose generator sent late (judge/send-lag-bound.js) is run again, LATE_TRIES times in all; if every
// try was late it throws one line with the lag each saw, and nothing of it is kept. The record keeps
// `tries` and, when some were late, `lateTries` (their send lag).
export async function keptUnlessLate(once, log, boundMs = SEND_LAG_P99_BOUND_MS) {
  const late = [];
  for (let tries = 1; tries <= LATE_TRIES; tries += 1) {
    const drill = await once();
    const why = lateWhy(drill.sendLagMs, boundMs);
    if (!why) return { ...drill, tries, ...(late.length ? { lateTries: late } : {}) };
    late.push(drill.sendLagMs);
    log(`try ${tries} of ${LATE_TRIES} not kept: ${why}`);
  }
  const seen = late.map((l) => `p99 ${Math.round(l.p99)} ms / max ${Math.round(l.max)} ms`).join('; ');
  throw new Error(
    `not measured: the generator could not hold its rate in ${LATE_TRIES} tries (send lag ${seen}; ` +
      `the bound is ${boundMs} ms at p99), so nothing of this drill is published`,
  );
}

/**
 * runDrillCell({ cell, runner, runDir, url, app, name, log }) -> the drill's record: it
 * names its kind, strategy, engine, processes, budget, app and what was done (`what`). `app`: the
 * app's description (default: describeSample of the cell's topology's sample).
 * A drill whose generator sent late is run again (keptUnlessLate); `sendLagBoundMs` (default judge/send-lag-bound.js's)
 * is the bound: a test that asserts no latency may take any, a hand run on a busy machine a larger one.
 * @param {{ cell: any, runner: Runner, runDir: string, url: string, app?: any, name?: string,
 *   log?: (line: string) => void, sendLagBoundMs?: number }} options
 */
export async function runDrillCell({ cell, runner, runDir, url, app, name, log = () => {}, sendLagBoundMs }) {
  if (!DRILL_KINDS.includes(cell.kind)) throw new Error(`not a drill cell: kind ${JSON.stringify(cell.kind)}`);
  const described = app ?? describeSample(cell.topology.sample);
  const about = aboutOf(cell, name);
  const common = { runner, runDir, url, rate: cell.rate, mix: cell.mix, app: described, about, log };
  return keptUnlessLate(() => {
    if (cell.kind === 'fault') return faultDrill({ ...common, how: cell.how, kills: cell.kills });
    if (cell.kind === 'rollout') return rolloutDrill({ ...common, sample: described.folder, roll: cell.roll });
    return lifecycleDrill({ ...common, kind: cell.kind, events: cell.events });
  }, log, sendLagBoundMs);
}

/**
 * runSwarmCell({ cell, runner, app, log }): a Swarm rolling update cell (plan: orchestrator 'swarm')
 * on the Docker engine of `runner` (the docker backend's): its stack deployed, rolled `cell.events`
 * times under the load and removed (swarm.js). Its record as runDrillCell's, engine 'swarm'.
 * @param {{ cell: any, runner?: Runner, app: any, log?: (line: string) => void }} options
 */
export async function runSwarmCell({ cell, runner, app, log = () => {} }) {
  const engine = /** @type {any} */ (runner)?.runningEngine?.();
  if (!engine) throw new Error('no Docker engine answers for the Swarm drill');
  return keptUnlessLate(() => swarmRolloutDrill({
    host: engine.host, ownEngine: Boolean(engine.private), app, env: cell.topology.env, processes: cell.processes,
    rate: cell.rate, mix: cell.mix, events: cell.events, about: aboutOf(cell), log,
  }), log);
}
