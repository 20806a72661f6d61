// The containers of a run on Docker: list them, signal one, kill one for good, restart one. A
// signal goes to the container's first process from this host, as a crash or an outside kill
// would (the restart policy then applies: `kill` is a crash); `killHeld` is `docker kill`, a stop
// on purpose that no restart policy undoes, as the processes backend's killHeld.
import { setTimeout as sleep } from 'node:timers/promises';
import * as cgroup from '../common/cgroup.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { containers, docker, findContainer } from './project.js';
import { readRecord, recordOf } from './record.js';

export const statusOf = (c) =>
  c.running ? (c.health ? `running (${c.health})` : 'running') : c.oneshot ? 'completed' : c.status;

/** One row per container: { service, index, name, pid, url, status, exit, restarts, children }. */
export async function ps({ runDir = DEFAULT_RUN_DIR } = {}) {
  const record = readRecord(runDir);
  if (!record) return [];
  return containers(record).map((c) => ({
    service: c.service,
    index: c.index,
    name: c.name,
    id: c.id.slice(0, 12),
    pid: c.running ? c.pid : '-',
    url: c.url ?? '-',
    status: statusOf(c),
    exit: c.exit,
    restarts: c.restarts,
    children:
      record.cgroupParent && c.running ? cgroup.instancePids(record.runId, c.id).filter((p) => p !== c.pid) : [],
  }));
}

/** Sends `signal` to a container's first process (SIGKILL: the whole container dies, a crash). */
export async function signal({ runDir = DEFAULT_RUN_DIR, service, index, signal: sig = 'SIGKILL' }) {
  const record = recordOf(runDir);
  const c = findContainer(record, service, index);
  if (!c.running) throw new Error(`${c.name} is not running (${statusOf(c)})`);
  try {
    process.kill(c.pid, sig);
  } catch (err) {
    // An engine on another host, or not ours to signal: through the engine (a kill on purpose, then).
    if (err.code !== 'EPERM' && err.code !== 'ESRCH') throw err;
    docker(record, ['kill', '--signal', String(sig), c.id]);
  }
  return { ...c, name: c.name, pid: c.pid };
}

/** `docker kill`: down for good, its restart policy stays out of it. */
export async function killHeld({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const record = recordOf(runDir);
  const c = findContainer(record, service, index);
  docker(record, ['kill', c.id]);
  return c;
}

/** Waits until a container runs again and is healthy (when it has a healthcheck). */
export async function waitHealthy(record, id, { timeoutMs = 180_000, label = id.slice(0, 12) } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = containers(record).find((c) => c.id === id);
    if (!last) throw new Error(`${label} is gone`);
    if (last.running && (last.health === null || last.health === 'healthy')) return last;
    if (last.health === 'unhealthy') break;
    await sleep(250);
  }
  throw new Error(`${label} did not get healthy within ${timeoutMs / 1000} s (${last ? statusOf(last) : 'gone'})`);
}

/** `docker restart` of one container (its stop signal and grace period), then healthy again. */
export async function restart({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const record = recordOf(runDir);
  const c = findContainer(record, service, index);
  docker(record, ['restart', c.id], { timeout: 180_000 });
  return waitHealthy(record, c.id, { label: c.name });
}
