// The run's supervisor: one detached process per run, started by up() and stopped by down(). It
// is the parent of every instance, so it sees each exit with its code at once, and applies the
// service's `restart:` policy the way Docker's daemon would, also long after `make up` returned.
// It owns the run's state (supervisor-state.js): ps, status and every change — a kill, a restart,
// a reload's switch to a new process — are commands over its local socket (supervisor-client.js),
// applied one at a time by its event loop; state.json is the snapshot it writes after each.
// What it does goes to logs/supervisor.log.
//
// An exit leads to a restart only when the process was the instance's current one (not a
// replaced or candidate process), nobody stopped it on purpose (stop: down, restart, reload), the
// service finished starting (`armed` by up()), and the run is not being taken down (`halt`).
// Commands on one instance that take time (a stop with its grace period, a restart until healthy)
// wait for each other, so two restarts of one instance never leave an extra process behind.
import net from 'node:net';
import os from 'node:os';
import { socketPath, findInstance } from './state.js';
import { stateStore } from './supervisor-state.js';
import { psRows } from './ps-rows.js';
import { spawnInstance, stopInstance } from './processes.js';
import { sendSignal, waitGone, isAlive } from '../lib/processes.js';
import { shouldRestart, exitCodeOf, nextDelayMs } from './restart-policy.js';
import { toolPath } from './spec.js';
import { waitHealthy } from './health.js';

const describeExit = ({ code, signal }) => (signal ? `killed by ${signal}` : `exit code ${code}`);
const log = (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const now = () => new Date().toISOString();

export function supervise(runDir) {
  const store = stateStore(runDir, log);
  const kids = new Map(); // pid -> { service, index, startedAt, exited: Promise }
  const exits = new Map(); // pid -> { code, signal, at } of processes that have exited
  const held = new Set(); // pids being stopped on purpose
  const timers = new Map(); // "service/index" -> pending restart
  const delays = new Map(); // "service/index" -> last restart delay (ms)
  const queues = new Map(); // "service/index" -> the last operation on that instance
  let halted = false;

  // Runs `op` once the operations on `key` queued before it have finished.
  function serial(key, op) {
    const run = (queues.get(key) ?? Promise.resolve()).then(op);
    const settled = run.catch(() => {});
    queues.set(key, settled);
    settled.then(() => { if (queues.get(key) === settled) queues.delete(key); });
    return run;
  }

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
    let decision = 'not the current process';
    store.update((state) => {
      const entry = state.services?.[kid.service];
      const inst = entry?.instances.find((i) => i.index === kid.index);
      if (!inst || inst.pid !== pid) return false;
      inst.lastExit = { pid, ...how, at: now() };
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
      inst.restarting = { delayMs, since: now() };
      decision = `restart: ${entry.restart.name} -> restarting in ${delayMs} ms`;
      timers.set(key, setTimeout(() => restartNow(key, kid, pid), delayMs));
      return undefined;
    });
    log(`${key} pid ${pid} ${describeExit(how)}: ${decision}`);
  }

  function restartNow(key, kid, oldPid) {
    timers.delete(key);
    serial(key, () => {
      const inst = store.instance(kid.service, kid.index);
      if (halted || !inst || inst.pid !== oldPid) return; // taken down, or replaced meanwhile
      const pid = spawn(inst, kid);
      store.update(() => {
        Object.assign(inst, { pid, startedAt: now(), restarts: (inst.restarts ?? 0) + 1 });
        delete inst.restarting;
      });
    }).catch((err) => log(`${key}: restart failed: ${err.message}`));
  }

  function cancelRestart(key) {
    clearTimeout(timers.get(key));
    timers.delete(key);
  }

  const current = (service, index) => findInstance(store.get(), service, index);

  // Starts an instance from its record, as its current process.
  function startCurrent(service, index) {
    cancelRestart(`${service}/${index}`);
    const { inst } = current(service, index);
    const pid = spawn(inst, { service, index });
    store.update(() => {
      Object.assign(inst, { pid, startedAt: now() });
      delete inst.restarting;
    });
    return pid;
  }

  // The compose stop sequence for an instance's current process, on purpose: its exit restarts nothing.
  async function stopCurrent(service, index, { signal, graceMs }) {
    cancelRestart(`${service}/${index}`);
    const { inst } = current(service, index);
    return { inst, ...(await commands.stop({ pid: inst.pid, signal, graceMs })) };
  }

  const commands = {
    ping: () => ({ pid: process.pid }),
    // ---- the state: read, and changed by up() as it starts the run ----
    init: ({ state }) => store.init(state),
    state: () => store.get() ?? null,
    ps: () => psRows(store.get()),
    addService: ({ name, entry }) => { store.update((s) => { s.services[name] = entry; }); },
    addInstance: ({ service, inst }) => { store.update((s) => { s.services[service].instances.push(inst); }); },
    arm: ({ service }) => { store.update((s) => { s.services[service].armed = true; }); },
    // The run is up: null when down() cancelled it meanwhile.
    ready: ({ url }) => store.update((s) => {
      if (s.cancel || s.phase !== 'starting') return false;
      Object.assign(s, { url, phase: 'up' });
      delete s.owner;
      return undefined;
    }) ?? null,
    // down() from another process than the up() starting the run: that up() stops at its next step.
    cancel: () => {
      const starting = store.update((s) => {
        if (s.phase !== 'starting') return false;
        s.cancel = true;
        return undefined;
      });
      return { owner: starting?.owner?.pid ?? null };
    },
    cancelled: () => store.get()?.cancel === true,
    // ---- processes ----
    spawn: ({ service, index }) => serial(`${service}/${index}`, () => ({ pid: startCurrent(service, index) })),
    // Starts a process for an instance from a spec of its own (a rolling update's new process),
    // not (yet) the instance's current one: its exit restarts nothing.
    candidate: ({ service, index, spec }) => ({ pid: spawn(spec, { service, index }) }),
    // The candidate becomes the instance's current process; returns the old one's { pid, port }.
    promote: ({ service, index, pid, port, spec }) => serial(`${service}/${index}`, () => {
      if (halted || store.get()?.phase !== 'up') return null;
      cancelRestart(`${service}/${index}`);
      const { inst } = current(service, index);
      const old = { pid: inst.pid, port: inst.port };
      store.update(() => {
        Object.assign(inst, { pid, port, url: `http://127.0.0.1:${port}`, command: spec.command, args: spec.args, env: spec.env, startedAt: now() });
        delete inst.restarting;
      });
      return old;
    }),
    // A process's exit, once it has exited: { exited: false } or { exited: true, code, signal, how }.
    status: ({ pid }) => {
      if (kids.has(pid)) return { exited: false };
      const e = exits.get(pid);
      return e ? { exited: true, ...e, how: e.how ?? describeExit(e) } : { exited: true, how: 'unknown to the supervisor' };
    },
    // The compose stop sequence for one process (a candidate, a replaced one), on purpose.
    stop: async ({ pid, signal = 'SIGTERM', graceMs = 10_000 }) => {
      if (!kids.has(pid)) return commands.status({ pid });
      held.add(pid);
      await stopInstance(pid, { signal, graceMs });
      await kids.get(pid)?.exited;
      return commands.status({ pid });
    },
    // `make kill`: a signal to the instance's current process. To its restart policy this is a
    // crash or an exit, not a stop on purpose; kill -9 reaches the whole instance.
    signal: ({ service, index, signal }) => {
      const { inst } = current(service, index);
      if (!kids.has(inst.pid)) throw new Error(`${inst.name} (pid ${inst.pid}) is not running${inst.restarting ? ` (its restart policy brings it back in ${inst.restarting.delayMs} ms)` : ''}`);
      sendSignal(inst.pid, signal, { group: signal === 'SIGKILL' || signal === 9 });
      return inst;
    },
    // Kills an instance on purpose, as `docker kill` does: it stays down.
    kill: ({ service, index }) => serial(`${service}/${index}`, async () => (await stopCurrent(service, index, { signal: 'SIGKILL', graceMs: 0 })).inst),
    // `make scale` down: stops an instance on purpose and takes it out of the run's state.
    remove: ({ service, index }) => serial(`${service}/${index}`, async () => {
      const { entry } = current(service, index);
      const { inst } = await stopCurrent(service, index, { signal: entry.stopSignal, graceMs: entry.stopGraceMs });
      store.update((s) => { s.services[service].instances = s.services[service].instances.filter((i) => i.index !== index); });
      delays.delete(`${service}/${index}`);
      return inst;
    }),
    // Stops an instance on purpose, starts it again from its record and waits until it is healthy.
    restart: ({ service, index }) => serial(`${service}/${index}`, async () => {
      const { entry } = current(service, index);
      await stopCurrent(service, index, { signal: entry.stopSignal, graceMs: entry.stopGraceMs });
      const pid = startCurrent(service, index);
      const { inst } = current(service, index);
      await waitHealthy({
        port: inst.port, healthcheck: entry.healthcheck, label: `${inst.name} (log: ${inst.log})`, log: inst.log,
        exited: () => { const st = commands.status({ pid }); return st.exited ? st.how : undefined; }, cancelled: () => halted,
      });
      return { ...inst, pid };
    }),
    // One change of a service's instances (a reload, a scale) at a time: { busy } names the one in progress.
    claimReload: ({ pid, service, op = 'reload' }) => {
      let busy = null;
      store.update((s) => {
        if (s.reload && isAlive(s.reload.pid)) { busy = s.reload; return false; }
        s.reload = { pid, service, op, startedAt: now() };
        return undefined;
      });
      return { busy };
    },
    releaseReload: ({ pid }) => {
      store.update((s) => {
        if (s.reload?.pid !== pid) return false;
        delete s.reload;
        return undefined;
      });
    },
    // No restart, no new process from now on; the caller stops the instances. Returns the state as it is now.
    halt: () => {
      halted = true;
      for (const key of [...timers.keys()]) cancelRestart(key);
      store.update((s) => { s.phase = 'stopping'; });
      return { pid: process.pid, state: store.get() ?? null };
    },
    // Kills whatever is left (a rolling update's new process, say), removes the snapshot and ends the supervisor.
    exit: async () => {
      commands.halt();
      for (const pid of kids.keys()) sendSignal(pid, 'SIGKILL', { group: true });
      await Promise.all([...kids.keys()].map((pid) => waitGone(pid, 5000)));
      store.remove();
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

  // Ends with its run: when its folder is gone (removed by hand, or by a test's clean-up), nobody
  // can take it down any more, so what is left goes too.
  setInterval(() => {
    if (!store.gone()) return;
    log('the run folder is gone: stopping what is left');
    commands.exit();
  }, 1000);
}
