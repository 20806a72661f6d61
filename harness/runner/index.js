// The local runner: a sample's compose topology as processes on 127.0.0.1.
// API: up, down, ps, signal, restart. See ../CONVENTIONS.md.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import { loadTopology, startOrder, REPO_ROOT } from './compose.js';
import { validateKnobs } from './options.js';
import { freePort, ensureFree } from './ports.js';
import * as cgroup from './cgroup.js';
import { waitHealthy } from './health.js';
import { renderNginx, nginxArgs, nginxBinary, testConfig } from './nginx.js';
import { spawnInstance, stopInstance, isAlive, sendSignal, childPids } from './processes.js';
import { usage as usageOf } from './usage.js';
import { localSecrets } from './secrets.js';

export { REPO_ROOT } from './compose.js';
export const DEFAULT_RUN_DIR = path.join(REPO_ROOT, '.run');
const NODE24 = path.join(REPO_ROOT, 'harness', 'node_modules', '.bin', 'node');

const stateFile = (runDir) => path.join(runDir, 'state.json');
const runIdOf = (runDir) => crypto.createHash('sha1').update(path.resolve(runDir)).digest('hex').slice(0, 10);

export function readState(runDir = DEFAULT_RUN_DIR) {
  try { return JSON.parse(fs.readFileSync(stateFile(runDir), 'utf8')); } catch { return undefined; }
}

function writeState(state) {
  fs.mkdirSync(state.runDir, { recursive: true });
  const tmp = `${stateFile(state.runDir)}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(tmp, stateFile(state.runDir));
}

function toolPath() {
  const tools = path.join(REPO_ROOT, '.tools');
  const extra = fs.existsSync(tools)
    ? fs.readdirSync(tools).map((d) => path.join(tools, d, 'bin')).filter((d) => fs.existsSync(d)) : [];
  return [path.dirname(NODE24), ...extra, process.env.PATH].join(':');
}

function onPath(command, cwd) {
  if (command.includes('/')) return fs.existsSync(path.resolve(cwd, command));
  return toolPath().split(':').some((dir) => dir && fs.existsSync(path.join(dir, command)));
}

function fillPlaceholders(text, ctx) {
  return String(text).replace(/\{(port|index|data|run|services\.([\w-]+)\.port)\}/g, (whole, key, svc) => {
    if (svc) {
      const port = ctx.ports[svc]?.[0];
      if (port === undefined) throw new Error(`{services.${svc}.port}: service '${svc}' is not part of this run`);
      return String(port);
    }
    return String(ctx[key]);
  });
}

// `mongo:27017` in a value means "that service" in compose; locally it is a loopback port.
function rewriteServiceAddresses(value, ports) {
  return String(value).replace(/(^|[^\w.-])([\w-]+):(\d+)(?!\d)/g, (whole, lead, host, port) =>
    (ports[host]?.length ? `${lead}127.0.0.1:${ports[host][0]}` : whole));
}

function run(command, args, { cwd, env, logFile, timeoutMs = 600_000, label }) {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      fs.appendFileSync(logFile, `$ ${command} ${args.join(' ')}\n${stdout}${stderr}`);
      if (!err) return resolve();
      const tail = `${stdout}${stderr}`.trim().split('\n').slice(-3).join(' | ');
      reject(new Error(`${label} failed (${err.killed ? 'timed out' : `exit ${err.code}`}): ${tail} — see ${logFile}`));
    });
    child.stdin?.end();
  });
}

function waitExit(instance, label, timeoutMs = 600_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
    const check = setInterval(() => {
      const gone = instance.exited();
      if (!gone) return;
      clearInterval(check); clearTimeout(timer);
      if (gone === 'exit code 0') resolve(); else reject(new Error(`${label} failed (${gone}) — see its log`));
    }, 100);
  });
}

async function assignPorts(topology, order) {
  const ports = {};
  const listen = {};
  for (const name of order) {
    const svc = topology.services[name];
    if (svc.local.skip) continue;
    if (svc.ports.length && svc.replicas > 1) throw new Error(`${name}: a published port can't be shared by ${svc.replicas} replicas`);
    ports[name] = [];
    listen[name] = {};
    for (let i = 0; i < svc.replicas; i += 1) {
      if (svc.ports.length) {
        for (const { host, container } of svc.ports) {
          const port = host === 0 ? await freePort() : host;
          if (host !== 0) await ensureFree(port, 'pick another with HTTP_PORT=<port>, or stop what holds it (make down?)');
          listen[name][container] = port;
        }
        ports[name].push(Object.values(listen[name])[0]);
      } else {
        ports[name].push(await freePort());
      }
    }
  }
  return { ports, listen };
}

function instanceSpec(topology, svc, index, ctx, runDir) {
  const name = `${topology.sample}-${svc.name}-${index}`;
  const fill = (v) => fillPlaceholders(v, ctx);
  const env = {};
  for (const [k, v] of Object.entries(svc.environment)) env[k] = rewriteServiceAddresses(v, ctx.ports);
  for (const [k, v] of Object.entries(svc.local.environment)) {
    // A variable naming a service that is not part of this run (services + noDeps) is left unset.
    try { env[k] = fill(v); } catch (err) { if (!/is not part of this run/.test(err.message)) throw err; }
  }
  env.INSTANCE_NAME = name;
  Object.assign(env, localSecrets(topology, svc.name, env));
  if (svc.local.nginx) {
    const rendered = renderNginx({ svc, runDir, upstreamPorts: ctx.ports, listenPorts: ctx.listen[svc.name] });
    testConfig(rendered, runDir);
    return { name, command: nginxBinary(), args: [...nginxArgs(rendered, runDir), '-g', 'daemon off;'], cwd: rendered.prefix, env };
  }
  if (!svc.local.command) throw new Error(`${svc.name}: no x-local.command in compose.yaml, so it can't run without Docker`);
  env[svc.local.port_env] = String(ctx.port);
  const [command, ...args] = svc.local.command.map(fill);
  const resolved = command === 'node' && fs.existsSync(NODE24) ? NODE24 : command;
  if (!onPath(resolved, topology.dir)) {
    throw new Error(`${svc.name}: its local program '${command}' is not installed (not on PATH); see ${topology.sample}/README.md`);
  }
  return { name, command: resolved, args, cwd: topology.dir, env };
}

function launch(state, svcName, inst) {
  const logFile = path.join(state.runDir, 'logs', `${inst.name}.log`);
  const started = spawnInstance({
    command: inst.command, args: inst.args, cwd: inst.cwd, logFile,
    env: { ...process.env, PATH: toolPath(), ...inst.env },
    cgroupProcs: inst.cgroupProcs ?? [],
  });
  inst.pid = started.pid;
  inst.log = logFile;
  return started;
}

export async function up(opts = {}) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  const log = opts.log ?? (() => {});
  const callerEnv = { ...process.env, ...(opts.env ?? {}) };
  validateKnobs(opts.env ?? {});
  const existing = readState(runDir);
  if (existing) {
    const alive = Object.values(existing.services).flatMap((s) => s.instances ?? []).some((i) => isAlive(i.pid));
    if (alive) throw new Error(`${existing.sample} is already running from ${runDir}: run \`make down\` first`);
    await down({ runDir });
  }
  const topology = loadTopology(opts.sample, callerEnv);
  const order = startOrder(topology, opts.services, opts.noDeps);
  if (order.some((n) => topology.services[n].local.nginx && !topology.services[n].local.skip)) nginxBinary();
  const runId = runIdOf(runDir);
  const isolation = isolationOf(opts);
  const cpuLimits = cgroup.probe(runId, { cpuset: isolation.cpuset });
  const { ports, listen } = await assignPorts(topology, order);
  fs.rmSync(path.join(runDir, 'logs'), { recursive: true, force: true });
  fs.mkdirSync(path.join(runDir, 'logs'), { recursive: true });
  const state = { sample: topology.sample, runDir, runId, startedAt: new Date().toISOString(), url: undefined, cpuLimits, isolation, order, services: {} };
  writeState(state);
  if (!cpuLimits.enforced) log(`CPU limits NOT enforced: ${cpuLimits.reason}`);
  if (isolation.cpuset && !cpuLimits.pinning.enforced) log(`NOT pinned to CPUs ${isolation.cpuset}: ${cpuLimits.pinning.reason}`);
  const built = new Set();
  try {
    if (cpuLimits.enforced) {
      cgroup.createRunGroups(runId, { cpuset: cpuLimits.pinning.enforced ? isolation.cpuset : undefined, budget: isolation.budget, priority: isolation.priority });
    }
    for (const name of order) {
      const svc = topology.services[name];
      if (svc.local.skip) {
        state.services[name] = { skipped: svc.local.skip, instances: [] };
        log(`${name}: skipped locally (${svc.local.skip})`);
        continue;
      }
      const entry = { cpus: svc.cpus ?? null, memoryBytes: svc.memoryBytes ?? null, oneshot: Boolean(svc.oneshot), healthcheck: svc.healthcheck,
        stopSignal: svc.local.nginx ? 'SIGQUIT' : 'SIGTERM', stopGraceMs: svc.stopGraceMs, instances: [] };
      state.services[name] = entry;
      const baseCtx = { ports, listen, run: runDir };
      if (svc.local.build && opts.build !== false && !built.has(svc.local.build.join(' '))) {
        built.add(svc.local.build.join(' ')); // services sharing one build (app + migrator) build once
        log(`${name}: building (${svc.local.build.join(' ')})`);
        const [cmd, ...args] = svc.local.build.map((v) => fillPlaceholders(v, { ...baseCtx, port: '', index: '', data: '' }));
        await run(cmd, args, { cwd: topology.dir, env: { ...process.env, PATH: toolPath() }, logFile: path.join(runDir, 'logs', `${name}-build.log`), label: `${name} build` });
      }
      const started = [];
      for (let index = 1; index <= svc.replicas; index += 1) {
        const port = ports[name][index - 1];
        const data = path.join(runDir, 'data', `${name}-${index}`);
        fs.mkdirSync(data, { recursive: true });
        const inst = { index, port, url: `http://127.0.0.1:${port}`, ...instanceSpec(topology, svc, index, { ...baseCtx, port, index, data }, runDir) };
        // Every instance gets a group, limited or not: the run's cpuset, budget and CPU accounting cover it.
        if (cpuLimits.enforced) {
          const group = cgroup.createGroup(runId, inst.name, { cpus: svc.cpus, memoryBytes: svc.memoryBytes });
          inst.cgroup = group.dirs;
          inst.cgroupProcs = group.procs;
        }
        started.push({ inst, handle: launch(state, name, inst) });
        entry.instances.push(inst);
        writeState(state);
      }
      if (svc.oneshot) {
        log(`${name}: running to completion`);
        await Promise.all(started.map(({ inst, handle }) => waitExit(handle, `${inst.name}`)));
        continue;
      }
      log(`${name}: waiting for ${svc.replicas} instance(s) to be healthy`);
      await Promise.all(started.map(({ inst, handle }) => waitHealthy({
        port: inst.port, healthcheck: svc.healthcheck, exited: handle.exited, label: `${inst.name} (log: ${inst.log})`,
      })));
      if (svc.local.post_start) {
        const [cmd, ...args] = svc.local.post_start.map((v) => fillPlaceholders(v, { ...baseCtx, port: ports[name][0], index: 1, data: '' }));
        await run(cmd === 'node' && fs.existsSync(NODE24) ? NODE24 : cmd, args, {
          cwd: topology.dir, env: { ...process.env, PATH: toolPath(), ...entry.instances[0].env },
          logFile: path.join(runDir, 'logs', `${name}-post-start.log`), label: `${name} post_start`,
        });
      }
      if (svc.ports.length && !state.url) state.url = entry.instances[0].url;
    }
    if (!state.url) {
      const last = [...order].reverse().find((n) => state.services[n].instances?.length && !state.services[n].oneshot);
      state.url = last ? state.services[last].instances[0].url : undefined;
    }
    writeState(state);
    return state;
  } catch (err) {
    await down({ runDir });
    throw err;
  }
}

// `cpuset` (CPU list, e.g. "1" or "2-5") pins every process of the run; `budget` (CPUs) caps the
// whole run with one quota; `priority` puts it ahead of other load on the machine. The benchmark
// uses all three to give the load generator CPUs of its own and keep the rest of the box out.
function isolationOf(opts) {
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

/** CPU time, throttling and memory of a running topology (see usage.js). */
export function usage({ runDir = DEFAULT_RUN_DIR } = {}) {
  const state = readState(path.resolve(runDir));
  if (!state) throw new Error(`nothing running from ${runDir}`);
  return usageOf(state);
}

function findInstance(state, service, index) {
  const entry = state?.services?.[service];
  if (!entry) throw new Error(`no running service '${service}'${state ? ` (running: ${Object.keys(state.services).join(', ')})` : ''}`);
  const inst = entry.instances.find((i) => i.index === Number(index));
  if (!inst) throw new Error(`${service} has no instance ${index} (1..${entry.instances.length})`);
  return { entry, inst };
}

function killCgroupMembers(inst) {
  for (const dir of inst.cgroup ?? []) {
    try {
      for (const pid of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) sendSignal(Number(pid), 'SIGKILL');
    } catch { /* already gone */ }
  }
}

export async function down(opts = {}) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  const state = readState(runDir);
  if (!state) return { stopped: 0 };
  let stopped = 0;
  for (const name of [...(state.order ?? Object.keys(state.services))].reverse()) {
    const entry = state.services[name];
    if (!entry?.instances) continue;
    await Promise.all(entry.instances.map(async (inst) => {
      if (isAlive(inst.pid)) stopped += 1;
      await stopInstance(inst.pid, { signal: entry.stopSignal, graceMs: entry.stopGraceMs });
      killCgroupMembers(inst);
    }));
  }
  await new Promise((r) => setTimeout(r, 100));
  const left = cgroup.removeRun(state.runId ?? runIdOf(runDir));
  fs.rmSync(stateFile(runDir), { force: true });
  return { stopped, cgroupsLeft: left };
}

export function ps(opts = {}) {
  const state = readState(path.resolve(opts.runDir ?? DEFAULT_RUN_DIR));
  if (!state) return [];
  return Object.entries(state.services).flatMap(([service, entry]) => (entry.skipped
    ? [{ service, index: '-', pid: '-', url: `(skipped: ${entry.skipped})`, status: 'skipped' }]
    : entry.instances.map((i) => ({ service, index: i.index, pid: i.pid, url: entry.oneshot ? '-' : i.url,
      status: isAlive(i.pid) ? 'running' : entry.oneshot ? 'completed' : 'exited', children: childPids(i.pid) }))));
}

// kill -9 reaches the whole instance (as when a container dies); other signals go to its main process.
export async function signal({ runDir = DEFAULT_RUN_DIR, service, index, signal: sig = 'SIGKILL' }) {
  const state = readState(path.resolve(runDir));
  const { inst } = findInstance(state, service, index);
  if (!isAlive(inst.pid)) throw new Error(`${inst.name} (pid ${inst.pid}) is not running`);
  sendSignal(inst.pid, sig, { group: sig === 'SIGKILL' || sig === 9 });
  return inst;
}

export async function restart({ runDir = DEFAULT_RUN_DIR, service, index }) {
  const state = readState(path.resolve(runDir));
  const { entry, inst } = findInstance(state, service, index);
  await stopInstance(inst.pid, { signal: entry.stopSignal, graceMs: entry.stopGraceMs });
  killCgroupMembers(inst);
  if (inst.cgroup) {
    const group = cgroup.createGroup(state.runId, inst.name, { cpus: entry.cpus, memoryBytes: entry.memoryBytes });
    inst.cgroup = group.dirs;
    inst.cgroupProcs = group.procs;
  }
  const handle = launch(state, service, inst);
  writeState(state);
  await waitHealthy({ port: inst.port, healthcheck: entry.healthcheck, exited: handle.exited, label: `${inst.name} (log: ${inst.log})` });
  return inst;
}
