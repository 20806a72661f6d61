// `make reload`: replace a service's processes one at a time, by the strategy its topology allows.
//   proxy    instances behind nginx: start the new process on a new port, wait until it is healthy,
//            switch nginx's upstream to it (reload; nginx's old workers finish their requests), then
//            stop the old process. Start-first, so a single instance behind nginx is replaced
//            without downtime too. A new process that never gets healthy stops the rollout; the
//            old processes keep serving.
//   signal   a service whose compose x-local names a reload signal (node-cluster: SIGHUP, the
//            primary's own rolling restart of its workers): send it, wait until every worker has
//            been replaced and the instance is healthy.
//   nginx    nginx itself: `nginx -s reload`.
//   restart  anything else (no proxy in front): stop, start, wait healthy, one instance at a time.
//            Not zero-downtime: the instance refuses connections while it restarts.
import fs from 'node:fs';
import path from 'node:path';
import { waitHealthy, checkOnce } from '../common/health.js';
import { reloadNginx } from './nginx.js';
import { claimService, switchProxies } from './service-change.js';
import { freePort } from '../../lib/ports.js';
import { isAlive, sendSignal, childPids } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { instanceSpec, portsOf, extraPortsOf } from './spec.js';
import { writeTargets } from './prometheus.js';
import { call, exitedOf, readState } from './supervisor-client.js';
import { loadTopology } from '../common/compose.js';
import { restart, proxiesOf } from './instances.js';
import { setTimeout as sleep } from 'node:timers/promises';

class RunGone extends Error {}

async function stillUp(runDir) {
  const state = await readState(runDir);
  if (!state || state.stale || state.phase !== 'up')
    throw new RunGone(`reload stopped: ${state?.stale?.reason ?? 'the run is being taken down'}`);
  return state;
}

async function proxyStep({ runDir, service, index, proxies, log }) {
  const state = await stillUp(runDir);
  const entry = state.services[service];
  const inst = entry.instances.find((i) => i.index === index);
  const began = Date.now();
  const port = await freePort();
  const ctx = {
    ports: portsOf(state),
    listen: {},
    run: runDir,
    port,
    index,
    data: path.join(runDir, 'data', `${service}-${index}`),
    extraPorts: await extraPortsOf(entry.spec),
  };
  const spec = {
    ...instanceSpec(
      { sample: state.sample, dir: state.sampleDir, vars: loadTopology(state.sampleDir).vars },
      entry.spec,
      index,
      ctx,
      runDir,
    ),
    log: inst.log,
    cgroupProcs: inst.cgroupProcs,
  };
  log(`${inst.name}: starting its new process on port ${port}`);
  const { pid } = await call(runDir, 'candidate', { service, index, spec });
  // Whether the run is being taken down, for waitHealthy's synchronous check.
  let gone = false;
  const watch = setInterval(() => { stillUp(runDir).catch(() => { gone = true; }); }, 200);
  try {
    await waitHealthy({
      port, healthcheck: entry.healthcheck, exited: exitedOf(runDir, pid), cancelled: () => gone,
      label: `${inst.name}'s new process (port ${port}, log: ${inst.log})`,
    });
  } catch (err) {
    await call(runDir, 'stop', { pid, signal: entry.stopSignal, graceMs: entry.stopGraceMs }).catch(() => {});
    throw new Error(`reload stopped at ${inst.name}: ${err.message}; the old instances keep serving`, { cause: err });
  } finally {
    clearInterval(watch);
  }
  const upstream = portsOf(state);
  upstream[service] = entry.instances.map((i) => (i.index === index ? port : i.port));
  log(`${inst.name}: nginx now sends to port ${port}`);
  try {
    await switchProxies(await stillUp(runDir), proxies, upstream);
  } catch (err) {
    await call(runDir, 'stop', { pid, signal: entry.stopSignal, graceMs: entry.stopGraceMs }).catch(() => {});
    await switchProxies((await readState(runDir).catch(() => undefined)) ?? state, proxies, portsOf(state)).catch(
      () => {},
    );
    throw new Error(
      `reload stopped at ${inst.name}: switching nginx failed (${err.message}); the old instances keep serving`,
      { cause: err },
    );
  }
  /** @type {{ pid: number, port: number } | null} */
  const old = await call(runDir, 'promote', { service, index, pid, port, spec });
  if (!old) throw new RunGone('reload stopped: the run is being taken down');
  log(`${inst.name}: stopping its old process (pid ${old.pid}, port ${old.port})`);
  await call(runDir, 'stop', { pid: old.pid, signal: entry.stopSignal, graceMs: entry.stopGraceMs });
  return { instance: inst.name, from: old, to: { pid, port }, startedAt: began, tookMs: Date.now() - began };
}

async function signalStep({ runDir, service, index, sig, log }) {
  const { services } = await stillUp(runDir);
  const entry = services[service];
  const inst = entry.instances.find((i) => i.index === index);
  const began = Date.now();
  const before = childPids(inst.pid);
  if (!before.length)
    throw new Error(`reload stopped at ${inst.name}: it has no worker processes for ${sig} to replace`);
  const offset = fs.existsSync(inst.log) ? fs.statSync(inst.log).size : 0;
  log(`${inst.name}: ${sig} -> pid ${inst.pid} (replaces its ${before.length} worker(s) one at a time)`);
  sendSignal(inst.pid, sig);
  const deadline = Date.now() + Math.max(60_000, before.length * (entry.stopGraceMs + 30_000));
  for (;;) {
    if (!isAlive(inst.pid))
      throw new Error(`reload stopped at ${inst.name}: it exited during its rolling restart — see ${inst.log}`);
    const now = childPids(inst.pid);
    if (
      now.length >= before.length &&
      !now.some((p) => before.includes(p)) &&
      (await checkOnce(inst.port, entry.healthcheck))
    ) {
      return {
        instance: inst.name,
        from: { workers: before },
        to: { workers: now },
        startedAt: began,
        tookMs: Date.now() - began,
      };
    }
    // The primary says so when a new worker fails and it keeps the old ones.
    const said = fs.readFileSync(inst.log, 'utf8').slice(offset).match(/^.*rolling restart (aborted|ignored).*$/m);
    if (said) throw new Error(`reload stopped at ${inst.name}: ${said[0].trim()} — the old workers keep serving`);
    if (Date.now() > deadline)
      throw new Error(
        `reload stopped at ${inst.name}: its workers were not all replaced within ` +
          `${Math.round((deadline - began) / 1000)} s — see ${inst.log}`,
      );
    await stillUp(runDir);
    await sleep(100);
  }
}

async function restartStep({ runDir, service, index }) {
  const inst = (await stillUp(runDir)).services[service].instances.find((i) => i.index === index);
  const began = Date.now();
  const now = await restart({ runDir, service, index }).catch((err) => {
    throw new Error(`reload stopped at ${inst.name}: ${err.message}`);
  });
  return {
    instance: inst.name,
    from: { pid: inst.pid, port: inst.port },
    to: { pid: now.pid, port: now.port },
    startedAt: began,
    tookMs: Date.now() - began,
  };
}

function strategyOf(state, service) {
  const entry = state.services[service];
  if (entry.spec?.local?.nginx) return { kind: 'nginx', zeroDowntime: true };
  const sig = entry.spec?.local?.reload_signal;
  // The signal asks a primary to replace its workers: an instance running one process of the app
  // (a generated app's one-process and replicas shapes) is replaced as any other.
  if (sig && entry.instances.every((i) => childPids(i.pid).length)) return { kind: 'signal', sig, zeroDowntime: true };
  const proxies = proxiesOf(state, service);
  if (proxies.length) return { kind: 'proxy', proxies, zeroDowntime: true };
  return { kind: 'restart', zeroDowntime: false };
}

/**
 * Replaces `service`'s processes one at a time. Returns { sample, service, strategy, zeroDowntime,
 * steps: [{ instance, from, to, startedAt (epoch ms), tookMs }], tookMs }. Throws one line for bad
 * input or a step that failed (the steps done so far stay done).
 */
/** @param {{ runDir?: string, sample?: string, service?: string, log?: (line: string) => void }} [options] */
export async function reload({ runDir = DEFAULT_RUN_DIR, sample, service = 'app', log = () => {} } = {}) {
  const claim = await claimService({ runDir, sample, service, op: 'reload' });
  const { state, entry } = claim;
  runDir = claim.runDir;
  const began = Date.now();
  try {
    const strategy = strategyOf(state, service);
    if (!strategy.zeroDowntime)
      log(`${service} has no proxy in front: each instance refuses connections while it restarts (not zero-downtime)`);
    const steps = [];
    if (strategy.kind === 'nginx') {
      for (const inst of entry.instances) {
        const t = Date.now();
        log(`${inst.name}: nginx -s reload`);
        await reloadNginx(inst.pid);
        steps.push({
          instance: inst.name,
          from: { pid: inst.pid },
          to: { pid: inst.pid },
          startedAt: t,
          tookMs: Date.now() - t,
        });
      }
    } else {
      for (const { index } of entry.instances) {
        const args = { runDir, service, index, log, proxies: strategy.proxies, sig: strategy.sig };
        const step =
          strategy.kind === 'proxy'
            ? await proxyStep(args)
            : strategy.kind === 'signal'
              ? await signalStep(args)
              : await restartStep(args);
        steps.push(step);
        log(`${step.instance}: replaced in ${step.tookMs} ms`);
      }
      // New processes, new metrics ports: a local Prometheus scrapes them from now on.
      await writeTargets(runDir);
    }
    return {
      sample: state.sample,
      service,
      strategy: strategy.kind,
      zeroDowntime: strategy.zeroDowntime,
      steps,
      tookMs: Date.now() - began,
    };
  } finally {
    await claim.release();
  }
}
