// How each strategy is drilled, beyond what its record (../strategies/) says — the record names
// what a crash kills (`drill.crash`: one of its workers, or a whole instance); this adds how the
// drill rolls it out, what else it drills and the words the guide uses:
//   roll       'reload':  (the default) the runner's reload — the process manager's own rolling restart where
//                         the app names a reload signal (SIGHUP), start-first behind nginx otherwise
//              'restart': stopped and started again in place (nothing serves meanwhile)
//   lifecycle  the other events drilled (default none): a graceful stop and a scale-down of one instance (replicas)
import { STRATEGIES, strategyOf } from '../strategies/index.js';

const EXTRA = {
  'one-process': {
    roll: 'restart',
    crashText: 'SIGKILL to the process; its restart policy starts it again, and nothing serves meanwhile',
    rollText: 'stopped and started again in place: nothing serves meanwhile, so it cannot be zero-downtime',
  },
  cluster: {
    crashText: 'SIGKILL to one worker; the cluster primary forks another',
    rollText:
      'SIGHUP to the cluster primary: it forks a new worker, waits until it listens, then retires an old one, ' +
      'one at a time',
  },
  pm2: {
    crashText: 'SIGKILL to one PM2 instance; PM2 starts another',
    rollText:
      '`pm2 reload`: PM2 starts a new instance, waits for its ready message, then stops an old one, one at a time',
  },
  reuseport: {
    crashText: 'SIGKILL to one reusePort process; the launcher starts another',
    rollText:
      'SIGHUP to the launcher: a new reusePort process listens on the same port beside an old one, which then ' +
      'drains, one at a time',
  },
  replicas: {
    lifecycle: ['stop', 'scale-down'],
    crashText: 'SIGKILL to one replica; its restart policy brings it back, nginx sends to the others meanwhile',
    rollText:
      'start-first behind nginx: a new replica, healthy first, then nginx sends to it and the old one drains, ' +
      'one at a time',
  },
};

const LIFECYCLE_TEXT = {
  stop: 'SIGTERM to one replica (it drains and exits, as `docker stop` does), then started again',
  'scale-down': 'scaled from n replicas to n-1 (nginx stops sending to the one that goes), then back to n',
};

/**
 * The drill of a strategy (its key or slug): { slug, crash, roll, lifecycle, crashText, rollText, zeroDowntime,
 * text }; `text[kind]`: what a cell of that kind does to it (kept in its record: results.json describes itself).
 */
export function drillOf(strategy) {
  const record = strategyOf(strategy);
  const extra = EXTRA[record.slug];
  if (!extra)
    throw new Error(`no drill for strategy '${record.slug}': add it to harness/bench/lib/drills/strategies.js`);
  const text = { fault: extra.crashText, rollout: extra.rollText, ...LIFECYCLE_TEXT };
  return { slug: record.slug, crash: record.drill.crash, zeroDowntime: record.multiProcess, roll: 'reload',
    lifecycle: [], ...extra, text };
}

/** The strategies' slugs, in their records' order. */
export const STRATEGY_KEYS = STRATEGIES.map((s) => s.slug);
