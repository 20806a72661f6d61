// Two small schedules of the supervisor: operations on one instance run one after the other (a stop
// with its grace period, a restart until healthy), and pending restarts with the last delay each
// instance waited (the backoff grows from it).

/** serial(key, op): runs `op` once the operations queued on `key` before it have finished. */
export function serialQueue() {
  const queues = new Map(); // key -> the last operation on it
  return function serial(key, op) {
    const run = (queues.get(key) ?? Promise.resolve()).then(op);
    const settled = run.catch(() => {});
    queues.set(key, settled);
    settled.then(() => { if (queues.get(key) === settled) queues.delete(key); });
    return run;
  };
}

/** Pending restarts by key ("service/index"), and each key's last delay. */
export function restartTimers() {
  const timers = new Map();
  const delays = new Map();
  const cancel = (key) => {
    clearTimeout(timers.get(key));
    timers.delete(key);
  };
  return {
    pending: (key) => timers.has(key),
    schedule: (key, delayMs, fn) => {
      delays.set(key, delayMs);
      timers.set(key, setTimeout(() => { timers.delete(key); fn(); }, delayMs));
    },
    cancel,
    cancelAll: () => { for (const key of [...timers.keys()]) cancel(key); },
    lastDelay: (key) => delays.get(key),
    forget: (key) => delays.delete(key),
  };
}
