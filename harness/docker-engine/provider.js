// The private daemon as an engine provider (runner/common/contract.js EngineProvider): where no
// Docker engine answers, runner/index.js has the Docker backend start this one — its own data root,
// userland proxy off, ports on 127.0.0.1 — and build the stand-in images it needs (no image
// registry is reachable here). A set-up tool the runner is handed, not part of it; the Docker tests
// start the same daemon (harness/test-engine/).
import { DOCKER_HOST, docker, engineUnavailable, startDaemon, stopDaemon } from './daemon.js';
import { buildStandIns } from './build-stand-ins.js';

const NAME = 'the private daemon of harness/docker-engine';
const answers = () => docker(['version', '--format', '{{.Server.Version}}'], { timeout: 5000 }).status === 0;

/** @type {import('../runner/common/contract.js').EngineProvider} */
export const privateEngine = {
  name: NAME,
  unavailable: engineUnavailable,
  running: () => (answers() ? DOCKER_HOST : null),
  start: async ({ log }) => {
    log(`engine: docker (starting ${NAME}: userland proxy off, ports on 127.0.0.1)`);
    await startDaemon();
    return DOCKER_HOST;
  },
  // The stand-in base images this daemon's data root lacks, if any (built once, then cached).
  prepare: () => buildStandIns(),
  stop: async () => {
    if (!answers()) return false;
    await stopDaemon();
    return true;
  },
};
