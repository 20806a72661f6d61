// The local runner: a sample's compose topology as processes on 127.0.0.1. Its one interface, for
// `make up/ps/down/kill/restart/reload/scale` (harness/bin/lab.js), the benchmark, the orchestrator
// checks and every test outside this folder: nothing else imports a file of it (a lint rule,
// harness/lint/runner-interface.js, fails on such an import). Generic helpers the runner shares
// with the rest (polling, ports, processes by pid, the nginx binary, REPO_ROOT) are in ../lib/.
// See ../CONVENTIONS.md. Each job lives in its own module:
//   compose.js     compose.yaml -> topology          spec.js       ports and each instance's program
//   up.js          starting a run                    teardown.js   stopping one; down.js: down()
//   supervisor.js  the per-run process that owns the instances and the run's state, and applies
//                  `restart:` policies; supervisor-client.js: asking it (readState, or its snapshot)
//   instances.js   ps, signal, restart, waitServing  reload.js     rolling restarts
//   scale.js       instances added or removed        service-change.js  what reload and scale share
//   workers.js     an instance's workers and log (the fault drill's worker kills)
//   state.js       the state's snapshot file         usage.js      CPU time and memory of a run
//   cgroup.js      limits, pinning, accounting       processes.js  spawning and stopping instances
// Their unit tests are in test/ (make test runs them with the harness suite).
import path from 'node:path';
import { DEFAULT_RUN_DIR } from './state.js';
import { readState } from './supervisor-client.js';
import { usage as usageOf } from './usage.js';

// A run: start, inspect, disturb, roll, stop.
export { DEFAULT_RUN_DIR } from './state.js';
export { readState } from './supervisor-client.js';
export { up } from './up.js';
export { down } from './down.js';
export { ps, signal, killHeld, restart, waitServing, isServing } from './instances.js';
export { workerPids, logReader } from './workers.js';
export { reload } from './reload.js';
export { scale } from './scale.js';
export { runProcesses } from './processes.js';

// The samples, and the topology the runner reads from a sample's compose.yaml.
export { listSamples, resolveSample, loadTopology } from './compose.js';

// CPUs: those this machine lets a run use, and pinning a process outside any run (the benchmark's
// load generator) to CPUs of its own.
export { availableCpus, formatCpuList, pinProcess } from './cgroup.js';

/** CPU time, throttling and memory of a running topology (see usage.js). */
export async function usage({ runDir = DEFAULT_RUN_DIR } = {}) {
  const state = await readState(path.resolve(runDir));
  if (!state) throw new Error(`nothing running from ${runDir}`);
  return usageOf(state);
}

// The backend in use: this one (`processes`) or Docker Compose (`docker`, runner/docker/).
export const engine = 'processes';
export { selectEngine, runnerFor, EngineChoiceError, ENGINES } from './engine.js';
