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
import fs from 'node:fs';
import { readState, signal, waitServing, checkOnce } from '../../../runner/index.js';
import { childPids } from '../../../lib/processes.js';
import { underLoad, checkMix, failuresBetween, traffic } from './under-load.js';
import { median, round } from '../stats.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function appOf(runDir, service) {
  const state = await readState(runDir);
  if (!state) throw new Error(`nothing running from ${runDir}`);
  const entry = state.services[service];
  if (!entry?.instances?.length) throw new Error(`${state.sample} has no running service '${service}' (running: ${Object.keys(state.services).join(', ')})`);
  return entry;
}

// A cluster worker is back once the primary has as many workers as before the kill, none of them
// the victim, the new one has said it listens (node-cluster logs `"worker listening"` with its
// pid), and the instance answers its health check.
async function workerBack({ runDir, service, victim, count, offset, timeoutMs = 60_000 }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entry = await appOf(runDir, service);
    const inst = entry.instances[0];
    const workers = childPids(inst.pid);
    const fresh = workers.filter((p) => !count.before.includes(p));
    const log = fs.existsSync(inst.log) ? fs.readFileSync(inst.log, 'utf8').slice(offset) : '';
    const listening = fresh.every((p) => new RegExp(`"pid":${p}\\b[^\\n]*listening|listening[^\\n]*"pid":${p}\\b`).test(log));
    if (workers.length >= count.n && !workers.includes(victim) && fresh.length && listening && await checkOnce(inst.port, entry.healthcheck)) {
      return { pid: fresh[0], at: Date.now() };
    }
    if (Date.now() > deadline) throw new Error(`${inst.name}: its killed worker ${victim} was not replaced within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}

async function killInstance({ runDir, service, k, load }) {
  const entry = await appOf(runDir, service);
  const index = (k % entry.instances.length) + 1;
  const inst = entry.instances.find((i) => i.index === index);
  const killedAtMs = load.now();
  const epoch = Date.now();
  await signal({ runDir, service, index, signal: 'SIGKILL' });
  const back = await waitServing({ runDir, service, index, notPid: inst.pid });
  return { target: inst.name, pid: inst.pid, killedAtMs: Math.round(killedAtMs), backAfterMs: back.healthyAt - epoch, inRotationAfterMs: back.inRotationAt - epoch };
}

async function killWorker({ runDir, service, load }) {
  const inst = (await appOf(runDir, service)).instances[0];
  const before = childPids(inst.pid);
  if (!before.length) throw new Error(`${inst.name} has no worker processes to kill (is it a cluster primary?)`);
  const victim = before[0]; // the oldest: each kill hits a worker that has not been killed yet
  const offset = fs.existsSync(inst.log) ? fs.statSync(inst.log).size : 0;
  const killedAtMs = load.now();
  const epoch = Date.now();
  process.kill(victim, 'SIGKILL');
  const back = await workerBack({ runDir, service, victim, count: { n: before.length, before }, offset });
  return { target: `${inst.name} worker`, pid: victim, killedAtMs: Math.round(killedAtMs), backAfterMs: back.at - epoch, inRotationAfterMs: back.at - epoch };
}

/**
 * faultDrill({ runDir, service = 'app', url, how: 'instance' | 'worker', kills, rate, mix, log }):
 * `url` is where the clients go (nginx, or one instance directly); `rate` requests per second,
 * open loop; `mix` = { get: '/path', post: { path, body, contentType }, postShare }.
 * Returns { how, kills: [{ target, pid, killedAtMs, backAfterMs, inRotationAfterMs, failed: { get, post } }],
 * get: { requests, failed, retried, errors }, post: {...}, latencyMs: { p50, p90, p99, max },
 * recoverMs: { median, max }, inRotationMs: { median, max }, durationS, rate, mix }.
 */
/** @param {{ runDir: string, service?: string, url: string, how?: string, kills?: number, rate?: number, mix: object, log?: (line: string) => void, settleMs?: number, gapMs?: number }} options */
export async function faultDrill({ runDir, service = 'app', url, how = 'instance', kills = 3, rate = 100, mix, log = () => {}, settleMs = 1000, gapMs = 500 }) {
  if (!['instance', 'worker'].includes(how)) throw new Error(`how must be 'instance' or 'worker' (got ${JSON.stringify(how)})`);
  if (!Number.isInteger(kills) || kills < 1) throw new Error(`kills must be a whole number of at least 1 (got ${kills})`);
  checkMix(mix);
  await appOf(runDir, service);
  const { records, result, durationS } = await underLoad({ url, rate, mix, settleMs }, async (load) => {
    const done = [];
    for (let k = 0; k < kills; k += 1) {
      if (k > 0) await sleep(gapMs);
      const kill = how === 'worker' ? await killWorker({ runDir, service, load }) : await killInstance({ runDir, service, k, load });
      log(`kill ${k + 1}/${kills}: ${kill.target} (pid ${kill.pid}) back in ${kill.backAfterMs} ms, serving again in ${kill.inRotationAfterMs} ms`);
      done.push(kill);
    }
    return done;
  });
  // Each failure is put down to the last kill before it was answered.
  const withFailures = result.map((kill, i) => ({ ...kill, failed: failuresBetween(records, kill.killedAtMs, result[i + 1]?.killedAtMs ?? Infinity) }));
  const backs = result.map((k) => k.backAfterMs);
  const inRotation = result.map((k) => k.inRotationAfterMs);
  return {
    how,
    kills: withFailures,
    ...traffic(records, { rate, mix, durationS }),
    recoverMs: { median: round(median(backs), 0), max: Math.max(...backs) },
    inRotationMs: { median: round(median(inRotation), 0), max: Math.max(...inRotation) },
  };
}
