// The local runner: a sample's compose topology as processes on 127.0.0.1. The public API, for
// `make up/ps/down/kill/restart/reload` (harness/bin/lab.js), the tests and the benchmark.
// See ../CONVENTIONS.md. Each job lives in its own module:
//   compose.js     compose.yaml -> topology          spec.js       ports and each instance's program
//   up.js          starting a run                    teardown.js   stopping one; down.js: down()
//   supervisor.js  the per-run process that owns the instances and applies `restart:` policies
//   instances.js   ps, signal, restart               reload.js     rolling restarts
//   state.js       the state file                    usage.js      CPU time and memory of a run
import path from 'node:path';
import { DEFAULT_RUN_DIR, readState } from './state.js';
import { usage as usageOf } from './usage.js';

export { REPO_ROOT } from './compose.js';
export { DEFAULT_RUN_DIR, readState } from './state.js';
export { up } from './up.js';
export { down } from './down.js';
export { ps, signal, killHeld, restart, waitServing } from './instances.js';
export { reload } from './reload.js';

/** CPU time, throttling and memory of a running topology (see usage.js). */
export function usage({ runDir = DEFAULT_RUN_DIR } = {}) {
  const state = readState(path.resolve(runDir));
  if (!state) throw new Error(`nothing running from ${runDir}`);
  return usageOf(state);
}

// The backend in use: this one (`processes`) or Docker Compose (`docker`, runner/docker/).
export const engine = 'processes';
export { selectEngine, runnerFor, EngineChoiceError, ENGINES } from './engine.js';
