// Operations on the instances of a running topology: list them, signal one, restart one. The
// run's supervisor does each (it owns the instances and the state); these ask it.
import path from 'node:path';
import { checkOnce } from '../common/health.js';
import { readmissionMs, renderedConf } from './nginx.js';
import { isAlive } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { findInstance } from './snapshot.js';
import { statusOf, psRows } from './ps-rows.js';
import { call, ask, readState, staleSnapshot, SupervisorUnreachable } from './supervisor-client.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One row per instance: { service, index, name, pid, url, status, exit (last exit code or signal), restarts, children
 * }.
 * Where the run's supervisor is gone, the rows come from its last snapshot and carry `stale: true`.
 */
export async function ps(opts = {}) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  try {
    return await call(runDir, 'ps');
  } catch (err) {
    if (!(err instanceof SupervisorUnreachable)) throw err;
    return psRows(staleSnapshot(runDir)).map((row) => ({ ...row, stale: true }));
  }
}

// kill -9 reaches the whole instance (as when a container dies); other signals go to its main
// process. To the restart policy this is a crash or an exit of the process, not a stop on purpose.
/** @param {{ runDir?: string, service: string, index: number | string, signal?: string | number }} options */
export async function signal({ runDir = DEFAULT_RUN_DIR, service, index, signal: sig = 'SIGKILL' }) {
  return ask(path.resolve(runDir), 'signal', { service, index: Number(index), signal: sig });
}

/** Kills one instance on purpose, as `docker kill` does: its restart policy stays out of it, it stays down. */
export async function killHeld({ runDir = DEFAULT_RUN_DIR, service, index }) {
  return ask(path.resolve(runDir), 'kill', { service, index: Number(index) });
}

/**
 * Stops one instance on purpose (its restart policy stays out of it), starts it again on the same
 * port, waits until healthy. Restarts of one instance from several callers happen one after the other.
 */
export async function restart({ runDir = DEFAULT_RUN_DIR, service, index }) {
  return ask(path.resolve(runDir), 'restart', { service, index: Number(index) }, { timeoutMs: 15 * 60_000 });
}

/** The nginx services whose rendered configuration sends to `service`'s instances: [{ name, entry, inst }]. */
export function proxiesOf(state, service) {
  const ports = new Set(state.services[service].instances.map((i) => i.port));
  const text = renderedConf(state.runDir);
  const proxied = [...text.matchAll(/server\s+127\.0\.0\.1:(\d+)/g)].some((m) => ports.has(Number(m[1])));
  return Object.entries(state.services)
    .filter(([, entry]) => proxied && entry.spec?.local?.nginx && entry.instances.length)
    .map(([name, entry]) => ({ name, entry, inst: entry.instances[0] }));
}

/** Whether an instance answers its health check now, on the port it has now. */
export async function isServing({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const state = await readState(path.resolve(runDir));
  if (!state) throw new Error(`nothing running from ${runDir}`);
  const { entry, inst } = findInstance(state, service, index);
  return checkOnce(inst.port, entry.healthcheck);
}

/**
 * Waits until an instance that died serves again: its current process — another one than
 * `notPid` — answers its health check and, when nginx sends to it, nginx's passive check has let
 * it back (fail_timeout + 1 s after it answered: nginx skips a failed server that long).
 * Returns { pid, healthyAt, inRotationAt } (epoch ms).
 */
export async function waitServing({ runDir = DEFAULT_RUN_DIR, service, index, notPid, timeoutMs = 120_000 }) {
  runDir = path.resolve(runDir);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await readState(runDir);
    if (!state) throw new Error(`nothing running from ${runDir}`);
    if (state.stale) throw new Error(`nothing brings ${service}/${index} back: ${state.stale.reason}`);
    const { entry, inst } = findInstance(state, service, index);
    if (inst.pid !== notPid && !inst.restarting && isAlive(inst.pid) && await checkOnce(inst.port, entry.healthcheck)) {
      const healthyAt = Date.now();
      const wait = proxiesOf(state, service).length ? readmissionMs(runDir, inst.port) : 0;
      await sleep(wait);
      return { pid: inst.pid, healthyAt, inRotationAt: Date.now() };
    }
    if (Date.now() > deadline)
      throw new Error(`${inst.name} did not serve again within ${timeoutMs / 1000} s (${statusOf(entry, inst)})`);
    await sleep(25);
  }
}
