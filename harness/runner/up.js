// Starting a run: the compose services in dependency order, each instance started by the run's
// supervisor and waited on until healthy (or, for a one-shot job, until it exits 0). The
// supervisor owns the run's state from the start: up() tells it each step. A down() called
// meanwhile — from this process or another — makes up() stop where it is and take down what it
// had started.
import fs from 'node:fs';
import path from 'node:path';
import { loadTopology, startOrder } from './compose.js';
import { validateKnobs } from './options.js';
import * as cgroup from './cgroup.js';
import { waitHealthy } from './health.js';
import { nginxBinary } from '../lib/nginx-binary.js';
import { isAlive } from '../lib/processes.js';
import { DEFAULT_RUN_DIR, runIdOf } from './state.js';
import { assignPorts, instanceSpec, fillPlaceholders, toolPath, resolveCommand } from './spec.js';
import { runJob } from './jobs.js';
import { startSupervisor, call, readState } from './supervisor-client.js';
import { teardown, runAlive } from './teardown.js';

// up() calls in progress in this process, by run folder: down() cancels them and waits.
export const starting = new Map();

export class Cancelled extends Error {}

export async function up(opts = {}) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  if (starting.has(runDir)) throw new Error(`${runDir} is already being started`);
  const control = { cancelled: false };
  const work = start(runDir, opts, control);
  starting.set(runDir, { cancel: () => { control.cancelled = true; }, settled: work.then(() => undefined, () => undefined), control });
  try {
    return await work;
  } finally {
    starting.delete(runDir);
  }
}

async function start(runDir, opts, control) {
  const log = opts.log ?? (() => {});
  validateKnobs(opts.env ?? {});
  const existing = await readState(runDir);
  if (existing) {
    if (runAlive(existing)) throw new Error(`${existing.sample} is already running from ${runDir}: run \`make down\` first`);
    await teardown(runDir); // what a crashed run left behind
  }
  const topology = loadTopology(opts.sample, { ...process.env, ...(opts.env ?? {}) });
  const order = startOrder(topology, opts.services, opts.noDeps);
  if (order.some((n) => topology.services[n].local.nginx && !topology.services[n].local.skip)) nginxBinary();
  const runId = runIdOf(runDir);
  const isolation = isolationOf(opts);
  const cpuLimits = cgroup.probe(runId, { cpuset: isolation.cpuset });
  const { ports, listen } = await assignPorts(topology, order);
  fs.rmSync(path.join(runDir, 'logs'), { recursive: true, force: true });
  fs.mkdirSync(path.join(runDir, 'logs'), { recursive: true });
  await startSupervisor(runDir);
  if (!cpuLimits.enforced) log(`CPU limits NOT enforced: ${cpuLimits.reason}`);
  if (isolation.cpuset && !cpuLimits.pinning.enforced) log(`NOT pinned to CPUs ${isolation.cpuset}: ${cpuLimits.pinning.reason}`);

  // A down() from another process tells the supervisor; this up() hears it at its next poll.
  const watch = setInterval(() => {
    call(runDir, 'cancelled', {}, { timeoutMs: 5000 }).then((yes) => { if (yes) control.cancelled = true; }, () => {});
  }, 200);
  const cancelled = () => control.cancelled;
  const check = () => { if (cancelled()) throw new Cancelled(`starting ${topology.sample} was cancelled: down() was called meanwhile`); };
  try {
    await call(runDir, 'init', {
      state: {
        sample: topology.sample, sampleDir: topology.dir, runId, startedAt: new Date().toISOString(),
        phase: 'starting', owner: { pid: process.pid }, cpuLimits, isolation, order, services: {},
      },
    });
    if (cpuLimits.enforced) {
      cgroup.createRunGroups(runId, { cpuset: cpuLimits.pinning.enforced ? isolation.cpuset : undefined, budget: isolation.budget, priority: isolation.priority });
    }
    const built = new Set();
    let url;
    let lastUrl; // of the last service started that serves: the run's url when none publishes a port
    for (const name of order) {
      check();
      const svc = topology.services[name];
      if (svc.local.skip) {
        await call(runDir, 'addService', { name, entry: { skipped: svc.local.skip, instances: [] } });
        log(`${name}: skipped locally (${svc.local.skip})`);
        continue;
      }
      await call(runDir, 'addService', {
        name,
        entry: {
          cpus: svc.cpus ?? null, memoryBytes: svc.memoryBytes ?? null, oneshot: Boolean(svc.oneshot), healthcheck: svc.healthcheck,
          stopSignal: svc.local.nginx ? 'SIGQUIT' : 'SIGTERM', stopGraceMs: svc.stopGraceMs, restart: svc.restart, armed: false,
          spec: svc, instances: [],
        },
      });
      const baseCtx = { ports, listen, run: runDir };
      if (svc.local.build && opts.build !== false && !built.has(svc.local.build.join(' '))) {
        built.add(svc.local.build.join(' ')); // services sharing one build (app + migrator) build once
        log(`${name}: building (${svc.local.build.join(' ')})`);
        const [cmd, ...args] = svc.local.build.map((v) => fillPlaceholders(v, { ...baseCtx, port: '', index: '', data: '' }));
        await runJob(cmd, args, { cwd: topology.dir, env: { ...process.env, PATH: toolPath() }, logFile: path.join(runDir, 'logs', `${name}-build.log`), label: `${name} build`, cancelled });
      }
      /** @type {Record<string, any>[]} */
      const started = [];
      for (let index = 1; index <= svc.replicas; index += 1) {
        check();
        started.push(await startInstance(runDir, { topology, svc, index, port: ports[name][index - 1], ctx: baseCtx, runId, cpuLimits }));
      }
      const exited = (pid) => async () => {
        const st = await call(runDir, 'status', { pid });
        return st.exited ? st.how : undefined;
      };
      if (svc.oneshot) {
        log(`${name}: running to completion`);
        await Promise.all(started.map((inst) => waitExit(runDir, inst, cancelled)));
        continue;
      }
      log(`${name}: waiting for ${svc.replicas} instance(s) to be healthy`);
      await Promise.all(started.map((inst) => waitHealthy({
        port: inst.port, healthcheck: svc.healthcheck, exited: exited(inst.pid), label: `${inst.name} (log: ${inst.log})`, log: inst.log, cancelled,
      })));
      if (svc.local.post_start) {
        const [cmd, ...args] = svc.local.post_start.map((v) => fillPlaceholders(v, { ...baseCtx, port: ports[name][0], index: 1, data: '' }));
        await runJob(resolveCommand(cmd), args, {
          cwd: topology.dir, env: { ...process.env, PATH: toolPath(), ...started[0].env },
          logFile: path.join(runDir, 'logs', `${name}-post-start.log`), label: `${name} post_start`, cancelled,
        });
      }
      // From now on the service's restart policy applies (a start-up crash fails `make up` instead).
      await call(runDir, 'arm', { service: name });
      if (svc.ports.length && !url) url = started[0].url;
      if (started.length) lastUrl = started[0].url;
    }
    check();
    const state = await call(runDir, 'ready', { url: url ?? lastUrl });
    if (!state) throw new Cancelled(`starting ${topology.sample} was cancelled: down() was called meanwhile`);
    return state;
  } catch (err) {
    const wasCancelled = err instanceof Cancelled || cancelled();
    control.stopped = (await teardown(runDir)).stopped;
    if (wasCancelled && !(err instanceof Cancelled)) throw new Cancelled(`starting ${topology.sample} was cancelled: down() was called meanwhile`);
    throw err;
  } finally {
    clearInterval(watch);
  }
}

/**
 * Adds instance `index` of `svc` to the run and has the supervisor start it on `port`; returns its
 * record with its pid. ctx: { ports, listen, run } (spec.js). `make scale` adds instances this way too.
 * @param {string} runDir
 * @param {{ topology: { sample: string, dir: string, vars?: any }, svc: any, index: number, port: number, ctx: any, runId: string, cpuLimits: any }} what
 * @returns {Promise<Record<string, any>>}
 */
export async function startInstance(runDir, { topology, svc, index, port, ctx, runId, cpuLimits }) {
  const data = path.join(runDir, 'data', `${svc.name}-${index}`);
  fs.mkdirSync(data, { recursive: true });
  /** @type {Record<string, any>} */
  const inst = { index, port, url: `http://127.0.0.1:${port}`, ...instanceSpec(topology, svc, index, { ...ctx, port, index, data }, runDir), restarts: 0 };
  if (svc.local.nginx) inst.listen = ctx.listen[svc.name];
  inst.log = path.join(runDir, 'logs', `${inst.name}.log`);
  // Every instance gets a group, limited or not: the run's cpuset, budget and CPU accounting cover it.
  if (cpuLimits.enforced) {
    const group = cgroup.createGroup(runId, inst.name, { cpus: svc.cpus, memoryBytes: svc.memoryBytes });
    inst.cgroup = group.dirs;
    inst.cgroupProcs = group.procs;
  }
  await call(runDir, 'addInstance', { service: svc.name, inst });
  const { pid } = await call(runDir, 'spawn', { service: svc.name, index });
  return { ...inst, pid };
}

// A one-shot job (a migrator): it must exit 0.
async function waitExit(runDir, inst, cancelled, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (cancelled()) throw new Cancelled(`${inst.name}: stopped waiting, the run is being taken down`);
    const st = await call(runDir, 'status', { pid: inst.pid });
    if (st.exited) {
      if (st.code === 0) return;
      throw new Error(`${inst.name} failed (${st.how}) — see ${inst.log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (isAlive(inst.pid)) throw new Error(`${inst.name} did not finish within ${timeoutMs / 1000} s`);
}

// `priority` puts the run ahead of other load on the machine (the highest CPU weight).
// `cpuset` (CPU list, e.g. "1" or "2-5") pins every process of the run; `budget` (CPUs) caps the
// whole run with one quota. The benchmark uses both to give the load generator CPUs of its own.
export function isolationOf(opts) {
  const available = cgroup.availableCpus();
  let cpus = available;
  if (opts.cpuset !== undefined && opts.cpuset !== null && opts.cpuset !== '') {
    cpus = cgroup.parseCpuList(opts.cpuset);
    const missing = cpus.filter((c) => !available.includes(c));
    if (missing.length) throw new Error(`cpuset ${opts.cpuset} names CPU ${missing.join(',')}, which this machine doesn't let us use (available: ${cgroup.formatCpuList(available)})`);
  }
  const budget = opts.budget === undefined || opts.budget === null ? undefined : Number(opts.budget);
  if (budget !== undefined && !(budget > 0 && budget <= cpus.length)) {
    throw new Error(`a CPU budget of ${opts.budget} doesn't fit on the ${cpus.length} CPU(s) ${opts.cpuset ? `of cpuset ${opts.cpuset}` : 'of this machine'}`);
  }
  return { cpuset: opts.cpuset ? cgroup.formatCpuList(cpus) : undefined, cpus: cpus.length, budget, priority: Boolean(opts.priority) };
}
