// What the samples' own /metrics say of a cell, beside the bench's own probes: how evenly the
// requests spread over the serving processes (the busiest one's count over the mean, 1 = even) and
// the busiest event loop (the share of the window its loop was running code). Read from each app
// instance's metrics port (the runner's instance.extraPorts.METRICS_PORT, at instance.host on Docker) right
// before and after each saturated window, outside its timing. The bench's own probes for the same
// two questions: each instance's CPU time (its cgroup), as a spread and as the busiest instance's
// share of one CPU (one process per instance only: a cluster's instance holds several loops).
// Where the two disagree the report says so (report/app-metrics.js).
import { summary, round } from '../judge/stats.js';

// The request counters (a latency histogram's count): prom-client's (Node) and ASP.NET Core's.
const REQUESTS = new Set(['http_request_duration_seconds_count', 'http_server_request_duration_seconds_count']);
const LOOP = 'nodejs_eventloop_time_seconds_total';

/** { name, labels, value } of every sample line of a Prometheus text (a comment or a blank line is none). */
function parseSamples(text) {
  return [...text.matchAll(/^([A-Za-z_:][\w:]*)(?:\{(.*)\})?[^\S\n]+(\S+)/gm)].map((m) => ({
    name: m[1],
    labels: Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]])),
    value: Number(m[3]),
  }));
}

/** Per serving process (`<url>|<worker label>`): requests answered, loop time active and idle, in s. */
export function processesOf(url, text) {
  const procs = {};
  const at = (worker) => (procs[`${url}|${worker ?? ''}`] ??= { requests: 0, active: null, idle: null });
  for (const s of parseSamples(text)) {
    if (REQUESTS.has(s.name)) at(s.labels.worker).requests += s.value;
    else if (s.name === LOOP && (s.labels.state === 'active' || s.labels.state === 'idle')) {
      at(s.labels.worker)[s.labels.state] = s.value;
    }
  }
  return procs;
}

/**
 * A reader of every instance's metrics now: { processes } merged over `urls`, or null where an
 * instance did not answer (the window then has no reading: it says so, it does not guess).
 * @param {() => string[]} urls @returns {() => Promise<{ processes: Record<string, any> } | null>}
 */
export function metricsReader(urls) {
  return async () => {
    try {
      const texts = await Promise.all(urls().map(async (u) => {
        const res = await fetch(u, { signal: AbortSignal.timeout(5_000) });
        if (!res.ok) throw new Error(`${u}: ${res.status}`);
        return [u, await res.text()];
      }));
      return { processes: Object.assign({}, ...texts.map(([u, t]) => processesOf(u, t))) };
    } catch {
      return null;
    }
  };
}

const spreadOf = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.length && mean > 0 ? Math.max(...xs) / mean : null;
};

// The own probes over one window: each app instance's CPU time (usage().cpuNsByInstance).
function cpuOf(u0, u1, wallMs, processesPerInstance) {
  const names = Object.keys(u1?.cpuNsByInstance ?? {});
  if (!names.length || !(wallMs > 0)) return { cpuSpread: null, busiestCpu: null };
  const used = names.map((n) => (u1.cpuNsByInstance[n] - (u0?.cpuNsByInstance?.[n] ?? 0)) / 1e6);
  return {
    cpuSpread: names.length > 1 ? round(spreadOf(used), 3) : null,
    busiestCpu: processesPerInstance === 1 ? round(Math.max(...used) / wallMs, 3) : null,
  };
}

/**
 * One window's reading: per process, the requests and loop time of the window; the spread and the
 * busiest loop; beside them the own probes. Null where either metrics reading is missing.
 */
export function windowOf(m0, m1, { u0, u1, wallMs, processesPerInstance }) {
  if (!m0 || !m1) return null;
  const byProcess = Object.entries(m1.processes).map(([key, p]) => {
    const q = m0.processes[key] ?? { requests: 0, active: 0, idle: 0 };
    return {
      key,
      requests: p.requests - q.requests,
      active: p.active === null ? null : p.active - (q.active ?? 0),
      idle: p.idle === null ? null : p.idle - (q.idle ?? 0),
    };
  });
  return { byProcess, ...cpuOf(u0, u1, wallMs, processesPerInstance) };
}

/** Slices of one round as one window: requests and loop times added up per process; the own probes' median. */
export function combineWindows(ws) {
  const got = ws.filter(Boolean);
  if (!got.length) return null;
  const by = new Map();
  for (const p of got.flatMap((w) => w.byProcess)) {
    const acc = by.get(p.key) ?? { key: p.key, requests: 0, active: null, idle: null };
    acc.requests += p.requests;
    if (p.active !== null) acc.active = (acc.active ?? 0) + p.active;
    if (p.idle !== null) acc.idle = (acc.idle ?? 0) + p.idle;
    by.set(p.key, acc);
  }
  const mid = (f) => summary(got.map(f), 3).median;
  return { byProcess: [...by.values()], cpuSpread: mid((w) => w.cpuSpread), busiestCpu: mid((w) => w.busiestCpu) };
}

// A window's two answers from the app's metrics: spread over the processes that serve requests, and
// the busiest loop's utilization.
function answersOf(w) {
  const serving = w.byProcess.filter((p) => !p.key.endsWith('|primary'));
  const loops = w.byProcess.filter((p) => p.active !== null && p.active + p.idle > 0);
  return {
    spread: serving.length > 1 ? spreadOf(serving.map((p) => p.requests)) : null,
    busiestLoop: loops.length ? Math.max(...loops.map((p) => p.active / (p.active + p.idle))) : null,
  };
}

/** A cell's reading over its rounds (median and range of each answer), or null where none was read. */
export function summariseAppMetrics(rounds) {
  const ws = rounds.map((r) => r.appMetrics).filter(Boolean);
  if (!ws.length) return null;
  const a = ws.map(answersOf);
  return {
    rounds: ws.length,
    processes: Math.max(...ws.map((w) => w.byProcess.filter((p) => !p.key.endsWith('|primary')).length)),
    spread: summary(a.map((x) => x.spread), 3),
    busiestLoop: summary(a.map((x) => x.busiestLoop), 3),
    cpuSpread: summary(ws.map((w) => w.cpuSpread), 3),
    busiestCpu: summary(ws.map((w) => w.busiestCpu), 3),
  };
}

/**
 * Runs `measure` (one saturated window, with its wallMs) between two readings of the app's metrics and
 * of the own probes, both outside its timing; returns its window, with `appMetrics` where `hook` is given
 * ({ read, usage, processesPerInstance }: the cell's, scenario.js).
 * @param {{ read: () => Promise<any>, usage: () => Promise<any>, processesPerInstance: number } | null} hook
 * @param {() => Promise<any>} measure
 */
export async function withAppMetrics(hook, measure) {
  if (!hook) return measure();
  const [m0, u0] = await Promise.all([hook.read(), hook.usage()]);
  const w = await measure();
  const { wallMs } = w;
  const [m1, u1] = await Promise.all([hook.read(), hook.usage()]);
  return { ...w, appMetrics: windowOf(m0, m1, { u0, u1, wallMs, processesPerInstance: hook.processesPerInstance }) };
}
