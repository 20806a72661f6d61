// The run's supervisor: one detached process per run, started by up() and stopped by down(). It
// is the parent of every instance (supervisor-children.js), so it sees each exit with its code at
// once, and applies the service's `restart:` policy the way Docker's daemon would, also long after
// `make up` returned. It owns the run's state (supervisor-state.js, the store): ps, status and every
// change — a kill, a restart, a reload's switch to a new process — are commands over its local
// socket (supervisor-server.js, supervisor-commands.js: one small handler each), applied one at a
// time by its event loop; state.json is the snapshot it writes after each. Its log is
// logs/supervisor.log.
//
// An exit leads to a restart only when the process was the instance's current one (not a
// replaced or candidate process), nobody stopped it on purpose (stop: down, restart, reload), the
// service finished starting (`armed` by up()), and the run is not being taken down (`halt`).
import os from 'node:os';
import { socketPath } from './snapshot.js';
import { stateStore } from './supervisor-state.js';
import { childTable, describeExit } from './supervisor-children.js';
import { serialQueue, restartTimers } from './supervisor-queues.js';
import { supervisorCommands } from './supervisor-commands.js';
import { serve } from './supervisor-server.js';
import { shouldRestart, exitCodeOf, nextDelayMs } from '../common/restart-policy.js';

const log = (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const now = () => new Date().toISOString();

/**
 * What the handlers share: the store, the children, the schedules, and whether the run is halted.
 * @typedef {object} Supervisor
 * @property {string} runDir
 * @property {(line: string) => void} log
 * @property {ReturnType<typeof stateStore>} store
 * @property {ReturnType<typeof childTable>} children
 * @property {ReturnType<typeof serialQueue>} serial
 * @property {ReturnType<typeof restartTimers>} restarts
 * @property {boolean} halted
 * @property {(spec: object, who: { service: string, index: number }) => number} spawn
 */

export function supervise(runDir) {
  /** @type {Supervisor} */
  const sup = {
    runDir, log, store: stateStore(runDir, log), serial: serialQueue(), restarts: restartTimers(), halted: false,
    children: undefined, spawn: undefined,
  };
  sup.children = childTable({
    runDir,
    log,
    onExit: (pid, kid, how, onPurpose) => onExit(sup, pid, kid, how, onPurpose),
  });
  sup.spawn = (spec, who) => {
    if (sup.halted) throw new Error('the run is being taken down: no new process');
    return sup.children.spawn(spec, who);
  };
  const commands = supervisorCommands(sup);
  serve(socketPath(runDir), commands, log, runDir);
  // Ends with its run: when its folder is gone (removed by hand, or by a test's clean-up), nobody
  // can take it down any more, so what is left goes too.
  setInterval(() => {
    if (!sup.store.gone()) return;
    log('the run folder is gone: stopping what is left');
    commands.exit();
  }, 1000);
}

// What the restart policy decides for an exit of an instance's current process; schedules the
// restart when it says so. Returns the decision, for the log.
function decide(sup, { entry, inst, key, kid, pid, how, onPurpose }) {
  if (sup.halted || onPurpose || !entry.armed || sup.restarts.pending(key)) {
    return sup.halted ? 'run stopping' : onPurpose ? 'stopped on purpose' : 'stays down';
  }
  const exitCode = exitCodeOf(how, os.constants.signals);
  if (!shouldRestart(entry.restart ?? { name: 'no' }, { exitCode, restarts: inst.restarts ?? 0 })) {
    return `restart: ${entry.restart?.name ?? 'no'} -> stays down`;
  }
  const delayMs = nextDelayMs(sup.restarts.lastDelay(key), Date.now() - kid.startedAt);
  inst.restarting = { delayMs, since: now() };
  sup.restarts.schedule(key, delayMs, () => restartNow(sup, key, kid, pid));
  return `restart: ${entry.restart.name} -> restarting in ${delayMs} ms`;
}

function onExit(sup, pid, kid, how, onPurpose) {
  const key = `${kid.service}/${kid.index}`;
  let decision = 'not the current process';
  sup.store.update((state) => {
    const entry = state.services?.[kid.service];
    const inst = entry?.instances.find((i) => i.index === kid.index);
    if (!inst || inst.pid !== pid) return false;
    inst.lastExit = { pid, ...how, at: now() };
    decision = decide(sup, { entry, inst, key, kid, pid, how, onPurpose });
    return undefined;
  });
  sup.log(`${key} pid ${pid} ${describeExit(how)}: ${decision}`);
}

function restartNow(sup, key, kid, oldPid) {
  sup.serial(key, () => {
    const inst = sup.store.instance(kid.service, kid.index);
    if (sup.halted || !inst || inst.pid !== oldPid) return; // taken down, or replaced meanwhile
    const pid = sup.spawn(inst, kid);
    sup.store.update(() => {
      Object.assign(inst, { pid, startedAt: now(), restarts: (inst.restarts ?? 0) + 1 });
      delete inst.restarting;
    });
  }).catch((err) => sup.log(`${key}: restart failed: ${err.message}`));
}
