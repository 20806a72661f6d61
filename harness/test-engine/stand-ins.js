// One private Docker daemon with the stand-in images, for a whole run of the Docker tests: the
// suite's global setup (global-setup.js) calls prepareEngine once and stopEngine at the end, also on
// Ctrl-C; a Docker test file run on its own does the same for itself (harness/test/docker/helpers.js).
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { engineUnavailable, startDaemon, stopDaemon, DOCKER_HOST } from './daemon.js';

const BUILD = path.join(path.dirname(new URL(import.meta.url).pathname), 'build-stand-ins.sh');
let started = false;

/** Builds (or finds cached) the stand-in images; `dind` too for the three-node Swarm drill. */
export function buildStandIns(which = []) {
  const res = spawnSync(BUILD, which, {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST },
  });
  if (res.status !== 0)
    throw new Error(`stand-in images: build failed: ${res.stderr.trim().split('\n').slice(-3).join(' | ')}`);
}

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
