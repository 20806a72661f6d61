// Which backend runs a topology: `processes` (this folder's runner: processes, cgroups, a
// supervisor) or `docker` (Docker Compose v2 with the sample's own compose.yaml, runner/docker/).
// The one place that decides: `make … ENGINE=docker|processes` reaches lab.js and the bench's cli.js
// as --engine; without it, the engine of the run already in the run folder, else docker when an
// engine answers (DOCKER_HOST, or /var/run/docker.sock), else processes.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { readSnapshot } from './state.js';
import { recordFile } from './docker/project.js';
import { isAlive } from '../lib/processes.js';

export const ENGINES = ['docker', 'processes'];

/** A usage error: the CLIs print its one line and exit 2. */
export class EngineChoiceError extends Error {}

const SYSTEM_SOCKET = '/var/run/docker.sock';

/** Whether a Docker engine other than our private one answers here (DOCKER_HOST or the system socket). */
export function engineAnswers(env = process.env) {
  if (!env.DOCKER_HOST && !fs.existsSync(SYSTEM_SOCKET)) return false;
  const res = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 5000, env });
  return res.status === 0;
}

/**
 * The engine a run already in runDir was started on, so `make ps|down|kill|reload` find it without
 * ENGINE=: docker while its record is there (down removes it), processes while the supervisor that
 * wrote its state lives; else null.
 */
export function engineOfRun(runDir) {
  if (fs.existsSync(recordFile(runDir))) return 'docker';
  const pid = readSnapshot(runDir)?.supervisor?.pid;
  return pid && isAlive(pid) ? 'processes' : null;
}

/**
 * The engine to use: `asked` (a CLI option or the ENGINE variable), else the engine of the run in
 * runDir, else the default. Returns { engine, why } — why says how it was chosen, for the line
 * that starts things.
 * @param {string} [asked] @param {{ runDir?: string }} [where]
 */
export function selectEngine(asked = process.env.ENGINE, { runDir } = {}) {
  if (asked !== undefined && asked !== '') {
    if (!ENGINES.includes(asked)) throw new EngineChoiceError(`ENGINE=${asked} is not an engine: use one of ${ENGINES.join(', ')}`);
    return { engine: asked, why: 'asked for' };
  }
  const running = runDir ? engineOfRun(runDir) : null;
  if (running) return { engine: running, why: `the run in ${runDir} is on it` };
  return engineAnswers()
    ? { engine: 'docker', why: 'default: a Docker engine answers' }
    : { engine: 'processes', why: 'default: no Docker engine answers' };
}

/**
 * The backend's module: the same operations (up, down, ps, signal, killHeld, restart, reload, scale, usage,
 * readState; for the bench's drills waitServing, isServing, workerPids, logReader).
 * @param {string} engine @returns {Promise<any>}
 */
export async function runnerFor(engine) {
  return engine === 'docker' ? import('./docker/index.js') : import('./index.js');
}
