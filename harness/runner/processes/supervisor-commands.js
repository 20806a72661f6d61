// The supervisor's commands, one small handler each, grouped by what they touch: the run's state
// (up() builds it step by step), the instances' processes, the claim one reload or scale holds, and
// the run's end. Each runs on the supervisor's event loop, one at a time; those that take time on
// one instance (a stop, a restart until healthy) are queued per instance (`serial`).
import { findInstance } from './snapshot.js';
import { psRows } from './ps-rows.js';
import { sendSignal, waitGone, isAlive } from '../../lib/processes.js';
import { waitHealthy } from '../common/health.js';
import { placeRun } from './supervisor-place.js';

const now = () => new Date().toISOString();

/** @param {import('./supervisor.js').Supervisor} sup */
export function supervisorCommands(sup) {
  const instance = instanceOps(sup);
  const commands = {
    ping: () => ({ pid: process.pid }),
    ...stateCommands(sup),
    ...processCommands(sup, instance),
    ...claimCommands(sup),
    // `place`: the run's cpuset, budget and quotas per instance rewritten, its state with them.
    place: ({ ask }) => placeRun(sup, ask),
    // No restart, no new process from now on; the caller stops the instances. Returns the state as it is now.
    halt: () => {
      sup.halted = true;
      sup.restarts.cancelAll();
      sup.store.update((s) => { s.phase = 'stopping'; });
      return { pid: process.pid, state: sup.store.get() ?? null };
    },
    // Kills whatever is left (a rolling update's new process, say), removes the snapshot and ends the supervisor.
    exit: async () => {
      commands.halt();
      for (const pid of sup.children.pids()) sendSignal(pid, 'SIGKILL', { group: true });
      await Promise.all(sup.children.pids().map((pid) => waitGone(pid, 5000)));
      sup.store.remove();
      setImmediate(() => process.exit(0));
      return { pid: process.pid };
    },
  };
  return commands;
}

// The state: read, and changed by up() as it starts the run.
function stateCommands({ store }) {
  return {
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
  };
}

// An instance's current process: started from its record, or stopped on purpose (its exit restarts nothing).
function instanceOps(sup) {
  const current = (service, index) => findInstance(sup.store.get(), service, index);
  const start = (service, index) => {
    sup.restarts.cancel(`${service}/${index}`);
    const { inst } = current(service, index);
    const pid = sup.spawn(inst, { service, index });
    sup.store.update(() => {
      Object.assign(inst, { pid, startedAt: now() });
      delete inst.restarting;
    });
    return pid;
  };
  // The compose stop sequence for the instance's current process.
  const stop = async (service, index, { signal, graceMs }) => {
    sup.restarts.cancel(`${service}/${index}`);
    const { inst } = current(service, index);
    return { inst, ...(await sup.children.stop({ pid: inst.pid, signal, graceMs })) };
  };
  const stopAsConfigured = (service, index) => {
    const { entry } = current(service, index);
    return stop(service, index, { signal: entry.stopSignal, graceMs: entry.stopGraceMs });
  };
  return { current, start, stop, stopAsConfigured };
}

function processCommands(sup, instance) {
  const { store, serial, children } = sup;
  const { current } = instance;
  const onInstance = (service, index, op) => serial(`${service}/${index}`, op);
  return {
    spawn: ({ service, index }) => onInstance(service, index, () => ({ pid: instance.start(service, index) })),
    // Starts a process for an instance from a spec of its own (a rolling update's new process),
    // not (yet) the instance's current one: its exit restarts nothing.
    candidate: ({ service, index, spec }) => ({ pid: sup.spawn(spec, { service, index }) }),
    // The candidate becomes the instance's current process; returns the old one's { pid, port }.
    promote: ({ service, index, pid, port, spec }) => onInstance(service, index, () => promote(sup, current, {
      service, index, pid, port, spec,
    })),
    status: ({ pid }) => children.status(pid),
    // The compose stop sequence for one process (a candidate, a replaced one), on purpose.
    stop: (args) => children.stop(args),
    // `make kill`: a signal to the instance's current process. To its restart policy this is a
    // crash or an exit, not a stop on purpose; kill -9 reaches the whole instance.
    signal: ({ service, index, signal }) => {
      const { inst } = current(service, index);
      if (!children.running(inst.pid)) {
        const back = inst.restarting ? ` (its restart policy brings it back in ${inst.restarting.delayMs} ms)` : '';
        throw new Error(`${inst.name} (pid ${inst.pid}) is not running${back}`);
      }
      sendSignal(inst.pid, signal, { group: signal === 'SIGKILL' || signal === 9 });
      return inst;
    },
    // Kills an instance on purpose, as `docker kill` does: it stays down.
    kill: ({ service, index }) => onInstance(service, index, async () => (
      await instance.stop(service, index, { signal: 'SIGKILL', graceMs: 0 })).inst),
    // `make scale` down: stops an instance on purpose and takes it out of the run's state.
    remove: ({ service, index }) => onInstance(service, index, async () => {
      const { inst } = await instance.stopAsConfigured(service, index);
      store.update((s) => {
        s.services[service].instances = s.services[service].instances.filter((i) => i.index !== index);
      });
      sup.restarts.forget(`${service}/${index}`);
      return inst;
    }),
    // Stops an instance on purpose, starts it again from its record and waits until it is healthy.
    restart: ({ service, index }) => onInstance(service, index, () => restart(sup, instance, service, index)),
  };
}

function promote(sup, current, { service, index, pid, port, spec }) {
  if (sup.halted || sup.store.get()?.phase !== 'up') return null;
  sup.restarts.cancel(`${service}/${index}`);
  const { inst } = current(service, index);
  const old = { pid: inst.pid, port: inst.port };
  sup.store.update(() => {
    const url = `http://127.0.0.1:${port}`;
    Object.assign(inst, { pid, port, url, command: spec.command, args: spec.args, env: spec.env, startedAt: now() });
    delete inst.restarting;
  });
  return old;
}

async function restart(sup, instance, service, index) {
  const { entry } = instance.current(service, index);
  await instance.stopAsConfigured(service, index);
  const pid = instance.start(service, index);
  const { inst } = instance.current(service, index);
  await waitHealthy({
    port: inst.port, healthcheck: entry.healthcheck, label: `${inst.name} (log: ${inst.log})`, log: inst.log,
    exited: () => { const st = sup.children.status(pid); return st.exited ? st.how : undefined; },
    cancelled: () => sup.halted,
  });
  return { ...inst, pid };
}

// One change of a service's instances (a reload, a scale) at a time: { busy } names the one in progress.
function claimCommands({ store }) {
  return {
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
  };
}
