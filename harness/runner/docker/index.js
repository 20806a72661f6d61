// The docker backend: the runner's operations (runner/index.js) done by Docker Compose v2 with the
// sample's own compose files. runner/engine.js picks it (ENGINE=docker, or an engine answering).
//   connection.js  the engine (a running one, or the private daemon of harness/docker)
//   project.js     the run's project, record (<runDir>/docker.json) and containers
//   override.js    loopback ports and CPU placement   cgroups.js  the run's cgroup_parent
//   up.js, down.js, instances.js (ps, signal, killHeld, restart), reload.js, scale.js, usage.js
//   serving.js     isServing, waitServing     workers.js  a container's workers and log (the drills)
//   proxy.js       the sample's nginx in front, and when it sends to a container again
import { readRecord } from './project.js';

export const engine = 'docker';
export { DEFAULT_RUN_DIR } from '../state.js';
export { up } from './up.js';
export { down } from './down.js';
export { ps, signal, killHeld, restart } from './instances.js';
export { reload } from './reload.js';
export { scale } from './scale.js';
export { isServing, waitServing } from './serving.js';
export { workerPids, logReader } from './workers.js';
export { usage } from './usage.js';
export { ensureEngine, runningEngine, stopPrivateEngine } from './connection.js';

/** The run's state as up() returned it (services, url, limits), or undefined. */
export const readState = (runDir) => readRecord(runDir);
