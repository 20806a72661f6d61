// One private Docker daemon with the stand-in images, for a whole run of the Docker tests: the
// suite's global setup (global-setup.js) calls prepareEngine once and stopEngine at the end, also on
// Ctrl-C; a Docker test file run on its own does the same for itself (harness/test/docker/helpers.js).
// The daemon and the images are harness/docker-engine/'s, which the runner starts for ENGINE=docker too.
import { engineUnavailable, startDaemon, stopDaemon, DOCKER_HOST } from '../docker-engine/daemon.js';
import { buildStandIns } from '../docker-engine/build-stand-ins.js';

let started = false;

/** Starts the daemon and builds the stand-ins. Returns null when ready, else why the tests skip. */
export async function prepareEngine() {
  const reason = engineUnavailable();
  if (reason) return reason;
  await startDaemon();
  started = true;
  process.env.DOCKER_HOST = DOCKER_HOST;
  const onSignal = async (signal) => {
    await stopEngine();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  buildStandIns();
  return null;
}

export async function stopEngine() {
  if (!started) return;
  started = false;
  await stopDaemon();
}
