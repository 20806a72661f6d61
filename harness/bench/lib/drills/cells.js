// The drill cells of one strategy of one app: a crash drill and a rollout drill for every strategy,
// and for replicas a graceful stop and a scale-down too, each under the same fixed rate of GETs and
// POSTs, measured behind the app's nginx. The cells carry their topology, so the plan runs them
// like any other cell (one deployment, its URL) and hands each to runDrillCell (index.js).
import { strategyOf } from '../strategies/index.js';
import { topology } from '../topologies/topology.js';
import { workloadPath } from '../topologies/app-descriptions.js';
import { drillOf } from './strategies.js';
import { checkWrites, writePost } from './writes.js';

export const DRILL_DEFAULTS = { kills: 5, events: 2, rate: 100, postShare: 0.2 };

const positiveInt = (x) => Number.isInteger(x) && x >= 1;

/**
 * Why the app (describeSample's description) can't run the strategy (one line), or null: the
 * strategy record's own check, and the app's x-bench.strategies where it lists them.
 */
export function whyNotDrillable(app, strategy) {
  const record = strategyOf(strategy);
  if (app.strategies && !app.strategies.some((k) => strategyOf(k).key === record.key))
    return `${app.name} lists x-bench.strategies without ${record.slug}`;
  return record.unsupported(app);
}

// The mix of a drill: GETs of the light workload, a share of POSTs to the app's post route (a drill
// swaps in its writes where the store runs), or to its writes' route when it has no other.
function mixOf(app, postShare) {
  const get = workloadPath(app.sample, 'light') ?? app.requests?.find((r) => (r.method ?? 'GET') === 'GET')?.path;
  if (typeof get !== 'string' || !get.startsWith('/'))
    throw new Error(`${app.name}: no GET for the drills (x-bench.workloads.light, or a GET in x-bench.requests)`);
  const post = app.post
    ? { path: app.post, body: '{"drill":true}', contentType: 'application/json' }
    : app.writes && writePost(app.writes);
  return { get, ...(post ? { post } : {}), postShare: post ? postShare : 0 };
}

/**
 * drillCells(app, strategy, processes, budget, { kills, events, rate, postShare }): the cells —
 * [{ id, scenario: 'drills', kind: 'fault' | 'rollout' | 'stop' | 'scale-down', app, strategy (its
 * slug), processes, budget, topology, workload, path, connections, needsDb, wantsDb, how?, roll?, kills?,
 * events?, rate, postShare, mix }]. `app`: describeSample's description; `processes`: 1 for
 * one-process, 2 or more for the others. Throws one line for input it can't use (an unknown
 * strategy, one the app can't run, a count or budget that is not a positive number).
 */
export function drillCells(app, strategy, processes, budget, options = {}) {
  if (!app || typeof app !== 'object' || !app.sample)
    throw new Error("drillCells needs the app's description (describeSample)");
  const d = drillOf(strategy);
  const o = { ...DRILL_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const why = whyNotDrillable(app, strategy);
  if (why) throw new Error(`no ${d.slug} drills: ${why}`);
  if (!positiveInt(processes)) throw new Error(`processes must be a whole number of at least 1 (got ${processes})`);
  if (!d.zeroDowntime && processes !== 1) throw new Error(`${d.slug} runs 1 process (got ${processes})`);
  if (d.zeroDowntime && processes < 2)
    throw new Error(`${d.slug} with ${processes} process is one-process: give 2 or more`);
  if (!(typeof budget === 'number' && budget > 0 && Number.isFinite(budget)))
    throw new Error(`budget must be a positive number of CPUs (got ${budget})`);
  if (!positiveInt(o.kills)) throw new Error(`kills must be a whole number of at least 1 (got ${o.kills})`);
  if (!positiveInt(o.events)) throw new Error(`events must be a whole number of at least 1 (got ${o.events})`);
  if (!(o.rate > 0 && Number.isFinite(o.rate)))
    throw new Error(`rate must be a positive number of requests per second (got ${o.rate})`);
  if (!(o.postShare >= 0 && o.postShare <= 1))
    throw new Error(`postShare must be between 0 and 1 (got ${o.postShare})`);
  checkWrites(app.writes, `${app.name}: x-bench.writes`);
  const t = topology({ sample: app.sample, strategy: d.slug, n: processes, budget, viaNginx: true });
  const mix = mixOf(app, o.postShare);
  const base = {
    scenario: 'drills',
    app: app.folder ?? app.sample,
    strategy: d.slug,
    processes,
    budget,
    topology: t,
    workload: 'light',
    path: mix.get,
    connections: null,
    // The store where it runs, to count the writes in it; without it the drill still runs (its POSTs
    // go to the app's post route) and says its writes were not counted.
    needsDb: false,
    wantsDb: Boolean(app.writes),
    rate: o.rate,
    postShare: mix.postShare,
    mix,
  };
  const id = (kind) => `${kind}:${t.id}@${budget}`;
  return [
    { id: id('fault'), kind: 'fault', ...base, how: d.crash, kills: o.kills },
    { id: id('rollout'), kind: 'rollout', ...base, roll: d.roll },
    ...d.lifecycle.map((kind) => ({ id: id(kind), kind, ...base, events: o.events })),
  ];
}
