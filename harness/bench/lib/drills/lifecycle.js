// The stop and scale-down drills, for a service of 2 or more instances behind nginx, under the
// same fixed rate of mixed traffic as the other drills:
//   stop        one instance gets its stop signal (SIGTERM: it drains and exits, as `docker stop`
//               does), then is started again once it is gone; each instance in turn
//   scale-down  the service is scaled from n to n-1 instances (the runner removes the highest,
//               nginx stops sending to it first where it can), then back to n
// What is counted: what the clients saw in each event's window and what the store kept.
import { waitFor } from '../../../lib/poll.js';
import { withDefaults, drillUnderLoad, checkMix, eventsRecord, instancesOf, inTurn } from './under-load.js';

export const LIFECYCLE = ['stop', 'scale-down'];

/** @typedef {import('./under-load.js').Where} Where @typedef {import('./under-load.js').Load} Load */

// Until the instance's process `pid` is gone (it drained and exited), bounded.
/** @param {Where & { index: number, pid: number, name: string }} options */
async function exited({ runner, runDir, service, index, pid, name }) {
  await waitFor(async () => {
    const row = (await instancesOf(runner, runDir, service)).find((r) => r.index === index);
    return !row || row.pid !== pid || !String(row.status).startsWith('running');
  }, { what: `${name} to exit after its stop signal`, timeoutMs: 60_000 });
}

/** @param {Where & { k: number, load: Load, log: (line: string) => void }} step */
async function stopOne({ runner, runDir, service, k, load, log }) {
  const rows = await instancesOf(runner, runDir, service);
  const inst = rows[k % rows.length];
  const atMs = load.now();
  const t = Date.now();
  await runner.signal({ runDir, service, index: inst.index, signal: 'SIGTERM' });
  await exited({ runner, runDir, service, index: inst.index, pid: inst.pid, name: inst.name });
  const stoppedMs = Date.now() - t;
  const now = await runner.restart({ runDir, service, index: inst.index });
  const backMs = Date.now() - t;
  // Before the next event, nginx takes it back (its passive check skipped the refusing instance
  // for fail_timeout): two instances out at once would be the drill's doing, not the strategy's.
  await runner.waitServing({ runDir, service, index: inst.index, notPid: inst.pid });
  log(`stop ${k + 1}: ${inst.name} drained and exited in ${stoppedMs} ms, healthy again after ${backMs} ms`);
  return { target: inst.name, pid: inst.pid, newPid: now?.pid ?? null, atMs: Math.round(atMs), stoppedMs, backMs };
}

/** @param {Where & { k: number, load: Load, log: (line: string) => void }} step */
async function scaleDownOne({ runner, runDir, service, k, load, log }) {
  const n = (await instancesOf(runner, runDir, service)).length;
  const atMs = load.now();
  const down = await runner.scale({ runDir, service, replicas: n - 1, log });
  const up = await runner.scale({ runDir, service, replicas: n, log });
  log(
    `scale-down ${k + 1}: ${n} -> ${n - 1} in ${down.tookMs} ms (${down.removed.join(', ')}), ` +
      `back to ${n} in ${up.tookMs} ms`,
  );
  return {
    target: down.removed.join(', '),
    from: n,
    to: n - 1,
    atMs: Math.round(atMs),
    downMs: down.tookMs,
    backMs: up.tookMs,
  };
}

/**
 * lifecycleDrill({ ...DrillOptions (under-load.js), kind: 'stop' | 'scale-down', events }):
 * Returns { kind, ...about, engine, events: [{ target, atMs, backMs, outageMs, failed: { get, post }, ... }],
 * get, post, latencyMs, backMs, outageMs, writes, durationS, rate, mix }.
 * @param {import('./under-load.js').DrillOptions & { kind: string, events?: number }} options */
export async function lifecycleDrill(options) {
  const o = withDefaults(options);
  const { runner, runDir, service, mix, about, log, gapMs } = o;
  const { kind, events = 2 } = options;
  if (!LIFECYCLE.includes(kind))
    throw new Error(`kind must be ${LIFECYCLE.map((x) => `'${x}'`).join(' or ')} (got ${JSON.stringify(kind)})`);
  if (!Number.isInteger(events) || events < 1)
    throw new Error(`events must be a whole number of at least 1 (got ${events})`);
  checkMix(mix);
  const n = (await instancesOf(runner, runDir, service)).length;
  if (n < 2)
    throw new Error(
      `a ${kind} drill needs 2 or more instances of '${service}' (it has ${n}): with one, nothing serves meanwhile`,
    );
  const tag = `${kind}-${about.strategy ?? ''}`;
  const run = await drillUnderLoad({ ...o, name: about.app, tag }, (load) => inTurn(events, gapMs, (k) => {
    const step = { runner, runDir, service, k, load, log };
    return kind === 'stop' ? stopOne(step) : scaleDownOne(step);
  }));
  return {
    kind,
    ...about,
    engine: runner.engine ?? null,
    ...eventsRecord(run, run.result, { startOf: (e) => e.atMs, backOf: (e) => e.backMs }),
  };
}
