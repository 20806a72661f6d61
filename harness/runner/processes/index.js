// The processes backend: the runner's contract (common/contract.js) with every service of a
// sample's compose.yaml run as processes on 127.0.0.1, each instance in a cgroup of its own, and a
// supervisor per run that owns the run's state and applies `restart:` policies. See ../../CONVENTIONS.md.
//   up.js          starting a run                    teardown.js   stopping one; down.js: down()
//   supervisor.js  the per-run process: its state store (supervisor-state.js) and its command
//                  handlers; supervisor-client.js: asking it (readState, or its snapshot.js file)
//   instances.js   ps, signal, restart, waitServing  reload.js     rolling restarts
//   scale.js       instances added or removed        service-change.js  what reload and scale share
//   workers.js     an instance's workers and log     exec.js       a command in an instance's context
//   spec.js        ports and each instance's program nginx.js      nginx's config for loopback
//   spawn.js       starting and stopping processes   jobs.js       build and post_start commands
//   usage.js       CPU time and memory of a run      secrets.js    compose secrets as local files
//   place.js       the run moved to other CPUs, budget, quotas (applied by supervisor-place.js)
import path from 'node:path';
import { isAlive } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { readSnapshot } from './snapshot.js';
import { readState } from './supervisor-client.js';
import { usage as usageOf } from './usage.js';
import { up } from './up.js';
import { down } from './down.js';
import { ps, signal, killHeld, restart, waitServing, isServing } from './instances.js';
import { workerPids, logReader } from './workers.js';
import { reload } from './reload.js';
import { scale } from './scale.js';
import { exec } from './exec.js';
import { place } from './place.js';

/** CPU time, throttling and memory of a running topology (see usage.js). */
async function usage({ runDir = DEFAULT_RUN_DIR } = {}) {
  const state = await readState(path.resolve(runDir));
  if (!state) throw new Error(`nothing running from ${runDir}`);
  return usageOf(state);
}

/** @type {import('../common/contract.js').Runner} */
export const processesRunner = {
  engine: 'processes',
  available: () => true,
  // A run is there while the supervisor that wrote its snapshot lives.
  hasRun: (runDir) => {
    const pid = readSnapshot(runDir)?.supervisor?.pid;
    return Boolean(pid && isAlive(pid));
  },
  up,
  down,
  ps,
  readState,
  signal,
  killHeld,
  restart,
  reload,
  scale,
  place,
  usage,
  logReader,
  workerPids,
  isServing,
  waitServing,
  exec,
};
