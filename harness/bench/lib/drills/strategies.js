// How each strategy is drilled, beyond what its record (../strategies/) says — the record names
// what a crash kills (`drill.crash`: one of its workers, or a whole instance); this adds how the
// drill rolls it out, what else it drills and the words the guide uses:
//   roll       'reload':  the runner's reload — the process manager's own rolling restart where
//                         the app names a reload signal (SIGHUP), start-first behind nginx otherwise
//              'restart': stopped and started again in place (nothing serves meanwhile)
//   lifecycle  the other events drilled: a graceful stop and a scale-down of one instance (replicas)
import { STRATEGIES, strategyOf } from '../strategies/index.js';

const EXTRA = {
  'one-process': {
    roll: 'restart',
    lifecycle: [],
    crashText: 'SIGKILL to the process; its restart policy starts it again, and nothing serves meanwhile',
    rollText: 'stopped and started again in place: nothing serves meanwhile, so it cannot be zero-downtime',
  },
  cluster: {
    roll: 'reload',
    lifecycle: [],
    crashText: 'SIGKILL to one worker; the cluster primary forks another',
    rollText:
      'SIGHUP to the cluster primary: it forks a new worker, waits until it listens, then retires an old one, ' +
      'one at a time',
  },
  pm2: {
    roll: 'reload',
    lifecycle: [],
    crashText: 'SIGKILL to one PM2 instance; PM2 starts another',
    rollText:
      '`pm2 reload`: PM2 starts a new instance, waits for its ready message, then stops an old one, one at a time',
  },
  reuseport: {
    roll: 'reload',
    lifecycle: [],
    crashText: 'SIGKILL to one reusePort process; the launcher starts another',
    rollText:
      'SIGHUP to the launcher: a new reusePort process listens on the same port beside an old one, which then ' +
      'drains, one at a time',
  },
  replicas: {
    roll: 'reload',
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

/** The drill of a strategy (its key or slug): { slug, crash, roll, lifecycle, crashText, rollText, zeroDowntime }. */
export function drillOf(strategy) {
  const record = strategyOf(strategy);
  const extra = EXTRA[record.slug];
  if (!extra)
    throw new Error(`no drill for strategy '${record.slug}': add it to harness/bench/lib/drills/strategies.js`);
  return { slug: record.slug, crash: record.drill.crash, zeroDowntime: record.multiProcess, ...extra };
}

/** What one drill cell does to its strategy, in words (kept in its record: results.json describes itself). */
export function drillText(strategy, kind) {
  const d = drillOf(strategy);
  return kind === 'fault' ? d.crashText : kind === 'rollout' ? d.rollText : LIFECYCLE_TEXT[kind];
}

/** The strategies' slugs, in their records' order. */
export const STRATEGY_KEYS = STRATEGIES.map((s) => s.slug);

/** A strategy's slug from its key or slug ('one process' -> 'one-process'). */
export const strategyKey = (name) => strategyOf(name).slug;
