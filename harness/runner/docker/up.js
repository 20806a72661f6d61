// Starting a run on Docker: the sample's own compose.yaml (and compose.override.yaml, as
// `docker compose` reads it) plus the run's override (override.js), `docker compose -p <project>
// up -d --wait [--build]`, the knobs as interpolation variables exactly as for the processes backend.
// A service that fails to start or to get healthy stops the run with its name, its state and its
// last log line, and nothing is left behind.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import YAML from 'yaml';
import { resolveSample } from '../compose.js';
import { validateKnobs } from '../options.js';
import { isolationOf } from '../up.js';
import { DEFAULT_RUN_DIR, runIdOf } from '../state.js';
import { ensureEngine, cgroupLayout } from './connection.js';
import { createRunParent } from './cgroups.js';
import { writeOverride, ownPortServices } from './override.js';
import { freePortRange } from '../../lib/ports.js';
import { containers, lastLogLine, projectOf, readRecord, sampleConfig, writeRecord } from './project.js';
import { down } from './down.js';

const UP_TIMEOUT_S = 600;

// `docker compose … up` without blocking the event loop (a Ctrl-C reaches the caller's handler).
function composeUp(record, args) {
  return new Promise((resolve) => {
    const full = ['compose', '-p', record.project, ...record.files.flatMap((f) => ['-f', f]), ...args];
    const child = spawn('docker', full, { cwd: record.sampleDir, env: { ...process.env, ...record.env, ...(record.host ? { DOCKER_HOST: record.host } : {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', (err) => resolve({ code: 127, out: err.message }));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** The sample's own description of itself: x-bench (its proxy) and each service's x-local. */
export function sampleFile(sampleDir) {
  return YAML.parse(fs.readFileSync(path.join(sampleDir, 'compose.yaml'), 'utf8'));
}

// Why `up --wait` failed: the first service whose container is not running or not healthy.
function failureOf(record, out) {
  const bad = containers(record).find((c) => !c.oneshot && (!c.running || c.health === 'unhealthy' || c.health === 'starting'));
  const said = out.trim().split('\n').filter(Boolean).slice(-2).join(' | ');
  if (!bad) return said || 'docker compose up failed';
  const state = bad.running ? `health ${bad.health}` : `${bad.status}, exit ${bad.exit}`;
  return `service ${bad.service}: ${state}; its last log line: ${lastLogLine(record, bad.service)} (compose: ${said})`;
}

/**
 * Same options as the processes backend's up(): { sample, runDir, env, services, noDeps, cpuset,
 * budget, priority, build, log }, and `files`: more compose files of the sample to add.
 * Returns the run's state: { engine: 'docker', sample, url, services, cpuLimits, … }.
 */
export async function up(opts = {}) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  const log = opts.log ?? (() => {});
  validateKnobs(opts.env ?? {});
  const { name: sample, dir: sampleDir } = resolveSample(opts.sample);
  const isolation = isolationOf(opts);
  const existing = readRecord(runDir);
  if (existing) {
    let running = [];
    try { running = containers(existing).filter((c) => c.running); } catch { /* its engine is gone */ }
    if (running.length) throw new Error(`${existing.sample} is already running on Docker from ${runDir}: run \`make down ENGINE=docker\` first`);
    await down({ runDir });
  }
  const engine = await ensureEngine({ log });
  const runId = runIdOf(runDir);
  // As `docker compose` picks its files: COMPOSE_FILE (e.g. compose.yaml:compose.postgres.yaml),
  // else compose.yaml and, if there is one, compose.override.yaml.
  const listed = (opts.env?.COMPOSE_FILE ?? process.env.COMPOSE_FILE)?.split(':').filter(Boolean);
  const files = [...(listed?.length ? listed : ['compose.yaml', 'compose.override.yaml'].filter((f) => fs.existsSync(path.join(sampleDir, f)))), ...(opts.files ?? [])];
  /** @type {Record<string, any>} */
  const record = {
    engine: 'docker', sample, sampleDir, runDir, runId, project: projectOf(runDir), host: engine.host, privateEngine: engine.private,
    engineVersion: engine.version, files, env: opts.env ?? {}, isolation, startedAt: new Date().toISOString(), phase: 'starting',
  };
  const config = sampleConfig(record);
  const { cgroupParent, cpuLimits } = createRunParent(runId, cgroupLayout(engine.host), isolation);
  record.cgroupParent = cgroupParent;
  record.cpuLimits = cpuLimits;
  record.ranges = {};
  for (const [name, count] of Object.entries(ownPortServices(config))) record.ranges[name] = await freePortRange(count);
  record.files = [...files, writeOverride(runDir, config, { cpuset: isolation.cpuset, cgroupParent, ranges: record.ranges })];
  writeRecord(record);
  const args = ['up', '-d', '--wait', '--wait-timeout', String(UP_TIMEOUT_S), ...(opts.build === false ? [] : ['--build']),
    ...(opts.noDeps ? ['--no-deps'] : []), ...(opts.services ?? [])];
  log(`docker compose -p ${record.project} up --wait${opts.build === false ? '' : ' --build'}${opts.services ? ` ${opts.services.join(' ')}` : ''} (engine: docker)`);
  const res = await composeUp(record, args);
  if (res.code !== 0) {
    const why = failureOf(record, res.out);
    await down({ runDir });
    throw new Error(`${sample} did not start on Docker: ${why}`);
  }
  const state = finish(record, config);
  writeRecord(state);
  return state;
}

/** The record's services: { name: { restart, instances: [{ index, name, id, pid, url }] } } of these containers. */
export function servicesOf(list) {
  /** @type {Record<string, any>} */
  const services = {};
  for (const c of list) {
    services[c.service] ??= { restart: { name: c.restart }, instances: [] };
    services[c.service].instances.push({ index: c.index, name: c.name, id: c.id, pid: c.pid, url: c.url });
  }
  return services;
}

// The state once up: each service's containers, and the URL to send traffic to (the first
// service the sample itself publishes, i.e. its nginx; else the last one started).
function finish(record, config) {
  const services = servicesOf(containers(record));
  const published = Object.keys(config.services).filter((n) => config.services[n].ports?.length && services[n]);
  const entry = services[published[0]] ?? Object.values(services).at(-1);
  record.services = services;
  record.url = entry?.instances[0]?.url;
  record.phase = 'up';
  return record;
}
