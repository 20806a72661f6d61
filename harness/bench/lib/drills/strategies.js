// How each strategy is drilled: what a crash kills (one of its worker processes, or a whole
// instance) and how it is rolled out (its own rolling restart). The lead folds this map into the
// strategy records (harness/bench/lib/strategies/); the drills read it from here until then.
//   crash      'instance': SIGKILL to an instance, its restart policy brings it back
//              'worker':   SIGKILL to one worker, the process manager starts another
//   roll       'reload':   the runner's reload — the process manager's own rolling restart where the
//                          app names a reload signal (SIGHUP), start-first behind nginx otherwise
//              'restart':  stopped and started again in place (nothing serves meanwhile)
//   lifecycle  the other events drilled: a graceful stop and a scale-down of one instance (replicas)
//   zeroDowntime  whether its rollout can keep every request (the pass line applies)
export const DRILL_STRATEGIES = {
  'one-process': {
    crash: 'instance',
    roll: 'restart',
    zeroDowntime: false,
    lifecycle: [],
    crashText: 'SIGKILL to the process; its restart policy starts it again, and nothing serves meanwhile',
    rollText: 'stopped and started again in place: nothing serves meanwhile, so it cannot be zero-downtime',
  },
  cluster: {
    crash: 'worker',
    roll: 'reload',
    zeroDowntime: true,
    lifecycle: [],
    crashText: 'SIGKILL to one worker; the cluster primary forks another',
    rollText: 'SIGHUP to the cluster primary: it forks a new worker, waits until it listens, then retires an old one, one at a time',
  },
  pm2: {
    crash: 'worker',
    roll: 'reload',
    zeroDowntime: true,
    lifecycle: [],
    crashText: 'SIGKILL to one PM2 instance; PM2 starts another',
    rollText: '`pm2 reload`: PM2 starts a new instance, waits for its ready message, then stops an old one, one at a time',
  },
  reuseport: {
    crash: 'worker',
    roll: 'reload',
    zeroDowntime: true,
    lifecycle: [],
    crashText: 'SIGKILL to one reusePort process; the launcher starts another',
    rollText: 'SIGHUP to the launcher: a new reusePort process listens on the same port beside an old one, which then drains, one at a time',
  },
  replicas: {
    crash: 'instance',
    roll: 'reload',
    zeroDowntime: true,
    lifecycle: ['stop', 'scale-down'],
    crashText: 'SIGKILL to one replica; its restart policy brings it back, nginx sends to the others meanwhile',
    rollText: 'start-first behind nginx: a new replica, healthy first, then nginx sends to it and the old one drains, one at a time',
  },
};

export const STRATEGY_KEYS = Object.keys(DRILL_STRATEGIES);

// The process-manager strategies run several processes in one instance of a Node app.
export const PROCESS_MANAGERS = ['cluster', 'pm2', 'reuseport'];

/** A strategy's key from its key or the bench's topology name ('one process' -> 'one-process'). */
export function strategyKey(name) {
  const key = String(name).trim().toLowerCase().replace(/\s+/g, '-');
  if (!DRILL_STRATEGIES[key]) throw new Error(`unknown strategy ${JSON.stringify(name)}: use one of ${STRATEGY_KEYS.join(', ')}`);
  return key;
}
