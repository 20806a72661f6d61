// Starting a run: the compose services in dependency order, each instance started by the run's
// supervisor and waited on until healthy (or, for a one-shot job, until it exits 0). The
// supervisor owns the run's state from the start: up() tells it each step. A down() called
// meanwhile — from this process or another — makes up() stop where it is and take down what it
// had started.
import fs from 'node:fs';
import path from 'node:path';
import { loadTopology, startOrder } from '../common/compose.js';
import { validateKnobs } from '../common/options.js';
import * as cgroup from '../common/cgroup.js';
import { waitHealthy } from '../common/health.js';
import { nginxBinary } from '../../lib/nginx-binary.js';
import { isAlive } from '../../lib/processes.js';
import { DEFAULT_RUN_DIR, runIdOf } from '../common/run-dir.js';
import { assignPorts, instanceSpec, fillPlaceholders, toolPath, resolveCommand, extraPortsOf } from './spec.js';
import { runJob } from './jobs.js';
import { startSupervisor, call, readState, exitedOf } from './supervisor-client.js';
import { teardown, runAlive } from './teardown.js';
import { isolationOf } from '../common/isolation.js';
import { writeTargets } from './prometheus.js';

// up() calls in progress in this process, by run folder: down() cancels them and waits.
export const starting = new Map();

export class Cancelled extends Error {}

/** @param {import('../common/contract.js').UpOptions} opts */
export async function up(opts) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  if (starting.has(runDir)) throw new Error(`${runDir} is already being started`);
  const control = { cancelled: false, stopped: 0 };
  const work = start(runDir, opts, control);
  const settled = work.then(() => undefined, () => undefined);
  starting.set(runDir, { cancel: () => { control.cancelled = true; }, settled, control });
  try {
    return await work;
  } finally {
    starting.delete(runDir);
  }
}

// What a run needs before its first process: the checks, the topology and its start order, the
// ports, the CPU limits it can have here, a clean logs folder and its supervisor.
async function prepare(runDir, opts, log) {
  validateKnobs(opts.env ?? {});
  const existing = await readState(runDir);
  if (existing) {
    if (runAlive(existing))
      throw new Error(`${existing.sample} is already running from ${runDir}: run \`make down\` first`);
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
  if (isolation.cpuset && !cpuLimits.pinning.enforced)
    log(`NOT pinned to CPUs ${isolation.cpuset}: ${cpuLimits.pinning.reason}`);
  return { runDir, opts, log, topology, order, runId, isolation, cpuLimits, ctx: { ports, listen, run: runDir } };
}

const cancelledMessage = (sample) => `starting ${sample} was cancelled: down() was called meanwhile`;

async function start(runDir, opts, control) {
  const run = await prepare(runDir, opts, opts.log ?? (() => {}));
  const { topology, runId, isolation, cpuLimits } = run;
  // A down() from another process tells the supervisor; this up() hears it at its next poll.
  const watch = setInterval(() => {
    call(runDir, 'cancelled', {}, { timeoutMs: 5000 }).then((yes) => { if (yes) control.cancelled = true; }, () => {});
  }, 200);
  run.cancelled = () => control.cancelled;
  run.check = () => { if (control.cancelled) throw new Cancelled(cancelledMessage(topology.sample)); };
  try {
    await call(runDir, 'init', {
      state: {
        sample: topology.sample, sampleDir: topology.dir, runId, startedAt: new Date().toISOString(),
        phase: 'starting', owner: { pid: process.pid }, cpuLimits, isolation, order: run.order, services: {},
      },
    });
    if (cpuLimits.enforced) {
      const cpuset = cpuLimits.pinning.enforced ? isolation.cpuset : undefined;
      cgroup.createRunGroups(runId, { cpuset, budget: isolation.budget, priority: isolation.priority });
    }
    const state = await call(runDir, 'ready', { url: await startServices(run) });
    if (!state) throw new Cancelled(cancelledMessage(topology.sample));
    return state;
  } catch (err) {
    const wasCancelled = err instanceof Cancelled || control.cancelled;
    control.stopped = (await teardown(runDir)).stopped;
    if (wasCancelled && !(err instanceof Cancelled)) throw new Cancelled(cancelledMessage(topology.sample));
    throw err;
  } finally {
    clearInterval(watch);
  }
}

// Every service in start order; returns the run's URL: the first service that publishes a port,
// else the last one started that serves.
async function startServices(run) {
  const built = new Set();
  let url;
  let lastUrl;
  for (const name of run.order) {
    run.check();
    const first = await startService(run, run.topology.services[name], built);
    if (!first) continue;
    if (run.topology.services[name].ports.length && !url) url = first.url;
    lastUrl = first.url;
  }
  run.check();
  return url ?? lastUrl;
}

// The supervisor's record of a service before its first instance.
const serviceEntry = (svc) => ({
  cpus: svc.cpus ?? null,
  memoryBytes: svc.memoryBytes ?? null,
  oneshot: Boolean(svc.oneshot),
  healthcheck: svc.healthcheck,
  stopSignal: svc.local.nginx ? 'SIGQUIT' : 'SIGTERM',
  stopGraceMs: svc.stopGraceMs,
  restart: svc.restart,
  armed: false,
  spec: svc,
  instances: [],
});

// One service: its build (once for the services that share it: app + migrator), its instances, then
// health (or, for a one-shot job, exit 0), its post_start, and its restart policy armed. Returns
// its first instance, or undefined for one that is skipped or runs to completion.
async function startService(run, svc, built) {
  const { runDir, log, topology, ctx, cancelled } = run;
  const name = svc.name;
  if (svc.local.skip) {
    await call(runDir, 'addService', { name, entry: { skipped: svc.local.skip, instances: [] } });
    log(`${name}: skipped locally (${svc.local.skip})`);
    return undefined;
  }
  await call(runDir, 'addService', { name, entry: serviceEntry(svc) });
  const build = svc.local.build;
  if (build && run.opts.build !== false && !built.has(build.join(' '))) {
    built.add(build.join(' '));
    log(`${name}: building (${build.join(' ')})`);
    const [cmd, ...args] = build.map((v) => fillPlaceholders(v, { ...ctx, port: '', index: '', data: '' }));
    const logFile = path.join(runDir, 'logs', `${name}-build.log`);
    await runJob(cmd, args, {
      cwd: topology.dir,
      env: { ...process.env, PATH: toolPath() },
      logFile,
      label: `${name} build`,
      cancelled,
    });
  }
  /** @type {Record<string, any>[]} */
  const started = [];
  for (let index = 1; index <= svc.replicas; index += 1) {
    run.check();
    const what = {
      topology,
      svc,
      index,
      port: ctx.ports[name][index - 1],
      ctx,
      runId: run.runId,
      cpuLimits: run.cpuLimits,
    };
    started.push(await startInstance(runDir, what));
  }
  if (svc.oneshot) {
    log(`${name}: running to completion`);
    await Promise.all(started.map((inst) => waitExit(runDir, inst, cancelled)));
    return undefined;
  }
  log(`${name}: waiting for ${svc.replicas} instance(s) to be healthy`);
  await Promise.all(started.map((inst) => waitHealthy({
    port: inst.port, healthcheck: svc.healthcheck, exited: exitedOf(runDir, inst.pid),
    label: `${inst.name} (log: ${inst.log})`, log: inst.log, cancelled,
  })));
  if (svc.local.post_start) await postStart(run, svc, started[0]);
  // From now on the service's restart policy applies (a start-up crash fails `make up` instead).
  await call(runDir, 'arm', { service: name });
  return started[0];
}

async function postStart(run, svc, first) {
  const { runDir, ctx, topology } = run;
  const [cmd, ...args] = svc.local.post_start.map((v) =>
    fillPlaceholders(v, { ...ctx, port: ctx.ports[svc.name][0], index: 1, data: '' }),
  );
  await runJob(resolveCommand(cmd), args, {
    cwd: topology.dir,
    env: { ...process.env, PATH: toolPath(), ...first.env },
    logFile: path.join(runDir, 'logs', `${svc.name}-post-start.log`),
    label: `${svc.name} post_start`,
    cancelled: run.cancelled,
  });
}

/**
 * Adds instance `index` of `svc` to the run and has the supervisor start it on `port`; returns its
 * record with its pid. ctx: { ports, listen, run } (spec.js). `make scale` adds instances this way too.
 * @param {string} runDir
 * @param {{ topology: { sample: string, dir: string, vars?: any }, svc: any, index: number, port: number, ctx: any,
 * runId: string, cpuLimits: any }} what
 * @returns {Promise<Record<string, any>>}
 */
export async function startInstance(runDir, { topology, svc, index, port, ctx, runId, cpuLimits }) {
  const data = path.join(runDir, 'data', `${svc.name}-${index}`);
  fs.mkdirSync(data, { recursive: true });
  const extraPorts = await extraPortsOf(svc);
  const spec = instanceSpec(topology, svc, index, { ...ctx, port, index, data, extraPorts }, runDir);
  /** @type {Record<string, any>} */
  const inst = { index, port, url: `http://127.0.0.1:${port}`, ...spec, restarts: 0 };
  if (svc.local.nginx) inst.listen = ctx.listen[svc.name];
  inst.log = path.join(runDir, 'logs', `${inst.name}.log`);
  // Every instance gets a group, limited or not: the run's cpuset, budget and CPU accounting cover it.
  if (cpuLimits.enforced) {
    const group = cgroup.createGroup(runId, inst.name, { cpus: svc.cpus, memoryBytes: svc.memoryBytes });
    inst.cgroup = group.dirs;
    inst.cgroupProcs = group.procs;
  }
  await call(runDir, 'addInstance', { service: svc.name, inst });
  // A Prometheus (x-local.prometheus) reads its targets from files: written before it starts.
  if (svc.local.prometheus) await writeTargets(runDir);
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
