// The four workloads: how much work each request does, and what a right answer looks like
// (checked before anything is timed). Each sample's compose.yaml (x-bench.workloads) says how
// the app spells the path.

const isObj = (b) => b !== null && typeof b === 'object' && !Array.isArray(b);
const hasPi = (b) => isObj(b) && typeof b.pi === 'number' && b.pi > 2.5 && b.pi < 3.8;
const listIn = (b) => (Array.isArray(b) ? b : isObj(b) && (b.items ?? b.products ?? b.data));

export const WORKLOADS = {
  light: {
    title: 'light JSON',
    params: {},
    connections: 64,
    // p99 is compared at this rate per CPU of the budget (or latencyLoad of the slowest side's
    // capacity, if less). 2,000 was tried: the p99 intervals stayed ±45–69% within a run (a slice's
    // p99 is set by the machine's few-millisecond stalls either way), and CPU per request came out
    // ×0.78 and ×0.90 for .NET in two runs (default runs, 2026-11-25).
    latencyRatePerCpu: 1000,
    check: (b) => isObj(b) && Object.keys(b).length > 0,
    shape: 'a non-empty JSON object',
  },
  pi: {
    title: 'CPU-bound (pi)',
    // About 1 ms of CPU per request in Node (xorshift32 Monte Carlo, the same in all three apps):
    // the work, not the HTTP overhead, dominates.
    params: { samples: 100000 },
    connections: 32,
    latencyRatePerCpu: 200,
    check: hasPi,
    shape: 'a JSON object with pi between 2.5 and 3.8',
  },
  delay: {
    title: 'slow I/O (50 ms wait)',
    params: { ms: 50 },
    // Enough that the connections are not what bounds it: by Little's law a 50 ms wait caps n
    // connections at n / 0.05 s req/s (256 capped every strategy at 5,120, so all came out equal).
    connections: 2048,
    // The shortest time a request can take: what the connection cap is computed from (judge/bottleneck.js).
    minLatencyMs: 50,
    latencyRatePerCpu: 1000,
    check: isObj,
    shape: 'a JSON object',
  },
  db: {
    title: 'database read',
    params: {},
    connections: 64,
    latencyRatePerCpu: 200,
    check: (b) => Array.isArray(listIn(b)) && listIn(b).length > 0,
    shape: 'a non-empty JSON list (or {items|products|data: [...]})',
  },
};

export function workload(name) {
  const w = WORKLOADS[name];
  if (!w) throw new Error(`unknown workload "${name}" (one of: ${Object.keys(WORKLOADS).join(', ')})`);
  return w;
}

/**
 * What a cell sends other than a plain GET: { method, body (a string), headers } of an app's own
 * request (x-bench.requests), or null.
 * @param {{ requests?: { name: string, method?: string, body?: any, content_type?: string }[] } | null} app
 * @param {string} name
 */
export function requestOf(app, name) {
  const r = WORKLOADS[name] ? null : app?.requests?.find((x) => x.name === name);
  if (!r || (r.method ?? 'GET') === 'GET') return null;
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  return {
    method: r.method,
    ...(body !== undefined ? { body } : {}),
    headers: { 'content-type': r.content_type ?? 'application/json' },
  };
}

/**
 * A workload of a run: one of the bench's own (above), or one of the app's own requests
 * (x-bench.requests, e.g. from `make bench APP=… PATHS=…`): any 2xx answer is right, and its
 * rate for latency windows is the busiest built-in one's per CPU.
 * @param {{ requests?: { name: string, path: string, method?: string, connections?: number }[] } | null} app
 * @param {string} name
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
