// Operations on the instances of a running topology: list them, signal one, restart one.
import fs from 'node:fs';
import path from 'node:path';
import { waitHealthy, checkOnce } from './health.js';
import { readmissionMs } from './nginx.js';
import { isAlive, sendSignal, childPids } from '../lib/processes.js';
import { DEFAULT_RUN_DIR, readState, findInstance } from './state.js';
import { call } from './supervisor-client.js';
import { setTimeout as sleep } from 'node:timers/promises';

function statusOf(entry, inst) {
  if (isAlive(inst.pid)) return 'running';
  if (inst.restarting) return 'restarting';
  if (entry.oneshot && inst.lastExit?.code === 0) return 'completed';
  return 'exited';
}

const exitOf = (inst) => (inst.lastExit ? String(inst.lastExit.signal ?? inst.lastExit.code) : undefined);

/** One row per instance: { service, index, pid, url, status, exit (last exit code or signal), restarts, children }. */
export function ps(opts = {}) {
  const state = readState(path.resolve(opts.runDir ?? DEFAULT_RUN_DIR));
  if (!state) return [];
  return Object.entries(state.services).flatMap(([service, entry]) => (entry.skipped
    ? [{ service, index: '-', pid: '-', url: `(skipped: ${entry.skipped})`, status: 'skipped', restarts: '-' }]
    : entry.instances.map((i) => ({
      service, index: i.index, pid: i.pid, url: entry.oneshot ? '-' : i.url,
      status: statusOf(entry, i), exit: exitOf(i), restarts: i.restarts ?? 0, children: childPids(i.pid),
    }))));
}

// kill -9 reaches the whole instance (as when a container dies); other signals go to its main
// process. To the restart policy this is a crash or an exit of the process, not a stop on purpose.
/** @param {{ runDir?: string, service: string, index: number, signal?: string | number }} options */
export async function signal({ runDir = DEFAULT_RUN_DIR, service, index, signal: sig = 'SIGKILL' }) {
  const state = readState(path.resolve(runDir));
  const { inst } = findInstance(state, service, index);
  if (!isAlive(inst.pid)) throw new Error(`${inst.name} (pid ${inst.pid}) is not running${inst.restarting ? ` (its restart policy brings it back in ${inst.restarting.delayMs} ms)` : ''}`);
  sendSignal(inst.pid, sig, { group: sig === 'SIGKILL' || sig === 9 });
  return inst;
}

/** Kills one instance on purpose, as `docker kill` does: its restart policy stays out of it, it stays down. */
export async function killHeld({ runDir = DEFAULT_RUN_DIR, service, index }) {
  runDir = path.resolve(runDir);
  const state = readState(runDir);
  const { inst } = findInstance(state, service, index);
  await call(runDir, 'stop', { pid: inst.pid, signal: 'SIGKILL', graceMs: 0, service, index: inst.index });
  return inst;
}

/** Stops one instance on purpose (its restart policy stays out of it), starts it again on the same port, waits until healthy. */
export async function restart({ runDir = DEFAULT_RUN_DIR, service, index }) {
  runDir = path.resolve(runDir);
  const state = readState(runDir);
  const { entry, inst } = findInstance(state, service, index);
  await call(runDir, 'stop', { pid: inst.pid, signal: entry.stopSignal, graceMs: entry.stopGraceMs, service, index: inst.index });
  const { pid } = await call(runDir, 'spawn', { service, index: inst.index });
  await waitHealthy({
    port: inst.port, healthcheck: entry.healthcheck, label: `${inst.name} (log: ${inst.log})`, log: inst.log,
    exited: async () => { const st = await call(runDir, 'status', { pid }); return st.exited ? st.how : undefined; },
  });
  return { ...inst, pid };
}

/** The nginx services whose rendered configuration sends to `service`'s instances: [{ name, entry, inst }]. */
export function proxiesOf(state, service) {
  const ports = new Set(state.services[service].instances.map((i) => i.port));
  const dir = path.join(state.runDir, 'nginx', 'conf.d');
  const text = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n') : '';
  const proxied = [...text.matchAll(/server\s+127\.0\.0\.1:(\d+)/g)].some((m) => ports.has(Number(m[1])));
  return Object.entries(state.services)
    .filter(([, entry]) => proxied && entry.spec?.local?.nginx && entry.instances.length)
    .map(([name, entry]) => ({ name, entry, inst: entry.instances[0] }));
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
    const state = readState(runDir);
    if (!state) throw new Error(`nothing running from ${runDir}`);
    const { entry, inst } = findInstance(state, service, index);
    if (inst.pid !== notPid && !inst.restarting && isAlive(inst.pid) && await checkOnce(inst.port, entry.healthcheck)) {
      const healthyAt = Date.now();
      const wait = proxiesOf(state, service).length ? readmissionMs(runDir, inst.port) : 0;
      await sleep(wait);
      return { pid: inst.pid, healthyAt, inRotationAt: Date.now() };
    }
    if (Date.now() > deadline) throw new Error(`${inst.name} did not serve again within ${timeoutMs / 1000} s (${statusOf(entry, inst)})`);
    await sleep(25);
  }
}
