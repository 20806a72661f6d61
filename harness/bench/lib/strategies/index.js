// The strategies the bench measures, one record per file in this folder (adding a strategy is one
// new file and its test, harness/bench/README.md "Add a strategy"): its key, how it is named, what
// it needs from an app, how it is started with n processes, how it is drilled and how the guide
// explains it. The plan is built from these records and from each app's x-bench description
// (../topologies/app-descriptions.js); nothing here names an app.
import { recordsIn } from '../records/read-folder.js';

/** @typedef {{ knobs: Record<string, string>, instances: number, workers: number }} Configured */

/**
 * @typedef {object} Strategy
 * @property {string} key            topology.strategy: 'one process', 'cluster', …
 * @property {string} slug           a word for ids and file names: 'one-process', 'cluster', …
 * @property {string} title          the guide's heading for it
 * @property {string} why            one paragraph: what it does and where it pays
 * @property {boolean} multiProcess  runs several processes of the app (false: one process)
 * @property {number} order          where it stands in tables and plans
 * @property {boolean} [optional]    a machine may lack it (PM2 not installed, reusePort before Node
 *                                   22.12): skipped with one line
 * @property {boolean} [core]        asked at every budget of the default run (false: multi-core
 *                                   budgets only, all of them in the full run)
 * @property {(app: any) => string | null} unsupported   why it can't run this app, or null
 * @property {(app: any, n: number) => Configured} configure
 * @property {(n: number) => string} shape   the topology id's part: '1', 'cluster-2', …
 * @property {(n: number) => string} label   'cluster of 2', '2 replicas', …
 * @property {{ crash: 'worker' | 'instance', rollout: string }} drill   how a drill crashes and rolls it
 */

/** @type {Strategy[]} every record of this folder (and of BENCH_EXTRA_DIR's strategies/), in their `order` */
export const STRATEGIES = await recordsIn(import.meta.dirname, 'strategies', 'key');

/** The record of a strategy key ('cluster'), or a one-line error naming the keys there are. */
export function strategyOf(key) {
  const s = STRATEGIES.find((x) => x.key === key || x.slug === key);
  if (!s) throw new Error(`unknown strategy '${key}' (one of: ${STRATEGIES.map((x) => x.slug).join(', ')})`);
  return s;
}

/** The strategies an app supports, in order: its x-bench `strategies` list, else every one its knobs allow. */
export function strategiesFor(app) {
  const listed = app.strategies ? new Set(app.strategies.map((k) => strategyOf(k).key)) : null;
  return STRATEGIES.filter((s) => (!listed || listed.has(s.key)) && s.unsupported(app) === null);
}

/** Processes a multi-process strategy runs at a budget of B CPUs: one per CPU, and at least two
 * (a team on one core that wants a crash or a deploy survived runs two). */
export const processesAt = (s, budget) => (s.multiProcess ? Math.max(2, Math.round(budget)) : 1);
