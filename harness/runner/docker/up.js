// Starting a run on Docker: the sample's own compose.yaml (and compose.override.yaml, as
// `docker compose` reads it) plus the run's override (override.js), `docker compose -p <project>
// up -d --wait [--build]`, the knobs as interpolation variables exactly as for the processes backend.
// A service that fails to start or to get healthy stops the run with its name, its state and its
// last log line, and nothing is left behind.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { LAB_FILE, resolveSample } from '../common/compose.js';
import { validateKnobs } from '../common/options.js';
import { isolationOf } from '../common/isolation.js';
import { DEFAULT_RUN_DIR, runIdOf } from '../common/run-dir.js';
import { cgroupLayout } from './connection.js';
import { createRunParent } from './cgroups.js';
import { writeOverride, ownPortServices, placementOf } from './override.js';
import { freePortRange } from '../../lib/ports.js';
import { composeArgv, containers, envOf, lastLogLine, projectOf, sampleConfig, servicesOf } from './project.js';
import { createRecord, readRecord, updateRecord } from './record.js';
import { down } from './down.js';

const UP_TIMEOUT_S = 600;

// `docker compose … up` without blocking the event loop (a Ctrl-C reaches the caller's handler).
function composeUp(record, args) {
  return new Promise((resolve) => {
    const child = spawn('docker', composeArgv(record, args), {
      cwd: record.sampleDir,
      env: envOf(record),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', (err) => resolve({ code: 127, out: err.message }));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

// Why `up --wait` failed: the first service whose container is not running or not healthy.
function failureOf(record, out) {
  const bad = containers(record).find(
    (c) => !c.oneshot && (!c.running || c.health === 'unhealthy' || c.health === 'starting'),
  );
  const said = out.trim().split('\n').filter(Boolean).slice(-2).join(' | ');
  if (!bad) return said || 'docker compose up failed';
  const state = bad.running ? `health ${bad.health}` : `${bad.status}, exit ${bad.exit}`;
  return `service ${bad.service}: ${state}; its last log line: ${lastLogLine(record, bad.service)} (compose: ${said})`;
}

// A run already recorded in runDir: an error while it runs, else what is left of it goes.
async function clearOldRun(runDir) {
  const existing = readRecord(runDir);
  if (!existing) return;
  let running = [];
  try { running = containers(existing).filter((c) => c.running); } catch { /* its engine is gone */ }
  if (running.length) {
    throw new Error(
      `${existing.sample} is already running on Docker from ${runDir}: run \`make down ENGINE=docker\` first`,
    );
  }
  await down({ runDir });
}

// As `docker compose` picks its files: COMPOSE_FILE (e.g. compose.yaml:compose.postgres.yaml),
// else compose.yaml and, if there is one, compose.override.yaml; then `extra`; then the sample's
// lab file (compose.lab.yaml: the experiments' knobs reach the containers as the local runner's).
export function composeFiles(sampleDir, env, extra = []) {
  const listed = (env?.COMPOSE_FILE ?? process.env.COMPOSE_FILE)?.split(':').filter(Boolean);
  const own = ['compose.yaml', 'compose.override.yaml'].filter((f) => fs.existsSync(path.join(sampleDir, f)));
  const files = [...(listed?.length ? listed : own), ...extra];
  const lab = fs.existsSync(path.join(sampleDir, LAB_FILE)) && !files.includes(LAB_FILE) ? [LAB_FILE] : [];
  return [...files, ...lab];
}

// The record of the run about to start: the engine, the files, the knobs, and its placement (the
// run's cgroup_parent, the loopback port ranges and the override that applies them).
async function newRecord(runDir, opts, engine) {
  const { name: sample, dir: sampleDir } = resolveSample(opts.sample);
  const isolation = isolationOf(opts);
  const runId = runIdOf(runDir);
  const files = composeFiles(sampleDir, opts.env, opts.files);
  /** @type {Record<string, any>} */
  const record = {
    engine: 'docker', sample, sampleDir, runDir, runId, project: projectOf(runDir), host: engine.host,
    privateEngine: engine.private, engineVersion: engine.version, files, env: opts.env ?? {}, isolation,
    startedAt: new Date().toISOString(), phase: 'starting',
  };
  const config = sampleConfig(record);
  Object.assign(record, createRunParent(runId, cgroupLayout(engine.host), isolation), { ranges: {} });
  for (const [name, count] of Object.entries(ownPortServices(config))) record.ranges[name] = await freePortRange(count);
  record.files = [...files, writeOverride(runDir, config, placementOf(record))];
  return { record: createRecord(record), config };
}

/**
 * Same options as the processes backend's up() (contract.js UpOptions), and `files`: more compose
 * files of the sample to add. `ensureEngine` finds or starts the engine (connection.js).
 * Returns the run's state: { engine: 'docker', sample, url, services, cpuLimits, … }.
 * @param {import('../common/contract.js').UpOptions} opts
 * @param {(o: { log?: (line: string) => void }) => Promise<import('../common/contract.js').EngineInfo>} ensureEngine
 */
export async function up(opts, ensureEngine) {
  const runDir = path.resolve(opts.runDir ?? DEFAULT_RUN_DIR);
  const log = opts.log ?? (() => {});
  validateKnobs(opts.env ?? {});
  resolveSample(opts.sample);
  isolationOf(opts);
  await clearOldRun(runDir);
  const engine = await ensureEngine({ log });
  const { record, config } = await newRecord(runDir, opts, engine);
  const build = opts.build === false ? [] : ['--build'];
  const args = ['up', '-d', '--wait', '--wait-timeout', String(UP_TIMEOUT_S), ...build,
    ...(opts.noDeps ? ['--no-deps'] : []), ...(opts.services ?? [])];
  log(`docker compose -p ${record.project} up --wait${build.map((b) => ` ${b}`).join('')}`
    + `${opts.services ? ` ${opts.services.join(' ')}` : ''} (engine: docker)`);
  const res = await composeUp(record, args);
  if (res.code !== 0) {
    const why = failureOf(record, res.out);
    await down({ runDir });
    throw new Error(`${record.sample} did not start on Docker: ${why}`);
  }
  return updateRecord(record, (r) => Object.assign(r, upState(record, config)));
}

// The state once up: each service's containers, and the URL to send traffic to (the first
// service the sample itself publishes, i.e. its nginx; else the last one started).
function upState(record, config) {
  const services = servicesOf(containers(record));
  const published = Object.keys(config.services).filter((n) => config.services[n].ports?.length && services[n]);
  const entry = services[published[0]] ?? Object.values(services).at(-1);
  return { services, url: entry?.instances[0]?.url, phase: 'up' };
}
