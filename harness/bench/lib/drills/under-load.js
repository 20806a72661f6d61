// What every drill shares: check the traffic mix against the topology once, then run an action
// (kills, a rollout, a stop, a scale-down) under a fixed rate of that traffic, sum up what the
// clients saw and, where the app has a store that runs, what the store kept (writes.js).
import { setTimeout as sleep } from 'node:timers/promises';
import { startLoad, summarise, failed, latencyOf, sendLagOf } from './load.js';
import { planWrites, readBack, accountWrites, newPrefix } from './writes.js';
import { median, round } from '../judge/stats.js';
import { describeSample } from '../topologies/app-descriptions.js';
import { runnerFor } from '../../../runner/index.js';

/** @typedef {import('../../../runner/index.js').Runner} Runner */
/** Where a drill's step acts: the engine's Runner, the run and the service. @typedef {{ runner: Runner, runDir: string,
 *   service: string }} Where */
/** The load a drill runs under (load.js startLoad). @typedef {Awaited<ReturnType<typeof startLoad>>} Load */

/**
 * What every drill takes (each adds its own: how, kills, roll, kind, events).
 * @typedef {object} DrillOptions
 * @property {Runner} [runner]  the engine's (default: processes)
 * @property {string} runDir
 * @property {string} [service]   default 'app'
 * @property {string} url         where the clients go (the app's nginx)
 * @property {number} [rate]      requests per second, open loop
 * @property {any} mix            { get, post: { path, body, contentType }, postShare }
 * @property {any} [app]          the app's description (default: read from the run)
 * @property {any} [about]        { strategy, processes, budget, app, what }: copied into the record
 * @property {(line: string) => void} [log]
 * @property {number} [settleMs]  plain load before and after
 * @property {number} [gapMs]     between two events
 */

/** Throws one line for a mix the drill can't use: { get: '/path', post: { path, body, contentType }, postShare }. */
export function checkMix(mix) {
  if (!mix || typeof mix.get !== 'string' || !mix.get.startsWith('/'))
    throw new Error(`mix.get must be a path such as "/" (got ${JSON.stringify(mix?.get)})`);
  const share = mix.postShare ?? 0;
  if (!(share >= 0 && share <= 1)) throw new Error(`mix.postShare must be between 0 and 1 (got ${share})`);
  if (share > 0) {
    if (typeof mix.post?.path !== 'string' || !mix.post.path.startsWith('/'))
      throw new Error('mix.post.path must be a path such as "/echo" when mix.postShare > 0');
    if (typeof mix.post.body !== 'string') throw new Error('mix.post.body must be a string (the JSON to send)');
  }
}

// One request of each kind before the drill: a route that doesn't answer 2xx would count as
// 100 % failures, which says nothing about a crash or a deploy.
async function preflight(url, mix, idPrefix) {
  const tries = [['GET', mix.get]];
  // Its POST's id is outside the drill's prefix: the store's count is of the drill's own POSTs.
  const body = idPrefix === undefined ? mix.post?.body : mix.post?.body.replaceAll('{id}', `pre-${idPrefix}0`);
  if ((mix.postShare ?? 0) > 0) tries.push(['POST', mix.post.path, body, mix.post.contentType ?? 'application/json']);
  for (const [method, path, body, type] of tries) {
    const where = new URL(path, url);
    const headers = type ? { 'content-type': type } : {};
    const { status } = await fetch(where, { method, body, headers, signal: AbortSignal.timeout(10_000) })
      .then(async (res) => ({ status: res.status, read: await res.arrayBuffer() }))
      .catch((err) => {
        const why = err.cause?.code ?? err.message;
        throw new Error(`${method} ${where} failed before the drill: ${why}`, { cause: err });
      });
    if (status < 200 || status > 299)
      throw new Error(`${method} ${where} answered ${status} before the drill: the drill needs routes that answer 2xx`);
  }
}

/**
 * The options every drill shares, with their defaults: the processes engine's runner, service
 * 'app', 100 requests/s, 1 s of plain load before and after, 0.5 s between events.
 * @param {DrillOptions} options
 * @returns {DrillOptions & { runner: Runner, service: string, rate: number, about: any, log: (line: string) => void,
 *   settleMs: number, gapMs: number }}
 */
export function withDefaults(options) {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const base = { service: 'app', rate: 100, about: {}, log: () => {}, settleMs: 1000, gapMs: 500 };
  return /** @type {any} */ ({ ...base, runner: runnerFor('processes'), ...given });
}

/** The service's instances as the runner lists them now, by index (a restarted one has a new pid). */
export async function instancesOf(runner, runDir, service) {
  const rows = (await runner.ps({ runDir })).filter((r) => r.service === service && Number.isInteger(r.index));
  return rows.sort((a, b) => a.index - b.index);
}

/** `count` events in turn, `gapMs` apart: the records `step(k)` returns. */
export async function inTurn(count, gapMs, step) {
  const done = [];
  for (let k = 0; k < count; k += 1) {
    if (k > 0) await sleep(gapMs);
    done.push(await step(k));
  }
  return done;
}

// The description of the app a run was started from (describeSample of the run's folder), for a
// drill that was not handed one: what it POSTs and where its writes are kept.
async function appOfRun(runner, runDir) {
  const state = await runner.readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  if (!state.sampleDir)
    throw new Error(`the run in ${runDir} names no sample folder: hand the drill the app's description`);
  return { name: state.sample, app: describeSample(state.sampleDir) };
}

/**
 * Runs `action(load)` under a fixed rate of the mix, with `settleMs` of plain load before and after it, for
 * the app running in runDir (its x-bench description `app`, else read from the run): where its store runs,
 * the POSTs are its writes, each with an id, and the store is read back afterwards. `load.now()` is the
 * drill's clock (ms). Returns { records, result, durationS, startedAt (the epoch ms that clock counts from),
 * rate, mix (as sent), writes: { counted: true, store, prefix, ...accountWrites } or { counted: false, why } }.
 * A store that can't be read back throws one line naming it.
 * @param {{ runner: Runner, runDir: string, url: string, rate: number, mix: any, settleMs?: number, app?: any,
 *   name?: string, tag?: string }} options
 * @param {(load: any) => Promise<any>} action
 */
export async function drillUnderLoad({ runner, runDir, url, rate, mix, settleMs = 1000, app, name, tag }, action) {
  checkMix(mix);
  const described = app ? { app, name: name ?? 'the app' } : await appOfRun(runner, runDir);
  const plan = await planWrites({ runner, runDir, app: described.app, name: described.name });
  const sent = plan.counted && (mix.postShare ?? 0) > 0 ? { ...mix, post: plan.post } : mix;
  const prefix = plan.counted ? newPrefix(tag) : undefined;
  await preflight(url, sent, prefix);
  const load = await startLoad({ url, rate, mix: sent, idPrefix: prefix });
  let result;
  let records;
  try {
    await sleep(settleMs);
    result = await action(load);
    await sleep(settleMs);
  } finally {
    // The load stops whatever happened, so no request outlives the drill.
    records = await load.stop();
  }
  const durationS = Math.round(records.at(-1)?.at ?? 0) / 1000;
  const run = { records, result, durationS, startedAt: load.startedAt, rate, mix: sent };
  if (!plan.counted) return { ...run, writes: { counted: false, why: plan.why } };
  const stored = await readBack({ runner, runDir, writes: plan.writes, prefix });
  return { ...run, writes: { counted: true, store: plan.store, prefix, ...accountWrites(records, stored) } };
}

const answeredAt = (r) => r.at + r.latencyMs;

/** The failures of a window of the drill's clock, [fromMs, toMs), by when they were answered. */
export function failuresBetween(records, fromMs, toMs) {
  const bad = records.filter((r) => failed(r) && answeredAt(r) >= fromMs && answeredAt(r) < toMs);
  return { get: bad.filter((r) => r.method === 'GET').length, post: bad.filter((r) => r.method === 'POST').length };
}

/**
 * How long the clients saw the service fail in a window of the drill's clock: from the send of the
 * first request that failed to the answer of the last one (ms; 0 when none failed). Measured from
 * the load, not a wait the drill chose.
 */
export function outageBetween(records, fromMs, toMs) {
  const bad = records.filter((r) => failed(r) && answeredAt(r) >= fromMs && answeredAt(r) < toMs);
  if (!bad.length) return 0;
  return Math.round(Math.max(...bad.map(answeredAt)) - Math.min(...bad.map((r) => r.at)));
}

/** { median, max } of some ms, rounded. */
export const spread = (xs) => ({ median: round(median(xs), 0), max: Math.max(...xs) });

/** What the clients saw of the requests meant to leave in a window [fromMs, toMs) of the drill's clock. */
export function latencyBetween(records, fromMs, toMs) {
  const sent = records.filter((r) => r.at >= fromMs && r.at < toMs);
  const { p50, p99, max } = latencyOf(sent);
  return { latencyMs: { p50, p99, max }, sendLagMs: sendLagOf(sent) };
}

/**
 * The parts of a drill's record its events decide, each event measured: `events` with, for each,
 * what failed and how long the clients saw failures in its window — from its start (`startOf`) to
 * the next one's: a failure is put down to the last event before it was answered — the latency
 * (p50, p99, max) of the requests meant to leave in that window and how late the generator sent
 * them; over all of them backMs (`backOf`: until the new or remaining processes answered their
 * health check, the runner's own polling), outageMs (total: their sum) and the latency and send lag
 * of every request sent during an event; then the traffic (the mix without its body template) and the writes.
 * @param {{ records: any[], durationS: number, rate: number, mix: any, writes: any, startedAt?: number }} run
 * @param {any[]} events @param {{ startOf: (e: any) => number, backOf: (e: any) => number }} how
 */
export function eventsRecord(run, events, { startOf, backOf }) {
  const { records, mix } = run;
  const windows = events.map((e, i) => [startOf(e), i + 1 < events.length ? startOf(events[i + 1]) : Infinity]);
  const windowed = events.map((e, i) => ({
    ...e,
    failed: failuresBetween(records, windows[i][0], windows[i][1]),
    outageMs: outageBetween(records, windows[i][0], windows[i][1]),
    ...latencyBetween(records, windows[i][0], windows[i][1]),
  }));
  const outages = windowed.map((e) => e.outageMs);
  const post = mix.post && { path: mix.post.path, contentType: mix.post.contentType ?? 'application/json' };
  return {
    // The epoch ms the drill's clock (every atMs, startedAtMs, killedAtMs) counts from.
    ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    events: windowed,
    ...summarise(records),
    durationS: run.durationS,
    rate: run.rate,
    mix: { get: mix.get, ...(post ? { post } : {}), postShare: mix.postShare ?? 0 },
    ...(windows.length ? { duringEvents: latencyBetween(records, windows[0][0], Infinity) } : {}),
    backMs: spread(windowed.map(backOf)),
    outageMs: { ...spread(outages), total: outages.reduce((a, b) => a + b, 0) },
    writes: run.writes,
  };
}
