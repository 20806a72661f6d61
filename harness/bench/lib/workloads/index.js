// The workloads a run can ask, one record per file in this folder (adding a workload is one new
// file and its test, harness/bench/README.md "Add a workload"): how much work each request does,
// what a right answer looks like (checked before anything is timed), and where the default run asks
// it. Each app's x-bench.workloads says how it spells the path; an app that spells none of a
// workload is not asked it.
import { recordsIn } from '../records/read-folder.js';

/**
 * @typedef {object} Workload
 * @property {string} name              the word in cell and question ids, and in x-bench.workloads
 * @property {number} order             where it stands in plans and tables
 * @property {string} title             how the report and the guide name it
 * @property {Record<string, number>} params   the values of the path's {placeholders}
 * @property {number} connections       the closed loop's connections
 * @property {number} latencyRatePerCpu the fixed rate p99 is compared at, per CPU of the budget
 * @property {'every budget' | 'larger budgets' | 'no'} defaultRun   where the default run asks it
 *                                      (the full run asks every workload at every budget)
 * @property {boolean} [defaultRunCoreOnly]  the default run asks it between the core strategies only
 * @property {number} [minLatencyMs]    the shortest time a request can take (the connections' cap)
 * @property {boolean} [database]       its cells start the app's store beside it
 * @property {boolean} [custom]         an app's own request (x-bench.requests): any 2xx is right
 * @property {(body: any) => boolean} check   whether an answer's JSON body is right
 * @property {string} shape             a right answer, in words
 */

/** @type {Record<string, Workload>} every record of this folder, by name, in their `order` */
export const WORKLOADS = Object.fromEntries(
  (await recordsIn(import.meta.dirname, 'workloads', 'name')).map((w) => [w.name, w]),
);

/**
 * What a cell sends other than a plain GET: { method, body (a string), headers } of an app's own
 * request (x-bench.requests), or null.
 * @param {{ requests?: { name: string, method?: string, body?: any, content_type?: string }[] } | null} app
 * @param {string} name
 */
export function requestOf(app, name) {
  const r = WORKLOADS[name] ? null : app?.requests?.find((x) => x.name === name);
  if (!r || (r.method ?? 'GET') === 'GET') return null;
  return {
    method: r.method,
    ...(r.body !== undefined ? { body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body) } : {}),
    headers: { 'content-type': r.content_type ?? 'application/json' },
  };
}

/**
 * A workload of a run: one of the bench's own (above), or one of the app's own requests
 * (x-bench.requests, e.g. from `make bench APP=… PATHS=…`): any 2xx answer is right, and its
 * rate for latency windows is the busiest built-in one's per CPU.
 * @param {{ requests?: { name: string, path: string, method?: string, connections?: number }[] } | null} app
 * @param {string} name @returns {Partial<Workload>}
 */
export function workloadSpec(app, name) {
  if (WORKLOADS[name]) return WORKLOADS[name];
  const r = app?.requests?.find((x) => x.name === name);
  if (!r) {
    const names = [...Object.keys(WORKLOADS), ...(app?.requests ?? []).map((x) => x.name)];
    throw new Error(`unknown workload "${name}" (one of: ${names.join(', ')})`);
  }
  return {
    title: `${r.method ?? 'GET'} ${r.path}`, params: {}, connections: r.connections ?? 64, latencyRatePerCpu: 200,
    check: () => true, shape: 'a 2xx answer', custom: true,
  };
}
