// The stand-in base images in the private daemon (build-stand-ins.sh: built from Debian packages, as
// no image registry is reachable here; cached, so a second call finds them).
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { DOCKER_HOST } from './daemon.js';

const BUILD = path.join(import.meta.dirname, 'build-stand-ins.sh');

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
