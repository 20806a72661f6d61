// The Docker tests' load, in a thread of its own (load.js starts it): the tests drive Docker with
// blocking calls (spawnSync of `docker stop`, `docker compose up --wait`) that stop their own
// thread for seconds; a load in that thread would send nothing meanwhile and then find its pooled
// keep-alive sockets closed by nginx under it. Here nothing blocks: `get` loops of GETs (`kind`
// 'get') or GET and POST loops (`kind` 'mixed'), each pausing `pauseMs` between requests, until
// told to stop or their bounds, then the counts go back to the test. With `instances`, each replica
// that answers is posted as it is seen;
// once each kind of request has been answered 2xx, { answered: true }.
import { parentPort, workerData } from 'node:worker_threads';

const { kind, url, base, get, post, prefix, concurrency, pauseMs, maxSeconds, maxRequests, instances } = workerData;
const deadline = Date.now() + maxSeconds * 1000;
let stopped = false;
let sent = 0;
let n = 0;
// Past nginx's own bounds, so that nginx answers first and a failure here is one, never a slow
// answer: a pass tries up to 3 instances within 5 s, one try waits up to 1 s to connect and 30 s for
// the answer, and @again makes a second pass (62 s or so at the most). 40 s was short of it: a GET
// nginx was still trying at 40 s, with no answer of its own yet, counted as a TimeoutError (drain,
// dotnet-api's start-first replace, a clean-clone run of 2026-12-04).
const TIMEOUT_MS = 90_000;
const causeOf = (err) => err.cause?.code ?? err.name;

// Posted once every kind of request the load sends (GET; GET and POST) has had a 2xx: the load runs.
const waiting = new Set(kind === 'get' ? ['get'] : ['get', 'post']);
const answered = (what) => {
  if (waiting.delete(what) && !waiting.size) parentPort?.postMessage({ answered: true });
};

const stats = { ok: 0, failed: 0, statuses: {}, errors: {} };
const seen = new Map();
async function getLoop() {
  while (!stopped && Date.now() < deadline && sent < maxRequests) {
    sent++;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      const body = await res.text();
      stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
      if (res.ok) {
        stats.ok++;
        answered('get');
        if (instances) {
          const who = JSON.parse(body).instance;
          const at = Date.now();
          // Each replica at most every 100 ms: enough for "answered since", few messages.
          if (at - (seen.get(who) ?? 0) >= 100) {
            seen.set(who, at);
            parentPort?.postMessage({ who, at });
          }
        }
      } else {
        stats.failed++;
      }
    } catch (err) {
      stats.failed++;
      stats.errors[causeOf(err)] = (stats.errors[causeOf(err)] ?? 0) + 1;
    }
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  }
}

const method = () => ({ ok: 0, failed: 0, statuses: {}, errors: {} });
const mixed = { get: method(), post: method(), acked: [], failedIds: [] };
async function mixedLoop(isPost) {
  while (!stopped && Date.now() < deadline) {
    const id = `${prefix}-${++n}`;
    const m = isPost ? mixed.post : mixed.get;
    let res;
    try {
      res = await fetch(isPost ? `${base}${post.path}` : `${base}${get}`, {
        method: isPost ? 'POST' : 'GET',
        headers: isPost ? { 'content-type': 'application/json' } : {},
        body: isPost ? post.body.replaceAll('{id}', id) : undefined,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.arrayBuffer();
      m.statuses[res.status] = (m.statuses[res.status] ?? 0) + 1;
    } catch (err) {
      m.errors[causeOf(err)] = (m.errors[causeOf(err)] ?? 0) + 1;
    }
    const ok = res?.ok ?? false;
    if (ok) answered(isPost ? 'post' : 'get');
    if (ok) m.ok++;
    else m.failed++;
    if (isPost) (ok ? mixed.acked : mixed.failedIds).push(id);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

const times = (f) => Array.from({ length: concurrency }, f);
const loops = kind === 'get' ? times(getLoop) : [...times(() => mixedLoop(false)), ...times(() => mixedLoop(true))];
parentPort?.once('message', async () => {
  stopped = true;
  await Promise.all(loops);
  parentPort?.postMessage({ stats: kind === 'get' ? stats : mixed });
  parentPort?.close();
});
