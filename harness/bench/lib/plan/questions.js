// The verdicts' questions: which topologies a run measures at each CPU budget and which pairs it
// compares, from the apps' descriptions (topologies/app-descriptions.js) and the strategy records (strategies/) alone.
//
// At a budget of B CPUs every app is measured as each strategy it supports, as a team would run it
// (B processes, at least 2, for a multi-process strategy; B replicas × B/n CPU), behind nginx. The
// questions, one workload at one budget:
//   1. each multi-process strategy of an app against the same app's one process;
//   2. every other app's one process against the baseline app's one process;
//   3. the multi-process strategies of an app against each other (which one, not only whether);
//   4. an app of another runtime (.NET) — its one process — against each multi-process strategy of
//      the baseline app: the runtime question asked directly, not through the baseline.
import { topology } from '../topologies/topology.js';
import { strategiesFor, processesAt } from '../strategies/index.js';

/** Processes a runtime can keep busy: one JS thread per Node process; a .NET process uses them all. */
export const usableCpus = (t) => Math.min(t.budgetCpus ?? Infinity, t.runtime === 'node' ? t.processes : Infinity);

/** Same app, same budget: the ratio of the CPUs each side can keep busy, a physical limit of throughput. */
export function limitOf(a, b, budget) {
  if (a.sample !== b.sample) return null;
  const ratio = usableCpus(a) / usableCpus(b);
  return {
    ratio,
    why: `the same app on the same ${budget}-CPU budget: at most ×${Number(ratio.toFixed(2))} of the CPU to use`,
  };
}

/** The baseline app of a run: the one marked so, else the first. */
export const baselineOf = (apps) => apps.find((a) => a.baseline) ?? apps[0];

/** The workloads an app is asked at a budget: its own requests, and the built-in ones it spells that the mode asks. */
export function workloadsOf(app, asked) {
  const own = app.requests.map((r) => r.name);
  const builtIn = asked.filter((w) => app.workloads[w] && (!app.asked.workloads || app.asked.workloads.includes(w)));
  return [...builtIn, ...own];
}

const isAskedAt = (app, budget) => !app.asked.budgets || app.asked.budgets.includes(budget);

/**
 * The topologies of one budget: { app, strategy, t } for every app asked there and every strategy it
 * supports (in the default run, at budget 1 only the records marked `core`).
 * @param {any[]} apps @param {{ budget: number, cpuset: string, mode: string }} where
 */
export function topologiesAt(apps, { budget, cpuset, mode }) {
  const base = baselineOf(apps);
  // The default run keeps its 15 minutes: at one CPU, the core strategies of the baseline app and
  // one process of the others.
  const asked = (app, s) => mode === 'full' || budget !== 1 || (s.core && (app === base || !s.multiProcess));
  return apps.filter((a) => isAskedAt(a, budget)).flatMap((app) => strategiesFor(app).filter((s) => asked(app, s))
    .map((s) => {
      const t = topology({
        sample: app.sample,
        strategy: s.key,
        n: processesAt(s, budget),
        budget,
        viaNginx: true,
        cpuset,
      });
      return { app, strategy: s, t: { ...t, id: `${t.id}-b${budget}` } };
    }));
}

// The question key of one side: the strategy's slug on the baseline app, the app's key before it on another.
const keyOf = (x, base) =>
  x.app === base ? x.strategy.slug : x.strategy.multiProcess ? `${x.app.key}-${x.strategy.slug}` : x.app.key;
const nameOf = (x) => `${x.app.name} ${x.strategy.label(x.t.processes)}`;

/**
 * The pairs asked at one budget: [{ key, a, b, what }] (a and b: entries of topologiesAt).
 * @param {any[]} entries @param {any} base the baseline app
 */
export function pairsAt(entries, base) {
  const pairs = [];
  const pair = (key, a, b) => pairs.push({ key, a, b, what: `${nameOf(a)} vs ${nameOf(b)}` });
  const one = (app) => entries.find((e) => e.app === app && !e.strategy.multiProcess);
  const multi = (app) => entries.filter((e) => e.app === app && e.strategy.multiProcess);
  const apps = [...new Set(entries.map((e) => e.app))];
  for (const app of apps) {
    const o = one(app);
    if (!o) continue;
    for (const m of multi(app)) pair(keyOf(m, base), m, o);
    if (app !== base && one(base)) pair(keyOf(o, base), o, one(base));
  }
  for (const app of apps) {
    const ms = multi(app);
    const prefix = app === base ? '' : `${app.key}-`;
    for (const [i, a] of ms.entries()) {
      for (const b of ms.slice(i + 1)) pair(`${keyOf(a, base)}-vs-${keyOf(b, base).replace(prefix, '')}`, a, b);
    }
  }
  for (const app of apps.filter((a) => a !== base && a.runtime !== base.runtime)) {
    const o = one(app);
    if (o) for (const m of multi(base)) pair(`${app.key}-vs-${m.strategy.slug}`, o, m);
  }
  return pairs;
}
