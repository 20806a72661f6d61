// The runner's front door: it picks the backend that runs a topology and hands out its `Runner`
// (common/contract.js: up, down, ps, readState, signal, killHeld, restart, reload, scale, place, usage,
// logReader, workerPids, isServing, waitServing, exec), and re-exports the engine-independent helpers
// the bench and the tests use. Outside harness/runner nothing imports another file of the runner
// (harness/lint/runner-interface.js). The backends:
//   processes/  the sample's services as processes on 127.0.0.1, in cgroups, under a supervisor
//   docker/     Docker Compose v2 with the sample's own compose files
// They share only common/; neither imports the other (make test's dependency check). See
// ../CONVENTIONS.md.
import { EngineChoiceError, PlacementError } from './common/errors.js';
import { processesRunner } from './processes/index.js';
import { dockerRunner } from './docker/index.js';
import { privateEngine } from '../docker-engine/provider.js';

/** @typedef {import('./common/contract.js').Runner} Runner */
/** @typedef {import('./common/contract.js').Engine} Engine */

/** @type {Engine[]} */
export const ENGINES = ['docker', 'processes'];

// Where no Docker engine answers, the docker backend starts the private daemon of harness/docker-engine
// (a set-up tool: userland proxy off, ports on 127.0.0.1, the stand-in images no registry gives here).
const RUNNERS = { processes: processesRunner, docker: dockerRunner(privateEngine) };

/**
 * The Runner of an engine.
 * @param {string} engine @returns {Runner}
 */
export function runnerFor(engine) {
  if (!Object.hasOwn(RUNNERS, engine))
    throw new EngineChoiceError(`ENGINE=${engine} is not an engine: use one of ${ENGINES.join(', ')}`);
  return RUNNERS[engine];
}

/**
 * The engine to use: `asked` (a CLI option or the ENGINE variable), else the engine of the run
 * already in runDir (so `make ps|down|kill|reload` find it without ENGINE=), else docker when an
 * engine answers (DOCKER_HOST, or /var/run/docker.sock), else processes. Returns { engine, why }:
 * why says how it was chosen, for the line that starts things.
 * @param {string} [asked] @param {{ runDir?: string }} [where] @returns {{ engine: Engine, why: string }}
 */
export function selectEngine(asked = process.env.ENGINE, { runDir } = {}) {
  if (asked !== undefined && asked !== '') return { engine: runnerFor(asked).engine, why: 'asked for' };
  const running = runDir ? ENGINES.find((e) => RUNNERS[e].hasRun(runDir)) : undefined;
  if (running) return { engine: running, why: `the run in ${runDir} is on it` };
  return RUNNERS.docker.available()
    ? { engine: 'docker', why: 'default: a Docker engine answers' }
    : { engine: 'processes', why: 'default: no Docker engine answers' };
}

export { EngineChoiceError, PlacementError };
export { DEFAULT_RUN_DIR } from './common/run-dir.js';
// The samples, and the topology the runner reads from a sample's compose.yaml.
export {
  listSamples, resolveSample, loadTopology, missingSecretFiles, readCompose, LAB_FILE,
} from './common/compose.js';
export { durationMs } from './common/units.js';
// CPUs: those this machine lets a run use, and pinning a process outside any run (the benchmark's
// load generator) to CPUs of its own.
export { availableCpus, formatCpuList, parseCpuList, pinProcess } from './common/cgroup.js';
// Every live process of a run folder, for leak checks.
export { runProcesses } from './common/run-processes.js';
// A command run to completion without blocking the event loop: { code, stdout, stderr }.
export { runCommand } from './common/command.js';
// What is left of a Compose project (the Docker tests' own projects check it after their down too).
export { LEFTOVER_QUERIES } from './docker/project.js';
