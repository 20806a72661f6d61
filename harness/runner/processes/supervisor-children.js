// The supervisor's children: every process of the run is its child, so it sees each exit with its
// code at once. Which processes run, how those that ended exited, and which are being stopped on
// purpose (their exit restarts nothing).
import { spawnInstance, stopInstance } from './spawn.js';
import { sendSignal } from '../../lib/processes.js';
import { toolPath } from './spec.js';

export const describeExit = ({ code, signal }) => (signal ? `killed by ${signal}` : `exit code ${code}`);

/**
 * onExit(pid, kid, { code, signal }, onPurpose) is called once per exit, after the table has
 * recorded it; kid is { service, index, startedAt }.
 * @param {{ runDir: string, log: (line: string) => void, onExit: Function }} options
 */
export function childTable({ runDir, log, onExit }) {
  const kids = new Map(); // pid -> { service, index, startedAt, exited: Promise }
  const exits = new Map(); // pid -> { code, signal, at, how } of processes that have exited
  const held = new Set(); // pids being stopped on purpose

  // Starts a process from an instance's spec: { command, args, cwd, env, log, cgroupProcs }.
  function spawn(spec, { service, index }) {
    const started = spawnInstance({
      command: spec.command, args: spec.args, cwd: spec.cwd, logFile: spec.log,
      env: { ...process.env, PATH: toolPath(), ...spec.env, LAB_RUN_DIR: runDir },
      cgroupProcs: spec.cgroupProcs ?? [],
    });
    if (!started.pid) throw new Error(`could not start ${spec.command}: ${started.exited() ?? 'no pid'}`);
    const { pid, child } = started;
    let resolveExit;
    const exited = new Promise((r) => { resolveExit = r; });
    kids.set(pid, { service, index, startedAt: Date.now(), exited });
    child.once('exit', (code, signal) => {
      const kid = kids.get(pid);
      kids.delete(pid);
      // spawnInstance's own exit listener ran first: its description names a failed start's cause.
      exits.set(pid, { code, signal, at: Date.now(), how: started.exited() });
      // When its main process ends, nothing else of the instance stays (as with a container).
      sendSignal(pid, 'SIGKILL', { group: true });
      resolveExit();
      onExit(pid, kid, { code, signal }, held.delete(pid));
    });
    log(`started ${service}/${index}: pid ${pid}`);
    return pid;
  }

  // A process's exit, once it has exited: { exited: false } or { exited: true, code, signal, how }.
  function status(pid) {
    if (kids.has(pid)) return { exited: false };
    const e = exits.get(pid);
    return e
      ? { exited: true, ...e, how: e.how ?? describeExit(e) }
      : { exited: true, how: 'unknown to the supervisor' };
  }

  // The compose stop sequence for one process, on purpose.
  async function stop({ pid, signal = 'SIGTERM', graceMs = 10_000 }) {
    if (!kids.has(pid)) return status(pid);
    held.add(pid);
    await stopInstance(pid, { signal, graceMs });
    await kids.get(pid)?.exited;
    return status(pid);
  }

  return { spawn, status, stop, running: (pid) => kids.has(pid), pids: () => [...kids.keys()] };
}
