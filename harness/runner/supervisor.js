// The run's supervisor: one detached process per run, started by up() and stopped by down(). It
// is the parent of every instance, so it sees each exit with its code at once, and applies the
// service's `restart:` policy the way Docker's daemon would, also long after `make up` returned.
// Callers talk to it over a local socket (see supervisor-client.js); it writes what it does to
// the state file (pid, restarts, last exit) and to logs/supervisor.log.
//
// An exit leads to a restart only when the process was the instance's current one (not a
// replaced or candidate process), nobody stopped it on purpose (stop: down, restart, reload), the
// service finished starting (`armed` by up()), and the run is not being taken down (`halt`).
import net from 'node:net';
import os from 'node:os';
import { readState, updateState, runIdOf } from './state.js';
import { spawnInstance, stopInstance } from './processes.js';
import { sendSignal, waitGone } from '../lib/processes.js';
import { shouldRestart, exitCodeOf, nextDelayMs } from './restart-policy.js';
import { toolPath } from './spec.js';

export const socketPath = (runDir) => `\0scaling-lab-supervisor-${runIdOf(runDir)}`;

const describeExit = ({ code, signal }) => (signal ? `killed by ${signal}` : `exit code ${code}`);
const log = (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

export function supervise(runDir) {
  const kids = new Map(); // pid -> { service, index, startedAt, exited: Promise }
  const exits = new Map(); // pid -> { code, signal, at } of processes that have exited
  const held = new Set(); // pids being stopped on purpose
  const timers = new Map(); // "service/index" -> pending restart
  const delays = new Map(); // "service/index" -> last restart delay (ms)
  let halted = false;

  function spawn(spec, { service, index }) {
    if (halted) throw new Error('the run is being taken down: no new process');
    const started = spawnInstance({
      command: spec.command, args: spec.args, cwd: spec.cwd, logFile: spec.log,
      env: { ...process.env, PATH: toolPath(), ...spec.env, LAB_RUN_DIR: runDir },
      cgroupProcs: spec.cgroupProcs ?? [],
    });
    if (!started.pid) throw new Error(`could not start ${spec.command}: ${started.exited() ?? 'no pid'}`);
    const { pid, child } = started;
    let resolveExit;
    kids.set(pid, { service, index, startedAt: Date.now(), exited: new Promise((r) => { resolveExit = r; }) });
    child.once('exit', (code, signal) => {
      const kid = kids.get(pid);
      kids.delete(pid);
      // spawnInstance's own exit listener ran first: its description names a failed start's cause.
      exits.set(pid, { code, signal, at: Date.now(), how: started.exited() });
      // When its main process ends, nothing else of the instance stays (as with a container).
      sendSignal(pid, 'SIGKILL', { group: true });
      resolveExit();
      onExit(pid, kid, { code, signal });
    });
    log(`started ${service}/${index}: pid ${pid}`);
    return pid;
  }

  function onExit(pid, kid, how) {
    const key = `${kid.service}/${kid.index}`;
    const wanted = held.delete(pid);
    let decision = 'stays down';
    updateState(runDir, (state) => {
      const entry = state.services?.[kid.service];
      const inst = entry?.instances.find((i) => i.index === kid.index);
      if (!inst || inst.pid !== pid) { decision = 'not the current process'; return false; }
      inst.lastExit = { pid, ...how, at: new Date().toISOString() };
      if (halted || wanted || !entry.armed || timers.has(key)) {
        decision = halted ? 'run stopping' : wanted ? 'stopped on purpose' : 'stays down';
        return undefined;
      }
      const exitCode = exitCodeOf(how, os.constants.signals);
      if (!shouldRestart(entry.restart ?? { name: 'no' }, { exitCode, restarts: inst.restarts ?? 0 })) {
        decision = `restart: ${entry.restart?.name ?? 'no'} -> stays down`;
        return undefined;
      }
      const delayMs = nextDelayMs(delays.get(key), Date.now() - kid.startedAt);
      delays.set(key, delayMs);
      inst.restarting = { delayMs, since: new Date().toISOString() };
      decision = `restart: ${entry.restart.name} -> restarting in ${delayMs} ms`;
      timers.set(key, setTimeout(() => restartNow(key, kid, pid), delayMs));
      return undefined;
    });
    log(`${key} pid ${pid} ${describeExit(how)}: ${decision}`);
  }

  function restartNow(key, kid, oldPid) {
    timers.delete(key);
    if (halted) return;
    try {
      updateState(runDir, (state) => {
        const inst = state.services?.[kid.service]?.instances.find((i) => i.index === kid.index);
        if (!inst || inst.pid !== oldPid) return false; // replaced meanwhile
        inst.pid = spawn(inst, kid);
        inst.startedAt = new Date().toISOString();
        inst.restarts = (inst.restarts ?? 0) + 1;
        delete inst.restarting;
        return undefined;
      });
    } catch (err) {
      log(`${key}: restart failed: ${err.message}`);
    }
  }

  function cancelRestart(key) {
    clearTimeout(timers.get(key));
    timers.delete(key);
  }

  const commands = {
    ping: () => ({ pid: process.pid }),
    // Starts an instance from its record in the state file, as its current process.
    spawn: ({ service, index }) => {
      cancelRestart(`${service}/${index}`);
      let pid;
      updateState(runDir, (state) => {
        const inst = state.services?.[service]?.instances.find((i) => i.index === index);
        if (!inst) throw new Error(`no instance ${service}/${index} in the state file`);
        inst.pid = spawn(inst, { service, index });
        inst.startedAt = new Date().toISOString();
        delete inst.restarting;
        ({ pid } = inst);
        return undefined;
      });
      if (!pid) throw new Error('the run was stopped meanwhile');
      return { pid };
    },
    // Starts a process for an instance from a spec of its own (a rolling update's new process),
    // not (yet) the instance's current one: its exit restarts nothing.
    candidate: ({ service, index, spec }) => ({ pid: spawn(spec, { service, index }) }),
    // A process's exit, once it has exited: { exited: false } or { exited: true, code, signal, how }.
    status: ({ pid }) => {
      if (kids.has(pid)) return { exited: false };
      const e = exits.get(pid);
      return e ? { exited: true, ...e, how: e.how ?? describeExit(e) } : { exited: true, how: 'unknown to the supervisor' };
    },
    // The compose stop sequence for one process, on purpose: its exit restarts nothing.
    stop: async ({ pid, signal = 'SIGTERM', graceMs = 10_000, service, index }) => {
      if (service) cancelRestart(`${service}/${index}`);
      if (!kids.has(pid)) return commands.status({ pid });
      held.add(pid);
      await stopInstance(pid, { signal, graceMs });
      await kids.get(pid)?.exited;
      return commands.status({ pid });
    },
    // No restart, no new process from now on; the caller stops the instances.
    halt: () => {
      halted = true;
      for (const key of [...timers.keys()]) cancelRestart(key);
      return { pids: [...kids.keys()] };
    },
    // Kills whatever is left (a rolling update's new process, say) and ends the supervisor.
    exit: async () => {
      commands.halt();
      for (const pid of kids.keys()) sendSignal(pid, 'SIGKILL', { group: true });
      await Promise.all([...kids.keys()].map((pid) => waitGone(pid, 5000)));
      setImmediate(() => process.exit(0));
      return { pid: process.pid };
    },
  };

  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', async (chunk) => {
      buffer += chunk;
      const at = buffer.indexOf('\n');
      if (at < 0) return;
      let reply;
      try {
        const { cmd, ...args } = JSON.parse(buffer.slice(0, at));
        if (!Object.hasOwn(commands, cmd)) throw new Error(`unknown supervisor command '${cmd}'`);
        reply = { ok: true, result: await commands[cmd](args) };
      } catch (err) {
        reply = { ok: false, error: err.message };
      }
      socket.end(`${JSON.stringify(reply)}\n`);
    });
  });
  server.listen(socketPath(runDir), () => log(`supervising ${runDir} (pid ${process.pid})`));
  server.on('error', (err) => { log(`cannot listen: ${err.message}`); process.exit(1); });

  // Ends with its run: when the state file is gone or names another supervisor, nobody can reach
  // the processes any more, so they go too.
  setInterval(() => {
    const state = readState(runDir);
    if (state && (!state.supervisor || state.supervisor.pid === process.pid)) return;
    log('the run is gone: stopping what is left');
    commands.exit();
  }, 1000);
}
