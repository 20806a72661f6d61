// One measured window, with what the system under test spent on it; open-loop steps and the
// search for the highest sustained rate.
import { getTool, pacedToolName } from '../tools/index.js';
import { round, mulberry32, lowerMedian } from '../judge/stats.js';
import { socketCounters, timeWaitSockets } from './tcp-counters.js';
import * as paced from '../tools/paced.js';
import { histogram } from '../judge/latency-histogram.js';
import { heldOf } from '../judge/held-rate.js';
import { generatorCpuMs, shareOfMachine } from '../tools/generator-cpu.js';
import { availableCpus } from '../../../runner/index.js';

const MACHINE_CPUS = availableCpus().length;

const errorsOf = (r) => r.non2xx + r.socketErrors;

const meanOf = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const SWITCHES = ['voluntary', 'involuntary'];
const THROTTLING = ['periods', 'throttled', 'throttledMs'];
// Each of `keys` in `to` plus `sign` × the same in `from`: a window's (after less before), or slices added up.
const addUp = (keys, to, from, sign) => Object.fromEntries(keys.map((k) => [k, to[k] + sign * (from?.[k] ?? 0)]));

// The CPU a window cost each role of the topology (its app, nginx, its store): what bounded it.
const ROLES = ['appCpuMs', 'proxyCpuMs', 'databaseCpuMs'];
function cpuByRole(before, after) {
  if (!before?.cpuNsBy || !after?.cpuNsBy) return {};
  return Object.fromEntries(Object.entries(after.cpuNsBy)
    .map(([role, ns]) => [`${role}CpuMs`, round((ns - (before.cpuNsBy[role] ?? 0)) / 1e6, 1)]));
}

// Each instance's CPU throttling in `to` plus `sign` × its counters in `from`: a window's (after less
// before), or a round's (its slices added up).
function throttlingOf(to, from, sign) {
  return Object.fromEntries(Object.entries(to ?? {}).map(([name, t]) => {
    const d = addUp(THROTTLING, t, from?.[name], sign);
    return [name, { ...d, throttledMs: round(d.throttledMs, 1) }];
  }));
}

/**
 * Closed loop: `connections` clients each send the next request when the last one answered, for
 * durationS. usage() is read before and after: CPU time per request and memory of the topology.
 * @param {{ url: string, tool: string, connections: number, durationS: number, threads?: number,
 *   usage?: () => Promise<any>, request?: any }} options
 */
export async function closedWindow({ url, tool, connections, durationS, threads, usage, request = null }) {
  const before = usage ? await usage() : null;
  const generatorBefore = generatorCpuMs();
  const startedMs = performance.now();
  // Memory is sampled every second of the window (a garbage-collected heap breathes): the mean of the
  // samples, of the topology's own pages (anonymous and shared memory; see runner/processes/usage.js).
  const samples = [];
  const sample = async () => {
    try { samples.push((await usage()).anonMiB); } catch { /* gone */ }
  };
  const timer = usage ? setInterval(sample, 1000) : null;
  let r;
  try {
    r = await getTool(tool).run({ url, connections, durationS, threads, request });
  } finally {
    if (timer) clearInterval(timer);
  }
  const wallMs = performance.now() - startedMs;
  const generatorMs = generatorCpuMs() - generatorBefore;
  const after = usage ? await usage() : null;
  if (after) samples.push(after.anonMiB);
  const cpuMs = after ? (after.cpuNs - before.cpuNs) / 1e6 : null;
  return {
    ...cpuByRole(before, after),
    generatorCpuMs: round(generatorMs, 1),
    wallMs: round(wallMs, 1),
    generatorShare: round(shareOfMachine(generatorMs, wallMs, MACHINE_CPUS), 3),
    rps: round(r.rps),
    requests: r.requests,
    durationS: round(r.durationS, 2),
    latencyMs: r.latencyMs,
    errors: errorsOf(r),
    non2xx: r.non2xx,
    socketErrors: r.socketErrors,
    cpuMs: round(cpuMs, 1),
    cpuPerRequestUs: cpuMs !== null && r.requests > 0 ? round((cpuMs * 1000) / r.requests, 2) : null,
    memoryMiB: round(meanOf(samples), 1),
    memoryMaxMiB: samples.length ? round(Math.max(...samples), 1) : null,
    pssMiB: after ? round(after.pssMiB, 1) : null,
    rssMiB: after ? round(after.rssMiB, 1) : null,
    processes: after?.processes ?? null,
    throttling: after ? throttlingOf(after.throttling, before.throttling, -1) : null,
    // The app's processes only: threads at the end, context switches during the window.
    appThreads: after?.threads ?? null,
    contextSwitches: after ? addUp(SWITCHES, after.contextSwitches, before.contextSwitches, -1) : null,
  };
}

/**
 * One window from slices of it (closedWindow results) taken in turn with other cells: requests,
 * failures and CPU added up, req/s and CPU per request over the whole, memory the mean of the
 * slices'; the closed-loop latency percentiles the median slice's, and max the highest.
 */
export function combineWindows(ws) {
  const sum = (f) => ws.reduce((s, w) => s + (f(w) ?? 0), 0);
  const values = (f) => ws.map(f).filter(Number.isFinite);
  const mid = (f) => lowerMedian(values(f));
  const maxOf = (f) => { const v = values(f); return v.length ? Math.max(...v) : null; };
  const requests = sum((w) => w.requests);
  const durationS = sum((w) => w.durationS);
  const cpuMs = ws.every((w) => Number.isFinite(w.cpuMs)) ? sum((w) => w.cpuMs) : null;
  const generatorMs = sum((w) => w.generatorCpuMs);
  const wallMs = sum((w) => w.wallMs);
  const last = ws.at(-1);
  const throttling = ws.reduce((acc, w) => ({ ...acc, ...throttlingOf(w.throttling, acc, 1) }), {});
  const byRole = Object.fromEntries(ROLES.filter((k) => ws.every((w) => Number.isFinite(w[k])))
    .map((k) => [k, round(sum((w) => w[k]), 1)]));
  return {
    ...byRole,
    rps: durationS > 0 ? round(requests / durationS) : 0,
    requests,
    durationS: round(durationS, 2),
    generatorCpuMs: round(generatorMs, 1),
    wallMs: round(wallMs, 1),
    generatorShare: round(shareOfMachine(generatorMs, wallMs, MACHINE_CPUS), 3),
    latencyMs: Object.fromEntries(['p50', 'p90', 'p99', 'max']
      .map((q) => [q, (q === 'max' ? maxOf : mid)((w) => w.latencyMs?.[q])])),
    errors: sum((w) => w.errors),
    non2xx: sum((w) => w.non2xx),
    socketErrors: sum((w) => w.socketErrors),
    cpuMs: round(cpuMs, 1),
    cpuPerRequestUs: cpuMs !== null && requests > 0 ? round((cpuMs * 1000) / requests, 2) : null,
    memoryMiB: round(meanOf(values((w) => w.memoryMiB)), 1),
    memoryMaxMiB: maxOf((w) => w.memoryMaxMiB),
    pssMiB: last.pssMiB,
    rssMiB: last.rssMiB,
    processes: last.processes,
    throttling: Object.keys(throttling).length ? throttling : last.throttling,
    appThreads: last.appThreads,
    contextSwitches: ws.every((w) => w.contextSwitches)
      ? Object.fromEntries(SWITCHES.map((k) => [k, sum((w) => w.contextSwitches[k])]))
      : null,
  };
}

/**
 * The order of a round's cells in its slice number `slice`: shuffled afresh every slice (seeded, so
 * every run takes the same schedule). In a fixed rotation — A B C, B C A, … — every cell always
 * follows the same one, and what a cell leaves running after its slice (a runtime's background
 * compiler, a thread pool spinning down, a collection) falls on the same neighbour every time, a
 * bias no interval shows. Measured here: a cluster of 2 against one process came out ×0.86 when
 * the cluster's slices came right after .NET's and ×0.90 when the other's did (8 blocks of 1 s
 * slices, light JSON, hand run 2026-11-22) — within that test's noise, but a shuffle makes any
 * such effect noise the interval sees.
 */
export const sliceSeed = (round, slice) => round * 1000 + slice + 1;
export function sliceOrder(items, seed) {
  const random = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Latency at a fixed rate below capacity, for several cells in one block: `slices` windows of
 * sliceS each, taken in turn (sliceOrder) so that a stall of the machine (a neighbour's burst,
 * steal) lands on every cell alike rather than on the one measured at that moment; a cell's
 * latencies are pooled over its slices. targets: [{ id, url, rate, connections, usage? }]; round:
 * the round's number, for the order; warmS: seconds at the rate per target first, not counted.
 * Returns Map id -> { rate, rps, requests, latencyMs, errors, held, why, slices, sliceS, sendLagMs
 * (how late the generator sent, part of every latency) and sliceLagP99Ms (its p99 per slice),
 * sliceHistograms (one per slice, judge/latency-histogram.js), sliceCpu ([CPU µs, requests] per slice),
 * cpuPerRequestUs }: held only if the achieved rate is within 5% of the target and nothing failed
 * (judge/held-rate.js).
 * The CPU is the topology's during its own slices: between them it sits idle while the others are
 * measured, and a runtime's background threads (.NET's tiered JIT, its thread pool) would charge
 * that idle time to the few requests of the block.
 */
export async function latencyBlock({ targets, slices, sliceS = 1, round: r = 0, warmS = 0 }) {
  const agents = new Map(targets.map((t) => [t.id, paced.keepAliveAgent(t.connections)]));
  const taken = new Map(targets.map((t) => [t.id, []])); // per target, its slices: { at, r, ns }
  try {
    // Not counted: a short run at the rate per target first, which opens the block's connections
    // (the agent's sockets would otherwise be opened inside the first slice of each target).
    for (const t of warmS > 0 ? targets : []) {
      await paced.run({ url: t.url, rate: t.rate, durationS: warmS, agent: agents.get(t.id), ...(t.request ?? {}) });
    }
    for (let s = 0; s < slices; s += 1) {
      for (const t of sliceOrder(targets, sliceSeed(r, s))) {
        const before = t.usage ? await t.usage() : null;
        const at = Date.now();
        const r = await paced.run({
          url: t.url, rate: t.rate, durationS: sliceS, agent: agents.get(t.id), raw: true, ...(t.request ?? {}),
        });
        taken.get(t.id).push({ at, r, ns: before ? (await t.usage()).cpuNs - before.cpuNs : null });
      }
    }
  } finally {
    await Promise.all([...agents.values()].map((a) => a.destroy()));
  }
  return new Map(targets.map((t) => [t.id, blockRecord(t, taken.get(t.id), slices, sliceS)]));
}

// One target's latency window from its slices, held or not (judge/held-rate.js).
function blockRecord(t, taken, slices, sliceS) {
  const sum = (f) => taken.reduce((s, x) => s + f(x), 0);
  const requests = sum((x) => x.r.requests);
  const durationS = sum((x) => x.r.durationS);
  const cpuMs = t.usage ? sum((x) => x.ns) / 1e6 : null;
  const costs = t.usage ? taken.map((x) => [round(x.ns / 1000, 0), x.r.requests]) : [];
  const rec = {
    rate: t.rate, rps: round(durationS > 0 ? requests / durationS : 0), requests,
    latencyMs: paced.latencySummary(taken.flatMap((x) => x.r.latencies)),
    sendLagMs: paced.latencySummary(taken.flatMap((x) => x.r.lags)), errors: sum((x) => errorsOf(x.r)), slices, sliceS,
    sliceHistograms: taken.map((x) => histogram(x.r.latencies)),
    sliceLagP99Ms: taken.map((x) => paced.latencySummary(x.r.lags).p99), sliceAt: taken.map((x) => x.at),
    ...(costs.length ? { sliceCpu: costs } : {}),
    cpuPerRequestUs: cpuMs !== null && requests > 0 ? round((cpuMs * 1000) / requests, 2) : null,
  };
  const { held, why } = heldOf(rec);
  return { ...rec, held, why };
}

/**
 * The fixed rate of a workload's latency windows: `nominal` (the workload's rate for the budget), or
 * `load` of the slowest cell's capacity rounded down to a 1-2-5 step where that is less — so two runs
 * on the same machine land on the same rate, and every side runs well below its capacity. null
 * below 1 req/s.
 */
export function latencyRate(capacities, load = 0.5, nominal = Infinity) {
  const x = Math.min(...capacities) * load;
  if (!(x >= 1)) return null;
  const decade = 10 ** Math.floor(Math.log10(x));
  return Math.min(nominal, [5, 2, 1].map((m) => m * decade).find((v) => v <= x));
}

/**
 * Which rounds (1-based) of `rounds` get a latency window: the last `count`. By then every cell has
 * had its warm-up and two saturated windows: in its first ~15 s of traffic a Node process still
 * stalls for 30–90 ms now and then (V8 optimising and deoptimising), which a p99 at a fixed rate shows.
 */
export function latencyRounds(rounds, count = 0) {
  if (!count || rounds < 1) return new Set();
  const first = Math.max(1, rounds - count + 1);
  return new Set(Array.from({ length: rounds - first + 1 }, (_, i) => first + i));
}

/**
 * A count cell's fixed number of requests (`amount`) from a fixed number of users (`connections`: the
 * Mazira article's "10 users × 5 requests"), usage() read around it; timeline: every answer's status
 * and response time, in the order they came back.
 */
export async function fixedCount(url, { connections, amount }, tool, usage) {
  const name = pacedToolName(tool);
  const timeline = [];
  const before = await usage();
  const onResponse = (status, ms) => timeline.push([status, round(ms, 1)]);
  const r = await getTool(name).run({ url, connections, amount, durationS: 300, threads: 1, onResponse });
  const after = await usage();
  const cpuMs = (after.cpuNs - before.cpuNs) / 1e6;
  return {
    tool: name, connections, amount, rps: round(r.rps), requests: r.requests, durationS: round(r.durationS, 2),
    latencyMs: r.latencyMs, errors: errorsOf(r), non2xx: r.non2xx, socketErrors: r.socketErrors,
    cpuMs: round(cpuMs, 1),
    cpuPerRequestUs: r.requests ? round((cpuMs * 1000) / r.requests, 1) : null,
    memoryMiB: round(after.anonMiB, 1),
    timeline,
  };
}

/**
 * One long fixed-rate run of `requests` requests at `rate` per second (the node-scale article's
 * `loadtest -n … --rps …`): effective rate, failures by kind, percentiles, and the machine's
 * socket counters around it (connection churn, listen-queue overflows, TIME_WAIT sockets).
 */
export async function fixedRateRun({ url, tool, rate, requests, connections, keepAlive, threads, usage }) {
  const kinds = {};
  const net0 = socketCounters();
  const before = usage ? await usage() : null;
  const onError = (k) => { kinds[k] = (kinds[k] ?? 0) + 1; };
  const r = await getTool(tool).run({
    url, rate, amount: requests, durationS: 3600, connections, threads, keepAlive, timeoutS: 10, onError,
  });
  const after = usage ? await usage() : null;
  const net1 = socketCounters();
  return {
    rate, requests: r.requests, keepAlive, connections,
    effectiveRps: round(r.rps), durationS: round(r.durationS, 1),
    errors: errorsOf(r), errorKinds: Object.keys(kinds).length ? kinds : (r.socketErrorDetail ?? {}),
    latencyMs: r.latencyMs,
    cpuMs: after ? round((after.cpuNs - before.cpuNs) / 1e6, 1) : null,
    sockets: {
      ...addUp(['activeOpens', 'listenOverflows', 'listenDrops'], net1, net0, -1),
      timeWaitAfter: timeWaitSockets(),
      ...net1.settings,
    },
  };
}

/**
 * The highest sustained fixed (open-loop) rate: from `startRate`, up by ×growth while steps pass, then
 * bisect between the last passing and the first failing rate until they are within `resolution`. A step
 * of stepS at `rate` is sustained only if the achieved rate is within `rateTolerance` of it, p99 <
 * p99LimitMs and nothing failed. Bounded by maxSteps; after a failed step it waits coolS for the backlog
 * to drain.
 * @param {{ url: string, tool: string, startRate: number, maxSteps: number, stepS: number, threads?: number,
 *   p99LimitMs?: number, resolution?: number, growth?: number, coolS?: number, rateTolerance?: number,
 *   onStep?: (step: object) => void }} options
 */
export async function searchRate({
  url, tool, startRate, maxSteps, stepS, threads, p99LimitMs = 500, resolution = 0.05, growth = 1.25, coolS = 2,
  rateTolerance = 0.05, onStep,
}) {
  const steps = [];
  let lo = 0;
  let hi = null;
  let rate = Math.max(1, Math.round(startRate));
  for (let i = 0; i < maxSteps; i += 1) {
    const connections = Math.max(16, Math.min(2000, Math.ceil(rate * 0.1)));
    const r = await getTool(tool).run({
      url, rate, durationS: stepS, connections, threads, timeoutS: 5, keepAlive: true,
    });
    const achieved = r.requests / stepS;
    const why = [];
    if (achieved < (1 - rateTolerance) * rate) why.push(`achieved ${round(achieved)} of ${rate} req/s`);
    if (!(r.latencyMs.p99 < p99LimitMs)) why.push(`p99 ${round(r.latencyMs.p99, 0)} ms`);
    if (errorsOf(r) > 0) why.push(`${errorsOf(r)} failed`);
    const step = {
      rate, achievedRps: round(achieved), sustained: why.length === 0, why: why.join(', ') || null,
      requests: r.requests, latencyMs: r.latencyMs, errors: errorsOf(r), errorDetail: r.socketErrorDetail ?? null,
      connections,
    };
    steps.push(step);
    onStep?.(step);
    if (step.sustained) {
      lo = rate;
    } else {
      hi = rate;
      await new Promise((r) => setTimeout(r, coolS * 1000));
    }
    if (hi !== null && lo > 0 && (hi - lo) / hi <= resolution) break;
    const next = hi === null
      ? Math.round(rate * growth)
      : lo === 0 ? Math.max(1, Math.round(hi / 2)) : Math.round((lo + hi) / 2);
    if (next === lo || next === hi) break;
    rate = next;
  }
  return { tool, p99LimitMs, stepS, maxRate: lo, bracket: [lo, hi], bracketed: hi !== null && lo > 0, steps };
}
