// The process manager shared by the cluster and reusePort launchers: keeps `count` serving
// processes of the app, respawns a crashed one with PM2's backoff (×1.5 per crash from 100 ms,
// capped at 15 s, reset after 30 s up; more than 10 crashes in a row: a crash loop, given up),
// replaces them one at a time on SIGHUP (the new one listening before the old one gets SIGTERM),
// and on SIGTERM/SIGINT passes SIGTERM to each and exits once all are gone (SIGKILL after the
// drain time). It never touches the app's code: a process is told to stop as a container is.
import { log } from './launch-spec.js';

export const BACKOFF = Object.freeze({
  firstMs: 100, factor: 1.5, maxMs: 15_000, resetAfterMs: 30_000, maxCrashes: 10,
});

/**
 * The delay before respawning after the `crashes`-th crash in a row; null past the limit.
 * @param {number} crashes @param {{ firstMs: number, factor: number, maxMs: number, maxCrashes: number }} [b]
 */
export function respawnDelay(crashes, b = BACKOFF) {
  if (crashes > b.maxCrashes) return null;
  return Math.min(b.maxMs, Math.round(b.firstMs * b.factor ** (crashes - 1)));
}

/**
 * @typedef {object} Member  one serving process, as a launcher makes it
 * @property {number} pid
 * @property {() => Promise<void>} listening   resolves once it accepts on the app's port
 * @property {(signal: NodeJS.Signals) => void} kill
 * @property {Promise<{ code: number | null, signal: string | null }>} exited
 */

// A planned stop: SIGTERM (the app drains as under `docker stop`), SIGKILL after the drain time.
function stopMember(m, drainMs, what) {
  m.kill('SIGTERM');
  const timer = setTimeout(() => {
    log(`${what}: process ${m.pid} still there after ${drainMs} ms, killing it`);
    m.kill('SIGKILL');
  }, drainMs);
  return m.exited.finally(() => clearTimeout(timer));
}

// Resolves once `m` listens; rejects when it exits first or takes longer than `ms`.
function listeningWithin(m, ms) {
  const late = new Promise((_r, reject) => {
    setTimeout(() => reject(new Error(`not listening after ${ms} ms`)), ms).unref();
  });
  return Promise.race([m.listening(), m.exited.then(() => { throw new Error('it exited first'); }), late]);
}

// One step of a rolling restart: a new process listening before the old one stops. False: it failed
// and the old ones keep serving.
async function replaceStep(old, { launch, stop, inTime, candidates, members, what }) {
  const next = launch(true);
  try {
    await inTime(next);
    candidates.delete(next);
  } catch (err) {
    log(`${what}: rolling restart aborted: new process ${next.pid}: ${err.message}; the old ones keep serving`);
    candidates.delete(next);
    if (members.has(next)) await stop(next);
    return false;
  }
  await stop(old);
  return true;
}

/**
 * @param {{ count: number, start: () => Member, drainMs: number, listenTimeoutMs?: number, what: string }} options
 */
export function supervise({ count, start, drainMs, listenTimeoutMs = 60_000, what }) {
  const members = new Set();
  const stopping = new Set(); // asked to stop: their exit is planned
  const candidates = new Set(); // a rolling restart's new processes not listening yet: never respawned
  let crashes = 0;
  let shuttingDown = false;
  let rolling = false;
  let pending = 0; // respawns waiting out their delay

  const exitIfEmpty = (code) => {
    if (members.size > 0 || pending > 0) return;
    log(`${what}: no process left, exiting`);
    process.exit(code);
  };
  function launch(candidate = false) {
    const m = start();
    if (candidate) candidates.add(m);
    const startedAt = Date.now();
    members.add(m);
    log(`${what}: started process ${m.pid}`);
    m.exited.then(({ code, signal }) => {
      members.delete(m);
      const planned = stopping.delete(m);
      log(`${what}: process ${m.pid} exited (${signal ?? `code ${code}`})${planned ? '' : ', unplanned'}`);
      if (shuttingDown) return exitIfEmpty(0);
      if (planned || candidates.delete(m)) return undefined;
      if (Date.now() - startedAt >= BACKOFF.resetAfterMs) crashes = 0;
      crashes += 1;
      const delay = respawnDelay(crashes);
      if (delay === null) {
        log(`${what}: crash loop (${crashes - 1} crashes in a row): not respawning`);
        return exitIfEmpty(1);
      }
      pending += 1;
      setTimeout(() => { pending -= 1; if (shuttingDown) exitIfEmpty(0); else launch(); }, delay);
      return undefined;
    });
    return m;
  }
  const stop = (m) => { stopping.add(m); return stopMember(m, drainMs, what); };
  const inTime = (m) => listeningWithin(m, listenTimeoutMs);
  async function rollingRestart() {
    if (rolling || shuttingDown) {
      return log(`${what}: rolling restart ignored (${rolling ? 'one is running' : 'shutting down'})`);
    }
    rolling = true;
    log(`${what}: rolling restart of ${members.size} process(es)`);
    try {
      const ops = { launch, stop, inTime, candidates, members, what };
      for (const old of [...members]) if (shuttingDown || !(await replaceStep(old, ops))) return undefined;
      log(`${what}: rolling restart done`);
    } finally {
      rolling = false;
    }
    return undefined;
  }
  function shutdown(signal) {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`${what}: ${signal}: stopping ${members.size} process(es)`);
    for (const m of members) stop(m);
    exitIfEmpty(0);
  }
  process.on('SIGHUP', () => { rollingRestart(); });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const first = Array.from({ length: count }, launch);
  Promise.all(first.map(inTime)).then(
    () => log(`${what} ready: ${count} process(es) listening`),
    (err) => log(`${what}: not every process is listening: ${err.message}`),
  );
}
