// The Docker tests' load, in a thread of its own (load.js starts it): the tests drive Docker with
// blocking calls (spawnSync of `docker stop`, `docker compose up --wait`) that stop their own
// thread for seconds; a load in that thread would send nothing meanwhile and then find its pooled
// keep-alive sockets closed by nginx under it. Here nothing blocks: `get` loops of GETs (`kind`
// 'get') or GET and POST loops (`kind` 'mixed'), until told to stop or their bounds, then the
// counts go back to the test. With `instances`, each replica that answers is posted as it is seen.
import { parentPort, workerData } from 'node:worker_threads';

const { kind, url, base, get, post, prefix, concurrency, pauseMs, maxSeconds, maxRequests, instances } = workerData;
const deadline = Date.now() + maxSeconds * 1000;
let stopped = false;
let sent = 0;
let n = 0;
// Past nginx's own bounds (connect 1 s, retries within 5 s, twice with @again, read 30 s): nginx
// answers first, so a failure here is one, never a slow answer on a busy machine.
const TIMEOUT_MS = 40_000;
const causeOf = (err) => err.cause?.code ?? err.name;

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
