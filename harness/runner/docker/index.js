// The docker backend: the runner's contract (common/contract.js) done by Docker Compose v2 with the
// sample's own compose files and whatever images they name. runner/index.js hands it out
// (ENGINE=docker, or an engine answering), with the provider of an engine for when none answers.
//   connection.js  the engine: one that answers, else the provider's
//   record.js      the run's record (<runDir>/docker.json), and its one writer
//   project.js     the run's Compose project, docker commands, its containers
//   sample.js      the sample's compose files as the backend reads them (x-bench, healthchecks)
//   override.js    loopback ports and CPU placement   cgroups.js  the run's cgroup_parent
//   up.js, down.js, instances.js (ps, signal, killHeld, restart), reload.js, scale.js, usage.js
//   serving.js     isServing, waitServing     workers.js  a container's workers and log (the drills)
//   exec.js        a command in one container   proxy.js   the sample's nginx in front
//   place.js       the run moved to other CPUs, budget, quotas (docker update, its cgroup_parent)
import fs from 'node:fs';
import { connection, engineAnswers } from './connection.js';
import { recordFile, readRecord } from './record.js';
import { up } from './up.js';
import { down } from './down.js';
import { ps, signal, killHeld, restart } from './instances.js';
import { reload } from './reload.js';
import { scale } from './scale.js';
import { isServing, waitServing } from './serving.js';
import { workerPids, logReader } from './workers.js';
import { usage } from './usage.js';
import { exec } from './exec.js';
import { place } from './place.js';

/**
 * The docker Runner, getting its engine from `provider` where none answers.
 * @param {import('../common/contract.js').EngineProvider} provider
 * @returns {import('../common/contract.js').Runner}
 */
export function dockerRunner(provider) {
  const engine = connection(provider);
  return {
    engine: 'docker',
    available: () => engineAnswers(),
    // A run is there while its record is (down removes it).
    hasRun: (runDir) => fs.existsSync(recordFile(runDir)),
    up: (options) => up(options, engine.ensure),
    down: (options) => down(options, engine.stop),
    ps,
    readState: async (runDir) => readRecord(runDir),
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
    ensureEngine: engine.ensure,
    runningEngine: engine.running,
    stopPrivateEngine: engine.stop,
  };
}
