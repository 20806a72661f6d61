// A child process behind the part of a cluster Worker's interface src/supervisor.js uses (id,
// process, isDead(), isConnected(), send(), exitedAfterDisconnect, the events 'listening', 'exit'
// and 'message'), so the supervisor keeps independent processes as it keeps cluster workers: the
// reuseport launcher's (src/reuseport.js). A process that says 'ready' over IPC is listening; one
// without IPC is marked listening by whoever started it (worker.emit('listening')).
import { EventEmitter } from 'node:events';

let lastId = 0;

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {{ cleanExitPlanned?: boolean }} [options] whether an exit with code 0 is planned (a drain),
 *   as a cluster worker's exit after disconnect is; else only the exits the supervisor asked for are
 */
export function childWorker(child, { cleanExitPlanned = false } = {}) {
  /** @type {any} a cluster Worker's interface, on an EventEmitter */
  const worker = new EventEmitter();
  Object.assign(worker, {
    id: ++lastId,
    process: child,
    exitedAfterDisconnect: false,
    isDead: () => child.exitCode !== null || child.signalCode !== null,
    isConnected: () => child.connected,
    send: (msg, callback) => child.send(msg, callback),
  });
  child.on('message', (msg) => {
    if (msg === 'ready') worker.emit('listening');
    else worker.emit('message', msg);
  });
  child.on('exit', (code, signal) => {
    worker.exitedAfterDisconnect = cleanExitPlanned && code === 0;
    worker.emit('exit', code, signal);
  });
  return worker;
}
