// Taking a run down: the supervisor stops restarting and starting anything, every instance gets
// the compose stop sequence (reverse start order: stop signal, stop_grace_period, SIGKILL for its
// whole group), whatever is left in the run's cgroups or under the supervisor is killed, the
// supervisor exits (removing its snapshot), and the cgroups are removed. After a crash of the
// supervisor, the same from the snapshot it left.
import fs from 'node:fs';
import path from 'node:path';
import * as cgroup from '../common/cgroup.js';
import { stopInstance } from './spawn.js';
import { isAlive, sendSignal, waitGone } from '../../lib/processes.js';
import { runIdOf } from '../common/run-dir.js';
import { readSnapshot, removeSnapshot } from './snapshot.js';
import { call } from './supervisor-client.js';

/** Whether anything of a run is still running (an instance, its supervisor, or the up() starting it). */
export function runAlive(state) {
  const pids = Object.values(state.services ?? {}).flatMap((s) => s.instances ?? []).map((i) => i.pid);
  if (state.supervisor?.pid) pids.push(state.supervisor.pid);
  if (state.phase === 'starting' && state.owner?.pid) pids.push(state.owner.pid);
  return pids.some((pid) => isAlive(pid));
}

export function killCgroupMembers(inst) {
  for (const dir of inst.cgroup ?? []) {
    try {
      for (const pid of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean))
        sendSignal(Number(pid), 'SIGKILL');
    } catch { /* already gone */ }
  }
}

export async function teardown(runDir) {
  // The supervisor restarts and starts nothing from now on, and hands over the state as it is;
  // where it is gone (or does not answer), the state is its last snapshot.
  const live = await call(runDir, 'halt', {}, { timeoutMs: 10_000 }).catch(() => undefined);
  const state = live?.state ?? readSnapshot(runDir);
  const supervisor = live?.pid ?? (isAlive(state?.supervisor?.pid) ? state.supervisor.pid : undefined);
  if (!state && !supervisor) return { stopped: 0 };
  let stopped = 0;
  for (const name of [...(state?.order ?? Object.keys(state?.services ?? {}))].reverse()) {
    const entry = state.services[name];
    if (!entry?.instances) continue;
    await Promise.all(entry.instances.map(async (inst) => {
      if (isAlive(inst.pid)) stopped += 1;
      await stopInstance(inst.pid, { signal: entry.stopSignal, graceMs: entry.stopGraceMs });
      killCgroupMembers(inst);
    }));
  }
  if (supervisor) {
    await call(runDir, 'exit', {}, { timeoutMs: 10_000 }).catch(() => {});
    if (!(await waitGone(supervisor, 5000))) sendSignal(supervisor, 'SIGKILL');
  }
  // A killed process leaves its groups only once the kernel has finished it, later on a loaded
  // machine: wait for the groups to empty (bounded, killing what is left), not a fixed pause. Even
  // then a group can be busy a moment: a process that exited but is not yet reaped by its parent
  // still holds it (rmdir: EBUSY) though no cgroup.procs lists it (bench-app-frameworks, make test
  // 2026-12-04: 4 runs left their app and nginx groups). Its removal is tried again until the bound.
  const runId = state?.runId ?? runIdOf(runDir);
  const deadline = Date.now() + 10_000;
  while (cgroup.runPids(runId).length && Date.now() < deadline) {
    for (const pid of cgroup.runPids(runId)) sendSignal(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
  }
  let left = cgroup.removeRun(runId);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = cgroup.removeRun(runId);
  }
  removeSnapshot(runDir); // a supervisor that exited removed its own; this is what a crashed one left
  return { stopped, cgroupsLeft: left };
}
