// One private Docker daemon with the stand-in images and the samples' own images, for a whole run of
// the Docker tests: the suite's global setup (global-setup.js) calls prepareEngine once and
// stopEngine at the end, also on Ctrl-C; a Docker test file run on its own does the same for itself
// (harness/test/docker/helpers.js). The daemon and the stand-ins are harness/docker-engine/'s, which
// the runner starts for ENGINE=docker too.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { engineUnavailable, startDaemon, stopDaemon, docker, DOCKER_HOST } from '../docker-engine/daemon.js';
import { buildStandIns } from '../docker-engine/build-stand-ins.js';
import { REPO_ROOT } from '../lib/repo-root.js';

let started = false;

// The samples whose compose.yaml builds an image (`build:` with an `image:` tag the tests' projects,
// Swarm stacks and the runner then run).
export const SAMPLES_BUILT = ['node-replicas', 'node-cluster', 'dotnet-api'];

/** Starts the daemon, builds the stand-ins and the samples' images. Null when ready, else why the tests skip. */
export async function prepareEngine() {
  const reason = engineUnavailable();
  if (reason) return reason;
  await startDaemon();
  started = true;
  leaveSwarm();
  process.env.DOCKER_HOST = DOCKER_HOST;
  const onSignal = async (signal) => {
    await stopEngine();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  buildStandIns();
  await Promise.all(SAMPLES_BUILT.map(buildSample));
  return null;
}

export async function stopEngine() {
  if (!started) return;
  started = false;
  leaveSwarm();
  await stopDaemon();
}

// `docker swarm leave` takes name resolution from the containers on bridge networks (moby/moby#45144):
// a Compose project's nginx then finds no upstream ("no live upstreams", make test 2026-12-05, while
// swarm.test.js left). So the daemon leaves a Swarm only here, before the first test file and after
// the last, never while a project runs; swarm.test.js only joins one.
function leaveSwarm() {
  if (swarmState() !== 'inactive') docker(['swarm', 'leave', '--force'], { timeout: 60_000 });
}

/** The daemon's Swarm state: inactive, active, pending, error or locked. */
export function swarmState() {
  return docker(['info', '--format', '{{.Swarm.LocalNodeState}}'], { timeout: 60_000 }).stdout.trim();
}

/** The sample's secret files: `make setup` writes them; compose refuses to start (or build) without them. */
export function secretsReady(sample) {
  const dir = path.join(REPO_ROOT, sample, 'secrets');
  if (fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.endsWith('.txt'))) return;
  spawnSync(path.join(REPO_ROOT, 'harness', 'setup', 'secrets.sh'), { stdio: 'ignore' });
}

// `docker compose build` of the sample's compose.yaml, as `up --build` would build it, beside the
// others (BuildKit shares their common steps); the tests' `up` then finds the tagged image. Throws
// its last lines when it fails.
function buildSample(sample) {
  secretsReady(sample);
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['compose', '-p', `lab-build-${sample}`, 'build', '--quiet'], {
      cwd: path.join(REPO_ROOT, sample),
      env: { ...process.env, DOCKER_HOST },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(undefined)
      : reject(new Error(`${sample}: docker compose build failed: ${err.trim().split('\n').slice(-3).join(' | ')}`))));
  });
}
