// The Docker engine the docker backend talks to: one that already answers (DOCKER_HOST, or the
// system socket), else the engine of a provider (contract.js EngineProvider; runner/index.js
// gives the private daemon of harness/docker-engine), started on demand.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { EngineChoiceError } from '../common/errors.js';

const SYSTEM_SOCKET = '/var/run/docker.sock';

const versionAt = (env) => spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], {
  encoding: 'utf8', timeout: 5000, env,
});

/** Whether a Docker engine other than a provider's answers here (DOCKER_HOST or the system socket). */
export function engineAnswers(env = process.env) {
  if (!env.DOCKER_HOST && !fs.existsSync(SYSTEM_SOCKET)) return false;
  return versionAt(env).status === 0;
}

/**
 * The engine, if one runs: { host, private, version }, else null.
 * @param {import('../common/contract.js').EngineProvider} provider
 * @returns {import('../common/contract.js').EngineInfo | null}
 */
export function runningEngine(provider) {
  if (engineAnswers()) {
    return { host: process.env.DOCKER_HOST ?? null, private: false, version: versionAt(process.env).stdout.trim() };
  }
  const host = provider.running();
  if (!host) return null;
  const res = versionAt({ ...process.env, DOCKER_HOST: host });
  return res.status === 0 ? { host, private: true, version: res.stdout.trim() } : null;
}

/**
 * The connection to an engine: `ensure` finds one or starts the provider's (once per process it
 * logs which, and prepares a provided one), `stop` stops the provider's.
 * @param {import('../common/contract.js').EngineProvider} provider
 */
export function connection(provider) {
  let announced = false;
  let prepared = false;
  const prepare = () => {
    if (!prepared) provider.prepare();
    prepared = true;
  };
  /** @param {{ log?: (line: string) => void }} [options] */
  async function ensure({ log = () => {} } = {}) {
    let engine = runningEngine(provider);
    if (engine) {
      const which = engine.private ? provider.name : engine.host ?? 'the system daemon';
      if (!announced) log(`engine: docker (Docker Engine ${engine.version}, ${which})`);
      announced = true;
      if (engine.private) prepare();
      return engine;
    }
    const reason = provider.unavailable();
    if (reason) {
      throw new EngineChoiceError(`ENGINE=docker: no Docker engine answers and none can be started here: ${reason}`);
    }
    try {
      await provider.start({ log });
    } catch (err) {
      throw new EngineChoiceError(`ENGINE=docker: ${err.message.split('\n')[0]}`);
    }
    try {
      prepare();
    } catch (err) {
      await provider.stop();
      throw err;
    }
    engine = runningEngine(provider);
    if (!engine) throw new Error('the private Docker daemon started, then stopped answering');
    log(`engine: docker (Docker Engine ${engine.version}, the private daemon, stand-in images)`);
    announced = true;
    return engine;
  }
  return { ensure, running: () => runningEngine(provider), stop: () => provider.stop() };
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
