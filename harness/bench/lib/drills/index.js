// The drills' front door for the bench's plan: a cell of drillCells (cells.js) run against its
// deployment through the Runner of the deployment's engine.
import { faultDrill } from './fault.js';
import { rolloutDrill } from './rollout.js';
import { lifecycleDrill } from './lifecycle.js';

export { drillCells, whyNotDrillable, appKey, DRILL_DEFAULTS } from './cells.js';
export { DRILL_STRATEGIES, STRATEGY_KEYS, strategyKey } from './strategies.js';
export { accountWrites, keptEverything } from './writes.js';

/**
 * runDrillCell({ cell, runner, runDir, url, app, name, sample, service, log }) -> the drill's record
 * (it names its kind, strategy, engine, processes, budget and app). `app`: the app's x-bench
 * description (default: read from the run); `name`: what the record calls the app.
 * @param {{ cell: any, runner: any, runDir: string, url: string, app?: any, name?: string, sample?: string, service?: string, log?: (line: string) => void }} options
 */
export async function runDrillCell({ cell, runner, runDir, url, app, name, sample, service = 'app', log = () => {} }) {
  const about = { strategy: cell.strategy, processes: cell.processes, budget: cell.budget, app: name ?? cell.app ?? sample ?? null };
  const common = { runner, runDir, service, url, rate: cell.rate, mix: cell.mix, app, about, log };
  if (cell.kind === 'fault') return faultDrill({ ...common, how: cell.how, kills: cell.kills });
  if (cell.kind === 'rollout') return rolloutDrill({ ...common, sample, roll: cell.roll });
  if (cell.kind === 'stop' || cell.kind === 'scale-down') return lifecycleDrill({ ...common, kind: cell.kind, events: cell.events });
  throw new Error(`not a drill cell: kind ${JSON.stringify(cell.kind)}`);
}
