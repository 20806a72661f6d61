// Write accounting: what the store kept of the drill's POSTs, not only what the clients saw. Each
// POST carries an id of its own (a prefix for this drill and a counter); after the drill the app's
// x-bench.writes.list runs in its store's service (runner.exec) and prints the stored ids that
// start with the prefix, one a line. Each id then falls in one of:
//   acknowledged (2xx) and stored    the promise kept
//   acknowledged and missing: lost   the write vanished after the client was told it was kept
//   stored more than once: duplicated  a write applied twice (a replayed or retried POST)
//   failed at the client but stored: ambiguous  allowed (the client can't know), counted
// An app with no store (`writes: null`), or whose store does not run here, says so instead; a store
// that runs but cannot be read back fails the drill with one line naming it.
import { failed as failedRequest } from './load.js';

/** @typedef {import('../../../runner/index.js').Runner} Runner */

/** Ids are made of these only, so they need no quoting in a body, a URL or the store's query. */
const SAFE = /^[a-z0-9-]+$/;

/** A prefix no earlier drill has used: `<tag>-<time>-<random>-`. */
export function newPrefix(tag = 'drill') {
  const clean =
    String(tag)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 24) || 'drill';
  return `${clean}-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0')}-`;
}

/** Throws one line for an x-bench.writes field the drill can't use (null is fine: no store). */
export function checkWrites(writes, where = 'x-bench.writes') {
  if (writes === null || writes === undefined) return;
  if (typeof writes !== 'object' || Array.isArray(writes))
    throw new Error(`${where} must be a mapping (post, body, service, list) or null`);
  if (typeof writes.post !== 'string' || !writes.post.startsWith('/'))
    throw new Error(`${where}.post must be a path such as "/items" (got ${JSON.stringify(writes.post)})`);
  const body = typeof writes.body === 'string' ? writes.body : JSON.stringify(writes.body ?? null);
  if (!body.includes('{id}')) throw new Error(`${where}.body must carry the write's id as "{id}" (got ${body})`);
  if (typeof writes.service !== 'string' || !writes.service)
    throw new Error(`${where}.service must name the service holding the store`);
  if (!Array.isArray(writes.list) || !writes.list.length || !writes.list.every((a) => typeof a === 'string')) {
    throw new Error(
      `${where}.list must be a command (a list of strings) printing the stored ids that start with {prefix}`,
    );
  }
  if (!writes.list.some((a) => a.includes('{prefix}')))
    throw new Error(`${where}.list must name the ids it prints by "{prefix}"`);
}

// Compose reads `$$` as one `$` in every value of the file, x- fields included: the list's shell
// text is written that way in compose.yaml.
const unescape = (v) => (typeof v === 'string' ? v.replaceAll('$$', '$') : v);

/** The app's writes on an engine: on Docker, x-bench.docker.writes over x-bench.writes (its own store service). */
export function writesOn(app, engine) {
  if (!app.writes) return null;
  const w = engine === 'docker' && app.docker?.writes ? { ...app.writes, ...app.docker.writes } : app.writes;
  return Array.isArray(w.list) ? { ...w, list: w.list.map(unescape) } : w;
}

/**
 * Whether the drill counts its writes in the store, for an app (its x-bench description) running
 * in runDir: { counted: true, store, writes, post: { path, body, contentType } } (the POST to send
 * instead of the mix's) or { counted: false, why }.
 * @param {{ runner: Runner, runDir: string, app: any, name?: string }} options
 */
export async function planWrites({ runner, runDir, app, name = 'the app' }) {
  const writes = writesOn(app, runner.engine);
  checkWrites(writes);
  if (!writes) {
    const given = app.writes === undefined ? 'not given' : 'null';
    return { counted: false, why: `${name} has no store the drill can count (x-bench.writes: ${given})` };
  }
  const rows = await runner.ps({ runDir });
  if (!rows.some((r) => r.service === writes.service && String(r.status).startsWith('running'))) {
    const state = await runner.readState(runDir);
    const skipped = state?.services?.[writes.service]?.skipped;
    const where = `${name}'s store (service ${writes.service}) does not run here${skipped ? ` (${skipped})` : ''}`;
    return { counted: false, why: `${where}, so its writes are not counted` };
  }
  return { counted: true, store: writes.service, writes, post: writePost(writes) };
}

/** The POST that makes one write of x-bench.writes: { path, body (its id as `{id}`), contentType }. */
export const writePost = (writes) => ({
  path: writes.post,
  body: typeof writes.body === 'string' ? writes.body : JSON.stringify(writes.body),
  contentType: writes.content_type ?? 'application/json',
});

// A command's output as its non-blank lines, trimmed (a failing one's first says why: psql and compose put
// the cause there).
const linesOf = (text) =>
  String(text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * The ids the store holds that start with `prefix`, one per stored row (a duplicate twice).
 * @param {{ runner: Runner, runDir: string, writes: any, prefix: string }} options
 */
export async function readBack({ runner, runDir, writes, prefix }) {
  if (!SAFE.test(prefix))
    throw new Error(`a write id prefix is made of a-z, 0-9 and - (got ${JSON.stringify(prefix)})`);
  const failed = (why) =>
    new Error(`the drill's writes could not be read back from the store (service ${writes.service}): ${why}`);
  if (typeof runner.exec !== 'function') throw failed(`the ${runner.engine ?? "engine's"} runner has no exec()`);
  const argv = writes.list.map((a) => a.replaceAll('{prefix}', prefix));
  let res;
  try {
    res = await runner.exec({ runDir, service: writes.service, argv, timeoutMs: 60_000 });
  } catch (err) {
    throw failed(err.message);
  }
  if (res.code !== 0) throw failed(linesOf(res.stderr)[0] || `${argv[0]} exited ${res.code}`);
  return linesOf(res.stdout);
}

/**
 * The accounting of a drill's POSTs (records carrying `id`) against the ids the store printed.
 * Returns { sent, acknowledged, stored, lost, duplicated, ambiguous, failedNotStored, unexpected,
 * lostIds, duplicatedIds, ambiguousIds } — the *Ids lists hold the first five of each, to look at.
 */
export function accountWrites(records, storedIds) {
  const posts = records.filter((r) => r.method === 'POST' && r.id !== undefined);
  const times = Map.groupBy(storedIds, (id) => id);
  const sent = new Set(posts.map((r) => r.id));
  const acked = posts.filter((r) => !failedRequest(r));
  const failedAtClient = posts.filter(failedRequest);
  const lost = acked.filter((r) => !times.has(r.id)).map((r) => r.id);
  const ambiguous = failedAtClient.filter((r) => times.has(r.id)).map((r) => r.id);
  const duplicated = [...times].filter(([id, rows]) => rows.length > 1 && sent.has(id)).map(([id]) => id);
  return {
    sent: posts.length,
    acknowledged: acked.length,
    stored: acked.length - lost.length,
    lost: lost.length,
    duplicated: duplicated.length,
    ambiguous: ambiguous.length,
    failedNotStored: failedAtClient.length - ambiguous.length,
    // Ids with the prefix that no POST of this drill carried: 0 unless something else wrote them.
    unexpected: [...times.keys()].filter((id) => !sent.has(id)).length,
    lostIds: lost.slice(0, 5),
    duplicatedIds: duplicated.slice(0, 5),
    ambiguousIds: ambiguous.slice(0, 5),
  };
}
