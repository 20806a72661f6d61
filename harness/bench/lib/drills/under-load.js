// What both drills share: check the traffic mix against the topology once, then run an action
// (kills, a rollout) under a fixed rate of that traffic, and sum up what the clients saw.
import { startLoad, summarise, failed } from './load.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Throws one line for a mix the drill can't use: { get: '/path', post: { path, body, contentType }, postShare }. */
export function checkMix(mix) {
  if (!mix || typeof mix.get !== 'string' || !mix.get.startsWith('/')) throw new Error(`mix.get must be a path such as "/" (got ${JSON.stringify(mix?.get)})`);
  const share = mix.postShare ?? 0;
  if (!(share >= 0 && share <= 1)) throw new Error(`mix.postShare must be between 0 and 1 (got ${share})`);
  if (share > 0) {
    if (typeof mix.post?.path !== 'string' || !mix.post.path.startsWith('/')) throw new Error('mix.post.path must be a path such as "/echo" when mix.postShare > 0');
    if (typeof mix.post.body !== 'string') throw new Error('mix.post.body must be a string (the JSON to send)');
  }
}

// One request of each kind before the drill: a route that doesn't answer 2xx would count as
// 100 % failures, which says nothing about a crash or a deploy.
async function preflight(url, mix) {
  const tries = [['GET', mix.get]];
  if ((mix.postShare ?? 0) > 0) tries.push(['POST', mix.post.path, mix.post.body, mix.post.contentType ?? 'application/json']);
  for (const [method, path, body, type] of tries) {
    let status;
    try {
      const res = await fetch(new URL(path, url), { method, body, headers: type ? { 'content-type': type } : {}, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      ({ status } = res);
    } catch (err) {
      throw new Error(`${method} ${new URL(path, url)} failed before the drill: ${err.cause?.code ?? err.message}`, { cause: err });
    }
    if (status < 200 || status > 299) throw new Error(`${method} ${new URL(path, url)} answered ${status} before the drill: the drill needs routes that answer 2xx`);
  }
}

/**
 * Runs `action(load)` under the load, with `settleMs` of plain load before and after it.
 * `load.now()` is the drill's clock (ms). Returns { records, result, durationS }.
 */
export async function underLoad({ url, rate, mix, settleMs = 1000 }, action) {
  checkMix(mix);
  if (!(rate > 0)) throw new Error(`rate must be a positive number of requests per second (got ${rate})`);
  await preflight(url, mix);
  const load = startLoad({ url, rate, mix });
  let result;
  let error;
  try {
    await sleep(settleMs);
    result = await action(load);
    await sleep(settleMs);
  } catch (err) {
    error = err;
  }
  // The load stops whatever happened, so no request outlives the drill.
  const records = await load.stop();
  if (error) throw error;
  return { records, result, durationS: Math.round(records.at(-1)?.at ?? 0) / 1000 };
}

/** The failures of a window of the drill's clock, [fromMs, toMs), by when they were answered. */
export function failuresBetween(records, fromMs, toMs) {
  const bad = records.filter((r) => failed(r) && r.at + r.latencyMs >= fromMs && r.at + r.latencyMs < toMs);
  return { get: bad.filter((r) => r.method === 'GET').length, post: bad.filter((r) => r.method === 'POST').length };
}

/** The parts of a drill's result every drill has. */
export function traffic(records, { rate, mix, durationS }) {
  return { ...summarise(records), durationS, rate, mix: { ...mix, postShare: mix.postShare ?? 0 } };
}
