// The drill cells of one strategy of one app, from the app's x-bench description alone: a crash
// drill and a rollout drill for every strategy, and for replicas a graceful stop and a scale-down
// too, each under the same fixed rate of GETs and POSTs. What the plan (the lead's) turns into a
// deployment and runs with runDrillCell (index.js).
import { DRILL_STRATEGIES, PROCESS_MANAGERS, strategyKey } from './strategies.js';
import { checkWrites } from './writes.js';

export const DRILL_DEFAULTS = { kills: 5, events: 2, rate: 100, postShare: 0.2 };

const positiveInt = (x) => Number.isInteger(x) && x >= 1;

/** The short word an app goes by in cell ids: x-bench key, else its name or framework, lower case. */
export const appKey = (app) => String(app.key ?? app.name ?? app.sample ?? app.framework ?? 'app').toLowerCase().replace(/[^a-z0-9]+/g, '-');

/**
 * Why `app` can't run `strategy` (one line), or null when it can. The process managers need a
 * Node app with the workers knob (PM2 and reusePort also its process_manager knob and, where the app
 * lists them, its x-bench.process_managers); replicas the instances knob; x-bench.strategies, where
 * given, restricts.
 */
export function whyNotDrillable(app, strategy) {
  const key = strategyKey(strategy);
  const knobs = app.knobs ?? {};
  if (Array.isArray(app.strategies) && !app.strategies.includes(key)) return `${appKey(app)} lists x-bench.strategies without ${key}`;
  if (PROCESS_MANAGERS.includes(key)) {
    if (app.runtime !== 'node') return `${key} runs Node processes; ${appKey(app)} is ${app.runtime}`;
    if (!knobs.workers) return `${appKey(app)} has no workers knob (x-bench.knobs.workers)`;
    if (key !== 'cluster' && !knobs.process_manager) return `${appKey(app)} has no process_manager knob (x-bench.knobs.process_manager)`;
    if (key !== 'cluster' && Array.isArray(app.process_managers) && !app.process_managers.includes(key)) return `${appKey(app)}'s x-bench.process_managers has no ${key}`;
  }
  if (key === 'replicas' && !knobs.instances) return `${appKey(app)} has no instances knob (x-bench.knobs.instances)`;
  return null;
}

/** The mix of a drill: GETs of the light workload, a share of POSTs to the app's post route (or its writes). */
function mixOf(app, postShare) {
  const get = app.workloads?.light;
  if (typeof get !== 'string' || !get.startsWith('/')) throw new Error(`${appKey(app)}: x-bench.workloads.light must be a path (the drills' GETs)`);
  // The route that needs no store comes first: a drill swaps in the writes where the store runs.
  const post = app.post
    ? { path: app.post, body: '{"drill":true}', contentType: 'application/json' }
    : app.writes ? { path: app.writes.post, body: typeof app.writes.body === 'string' ? app.writes.body : JSON.stringify(app.writes.body), contentType: app.writes.content_type ?? 'application/json' } : undefined;
  return { get, ...(post ? { post } : {}), postShare: post ? postShare : 0 };
}

/**
 * drillCells(app, strategy, processes, budget, { kills, events, rate, postShare }): the cell specs
 * — [{ id, scenario: 'drills', kind: 'fault' | 'rollout' | 'stop' | 'scale-down', app, strategy, processes,
 * budget, viaNginx: true, how?, roll?, kills?, events?, rate, mix, writes }] — every one measured
 * behind the app's nginx. `processes`: 1 for one-process, 2 or more for the others. Throws one
 * line for input it can't use (an unknown strategy, one the app can't run, a count or budget that
 * is not a positive number).
 */
export function drillCells(app, strategy, processes, budget, options = {}) {
  const key = strategyKey(strategy);
  const o = { ...DRILL_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  if (!app || typeof app !== 'object') throw new Error('drillCells needs the app\'s x-bench description');
  const why = whyNotDrillable(app, key);
  if (why) throw new Error(`no ${key} drills: ${why}`);
  if (!positiveInt(processes)) throw new Error(`processes must be a whole number of at least 1 (got ${processes})`);
  if (key === 'one-process' && processes !== 1) throw new Error(`one-process runs 1 process (got ${processes})`);
  if (key !== 'one-process' && processes < 2) throw new Error(`${key} with ${processes} process is one-process: give 2 or more`);
  if (!(typeof budget === 'number' && budget > 0 && Number.isFinite(budget))) throw new Error(`budget must be a positive number of CPUs (got ${budget})`);
  if (!positiveInt(o.kills)) throw new Error(`kills must be a whole number of at least 1 (got ${o.kills})`);
  if (!positiveInt(o.events)) throw new Error(`events must be a whole number of at least 1 (got ${o.events})`);
  if (!(o.rate > 0 && Number.isFinite(o.rate))) throw new Error(`rate must be a positive number of requests per second (got ${o.rate})`);
  if (!(o.postShare >= 0 && o.postShare <= 1)) throw new Error(`postShare must be between 0 and 1 (got ${o.postShare})`);
  checkWrites(app.writes, `${appKey(app)}: x-bench.writes`);
  const s = DRILL_STRATEGIES[key];
  const base = { scenario: 'drills', app: app.sample ?? app.name ?? appKey(app), strategy: key, processes, budget, viaNginx: true, rate: o.rate, mix: mixOf(app, o.postShare), writes: app.writes ?? null };
  const id = (kind) => `${kind}:${appKey(app)}-${key}-${processes}@${budget}`;
  return [
    { id: id('fault'), kind: 'fault', ...base, how: s.crash, kills: o.kills },
    { id: id('rollout'), kind: 'rollout', ...base, roll: s.roll },
    ...s.lifecycle.map((kind) => ({ id: id(kind), kind, ...base, events: o.events })),
  ];
}
