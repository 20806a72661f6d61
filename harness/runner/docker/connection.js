// The Docker engine the docker backend talks to: one that already answers (DOCKER_HOST, or the
// system socket), else the private daemon of the Docker tests (harness/docker: its own data root,
// userland proxy off, published ports on 127.0.0.1), started on demand with the stand-in images.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { engineAnswers, EngineChoiceError } from '../engine.js';
import { DOCKER_HOST as PRIVATE_HOST, engineUnavailable, startDaemon, stopDaemon } from '../../docker/daemon.js';
import { buildStandIns } from '../../docker/engine.js';

let standInsChecked = false;
let announced = false; // the line naming the engine: once per process
// The stand-in base images in the private daemon: built once, then found cached (checked once per process).
function standIns() {
  if (standInsChecked) return;
  buildStandIns();
  standInsChecked = true;
}

const answers = (host) => spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], {
  encoding: 'utf8', timeout: 5000, env: { ...process.env, DOCKER_HOST: host },
});

/** The engine, if one runs: { host, private, version }, else null. */
export function runningEngine() {
  if (engineAnswers()) {
    const res = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 5000 });
    return { host: process.env.DOCKER_HOST ?? null, private: false, version: res.stdout.trim() };
  }
  const res = answers(PRIVATE_HOST);
  return res.status === 0 ? { host: PRIVATE_HOST, private: true, version: res.stdout.trim() } : null;
}

/**
 * An engine to run on, started when none runs (the private daemon, then the stand-in images,
 * cached after the first build). Throws EngineChoiceError (one line, exit 2) when none can start.
 * `log` gets the line saying which engine.
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function ensureEngine({ log = () => {} } = {}) {
  let engine = runningEngine();
  if (engine) {
    if (!announced) log(`engine: docker (Docker Engine ${engine.version}, ${engine.private ? 'the private daemon of harness/docker' : engine.host ?? 'the system daemon'})`);
    announced = true;
    if (engine.private) standIns(); // the images this daemon's data root lacks, if any
    return engine;
  }
  const reason = engineUnavailable();
  if (reason) throw new EngineChoiceError(`ENGINE=docker: no Docker engine answers and none can be started here: ${reason}`);
  log('engine: docker (starting the private daemon of harness/docker: userland proxy off, ports on 127.0.0.1)');
  try {
    await startDaemon();
  } catch (err) {
    throw new EngineChoiceError(`ENGINE=docker: ${err.message.split('\n')[0]}`);
  }
  try {
    standIns();
  } catch (err) {
    await stopDaemon();
    throw err;
  }
  engine = runningEngine();
  if (!engine) throw new Error('the private Docker daemon started, then stopped answering');
  log(`engine: docker (Docker Engine ${engine.version}, the private daemon, stand-in images)`);
  announced = true;
  return engine;
}

/** Stops the private daemon (and whatever still runs on it); an engine we did not start is left alone. */
export async function stopPrivateEngine() {
  if (answers(PRIVATE_HOST).status !== 0) return false;
  await stopDaemon();
  return true;
}

/** The cgroup driver and version of an engine: where its containers' cgroups are. */
export function cgroupLayout(host) {
  const res = spawnSync('docker', ['info', '--format', '{{.CgroupDriver}} {{.CgroupVersion}}'], {
    encoding: 'utf8', timeout: 10_000, env: { ...process.env, ...(host ? { DOCKER_HOST: host } : {}) },
  });
  const [driver, version] = res.stdout.trim().split(' ');
  // The containers' cgroups are readable here only on this host's own engine (a Unix socket).
  const local = !host || host.startsWith('unix://') && fs.existsSync(host.slice('unix://'.length));
  return { driver, version: Number(version), local };
}
