// The fault drill: under a fixed rate of mixed GET and POST traffic, kill one instance (or one
// cluster worker) with SIGKILL, let the restart policy (or the cluster primary) bring it back,
// wait until it serves again — behind nginx, until nginx's passive check has let it back — then
// kill the next one. The same number of kills for every topology, and never a kill while an
// earlier victim is still down: what is measured is one crash at a time, not a race.
//
// What a kill costs: a GET in flight on the killed process is retried by nginx on another
// instance (proxy_next_upstream error); a POST is not (nginx never replays a non-idempotent
// request once sent), so it is lost and counted. Without nginx, or with one process behind it,
// every request in flight on the killed process is lost, and new ones are refused until it is back.
// Each step goes through the runner of the engine the deployment runs on (`runner`: the processes
// backend unless said otherwise), so the drill is the same on both.
import { nsPidOf } from '../../../lib/processes.js';
import { waitFor } from '../../../lib/poll.js';
import { withDefaults, drillUnderLoad, checkMix, eventsRecord, spread, instancesOf, inTurn } from './under-load.js';

/** @typedef {import('./under-load.js').Where} Where @typedef {import('./under-load.js').Load} Load */

// The service's instances as they are now (a restarted one has a new pid).
/** @param {Where} where */
async function appOf({ runner, runDir, service }) {
  const state = await runner.readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  if (!state.services[service]?.instances?.length)
    throw new Error(
      `${state.sample} has no running service '${service}' (running: ${Object.keys(state.services).join(', ')})`,
    );
  return instancesOf(runner, runDir, service);
}

// A Node cluster logs `"worker listening"` with the worker's pid as it sees it (inside a container:
// its pid namespace's).
const saidListening = (log, pid) =>
  new RegExp(`"pid":${pid}\\b[^\\n]*listening|listening[^\\n]*"pid":${pid}\\b`).test(log);

// A cluster worker is back once the primary has as many workers as before the kill, none of them
// the victim, the new one has said it listens, and the instance answers its health check.
/**
 * @param {Where & { index: number, name: string, victim: number, before: number[],
 *   log: { read: () => Promise<string> } }} options
 */
async function workerBack({ runner, runDir, service, index, name, victim, before, log }) {
  const at = { runDir, service, index };
  return waitFor(async () => {
    const workers = await runner.workerPids(at);
    const fresh = workers.filter((p) => !before.includes(p));
    // The cheap checks first: the log and the health check only once a new worker is there.
    if (workers.length < before.length || workers.includes(victim) || !fresh.length) return null;
    const text = await log.read();
    const back = fresh.every((p) => saidListening(text, nsPidOf(p))) && (await runner.isServing(at));
    return back ? { healthyAt: Date.now() } : null;
  }, { what: `${name}: its killed worker ${victim} replaced`, timeoutMs: 60_000, everyMs: 20 });
}

const originOf = (u) => (URL.canParse(u) ? new URL(u).origin : null);

// A container that restarts takes the first free port of its service's loopback range, its own
// while its siblings hold theirs (runner/docker/override.js). Should it move all the same, a load
// sent straight to the old port can't follow it, and every request after would count as lost.
/** @param {Where & { inst: { index: number, name: string, url: string }, url: string }} options */
async function checkSameAddress({ runner, runDir, service, inst, url }) {
  const now = (await appOf({ runner, runDir, service })).find((i) => i.index === inst.index);
  if (originOf(url) === originOf(inst.url) && originOf(now?.url) !== originOf(inst.url)) {
    throw new Error(
      `${inst.name} came back on ${now?.url} instead of ${inst.url}, where the load goes: a drill straight at an ` +
        "instance can't follow a restart that moves its port (drill it through nginx)",
    );
  }
}

// A kill's record: when `kill` was sent on the load's clock, and how long until it saw the victim
// healthy again and (behind nginx) back in rotation.
/** @param {Load} load @param {() => Promise<{ healthyAt: number, inRotationAt?: number }>} kill */
async function timedKill(load, target, pid, kill) {
  const killedAtMs = Math.round(load.now());
  const epoch = Date.now();
  const { healthyAt, inRotationAt = healthyAt } = await kill();
  return { target, pid, killedAtMs, backAfterMs: healthyAt - epoch, inRotationAfterMs: inRotationAt - epoch };
}

/** @param {Where & { url: string, k: number, load: Load }} options */
async function killInstance({ runner, runDir, service, url, k, load }) {
  const instances = await appOf({ runner, runDir, service });
  const inst = instances[k % instances.length];
  return timedKill(load, inst.name, inst.pid, async () => {
    await runner.signal({ runDir, service, index: inst.index, signal: 'SIGKILL' });
    const back = await runner.waitServing({ runDir, service, index: inst.index, notPid: inst.pid });
    await checkSameAddress({ runner, runDir, service, inst, url });
    return back;
  });
}

/** @param {Where & { load: Load }} options */
async function killWorker({ runner, runDir, service, load }) {
  const [inst] = await appOf({ runner, runDir, service });
  const at = { runDir, service, index: inst.index };
  const before = await runner.workerPids(at);
  if (!before.length) throw new Error(`${inst.name} has no worker processes to kill (is it a cluster primary?)`);
  const victim = before[0]; // the oldest: each kill hits a worker that has not been killed yet
  const log = await runner.logReader(at);
  return timedKill(load, `${inst.name} worker`, victim, () => {
    process.kill(victim, 'SIGKILL');
    return workerBack({ runner, ...at, name: inst.name, victim, before, log });
  });
}

/**
 * faultDrill({ ...DrillOptions (under-load.js), how: 'instance' | 'worker', kills }): `url` is nginx, or one
 * instance directly.
 * Returns { kind: 'crash', ...about, engine, how, kills: [{ target, pid, killedAtMs, backAfterMs,
 * inRotationAfterMs, outageMs, failed: { get, post } }], get: { requests, failed, retried, errors },
 * post: {...}, latencyMs: { p50, p90, p99, max }, recoverMs: { median, max }, inRotationMs,
 * backMs, outageMs: { median, max }, writes, durationS, rate, mix }.
 * @param {import('./under-load.js').DrillOptions & { how?: string, kills?: number }} options */
export async function faultDrill(options) {
  const o = withDefaults(options);
  const { runner, runDir, service, url, mix, about, log, gapMs } = o;
  const { how = 'instance', kills = 3 } = options;
  if (!['instance', 'worker'].includes(how))
    throw new Error(`how must be 'instance' or 'worker' (got ${JSON.stringify(how)})`);
  if (!Number.isInteger(kills) || kills < 1)
    throw new Error(`kills must be a whole number of at least 1 (got ${kills})`);
  checkMix(mix);
  await appOf({ runner, runDir, service });
  const tag = `crash-${about.strategy ?? how}`;
  const run = await drillUnderLoad({ ...o, name: about.app, tag }, (load) => inTurn(kills, gapMs, async (k) => {
    const kill =
      how === 'worker'
        ? await killWorker({ runner, runDir, service, load })
        : await killInstance({ runner, runDir, service, url, k, load });
    log(
      `kill ${k + 1}/${kills}: ${kill.target} (pid ${kill.pid}) back in ${kill.backAfterMs} ms, ` +
        `serving again in ${kill.inRotationAfterMs} ms`,
    );
    return kill;
  }));
  const { events, ...rest } = eventsRecord(run, run.result, {
    startOf: (k) => k.killedAtMs,
    backOf: (k) => k.backAfterMs,
  });
  return {
    kind: 'crash',
    ...about,
    engine: runner.engine ?? null,
    how,
    kills: events,
    ...rest,
    recoverMs: rest.backMs,
    // After a kill behind nginx the runner also waits out nginx's passive check: a wait, not a measure.
    inRotationMs: spread(events.map((k) => k.inRotationAfterMs)),
  };
}
