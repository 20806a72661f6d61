// What `ps` shows of a run's state: one row per instance. The supervisor answers with these; where
// it is gone, they are made from its last snapshot.
import { isAlive, childPids } from '../../lib/processes.js';

export function statusOf(entry, inst) {
  if (isAlive(inst.pid)) return 'running';
  if (inst.restarting) return 'restarting';
  if (entry.oneshot && inst.lastExit?.code === 0) return 'completed';
  return 'exited';
}

const exitOf = (inst) => (inst.lastExit ? String(inst.lastExit.signal ?? inst.lastExit.code) : undefined);

/**
 * One row per instance: { service, index, name, pid, url, status, exit (last exit code or signal),
 * restarts, children }.
 */
export function psRows(state) {
  if (!state) return [];
  return Object.entries(state.services).flatMap(([service, entry]) => (entry.skipped
    ? [{ service, index: '-', pid: '-', url: `(skipped: ${entry.skipped})`, status: 'skipped', restarts: '-' }]
    : entry.instances.map((i) => ({
      service, index: i.index, name: i.name, pid: i.pid, url: entry.oneshot ? '-' : i.url,
      status: statusOf(entry, i), exit: exitOf(i), restarts: i.restarts ?? 0, children: childPids(i.pid),
    }))));
}
