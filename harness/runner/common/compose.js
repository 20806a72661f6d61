// Reads a sample's compose.yaml — its one description — into the topology the runner starts, with
// compose.override.yaml on top when there is one (as `docker compose up` reads them), and the
// sample's lab file on top of both: compose.lab.yaml, what only the harness reads (x-local, x-bench,
// the experiments' knobs), so the deployment files carry none of it.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import dotenv from 'dotenv';
import { interpolateDeep } from './interpolate.js';
import { durationMs, sizeBytes } from './units.js';
import { parseRestartPolicy } from './restart-policy.js';
import { REPO_ROOT } from '../../lib/repo-root.js';

export function listSamples() {
  return fs.readdirSync(REPO_ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(REPO_ROOT, d.name, 'compose.yaml')))
    .map((d) => d.name)
    .sort();
}

/**
 * The secret files a sample's compose.yaml names (top-level `secrets:` with a `file:`) that are not
 * there, as paths relative to the repository (or absolute outside it). Both engines need them.
 * @param {string} dir the sample's folder
 * @returns {string[]}
 */
export function missingSecretFiles(dir) {
  const doc = YAML.parse(fs.readFileSync(path.join(dir, 'compose.yaml'), 'utf8')) ?? {};
  return Object.values(doc.secrets ?? {})
    .filter((s) => s && typeof s.file === 'string')
    .map((s) => path.resolve(dir, s.file))
    .filter((f) => !fs.existsSync(f))
    .map((f) => (f.startsWith(`${REPO_ROOT}${path.sep}`) ? path.relative(REPO_ROOT, f) : f));
}

export function resolveSample(sample) {
  if (!sample) throw new Error(`no sample given: use SAMPLE=<${listSamples().join('|')}>`);
  const dir = path.resolve(REPO_ROOT, sample);
  if (!fs.existsSync(path.join(dir, 'compose.yaml'))) {
    throw new Error(`unknown sample '${sample}': expected one of ${listSamples().join(', ')}`);
  }
  return { name: path.basename(dir), dir };
}

// Compose reads `.env` beside the file; a fresh clone only has `.env.example`.
function envFilePath(dir, file = '.env') {
  const wanted = path.resolve(dir, file);
  if (fs.existsSync(wanted)) return wanted;
  const example = `${wanted}.example`;
  return fs.existsSync(example) ? example : undefined;
}

function readEnvFile(file) {
  return file ? dotenv.parse(fs.readFileSync(file)) : {};
}

function toMap(entries) {
  if (!entries) return {};
  if (!Array.isArray(entries)) {
    return Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, v === null ? '' : String(v)]));
  }
  return Object.fromEntries(entries.map((line) => {
    const at = String(line).indexOf('=');
    return at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 1)];
  }));
}

// Compose's long form of depends_on: the short list means service_started.
function dependsOnMap(raw) {
  if (!Array.isArray(raw)) return raw ?? {};
  return Object.fromEntries(raw.map((name) => [name, { condition: 'service_started' }]));
}

function dependsOn(raw) {
  return Object.fromEntries(
    Object.entries(dependsOnMap(raw)).map(([name, spec]) => [name, spec?.condition ?? 'service_started']),
  );
}

const isMapping = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// `docker compose up` without -f reads compose.override.yaml on top of compose.yaml; so does the
// runner (the samples keep their start conditions there: Swarm's loader takes only short-form
// depends_on). As Compose merges: mappings key by key, environment and depends_on in their mapping
// form; any other value, lists included, is replaced (Compose appends a few lists, such as ports).
const MAPPING_FORM = new Map([['depends_on', dependsOnMap], ['environment', toMap]]);

function mergeCompose(base, over) {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null) continue; // `nginx:` with nothing under it changes nothing
    const normal = MAPPING_FORM.get(key) ?? ((v) => v);
    const [a, b] = [normal(out[key]), normal(value)];
    out[key] = isMapping(a) && isMapping(b) ? mergeCompose(a, b) : b;
  }
  return out;
}

// A file with the files its top-level `include:` names (paths, or { path }) merged under it, as
// Compose adds their services: the samples' compose.override.yaml includes prometheus/compose.yaml.
// An included file's relative paths are its own folder's: its bind mounts, rewritten from dir's.
function readWithIncludes(dir, file) {
  const doc = YAML.parse(fs.readFileSync(path.join(dir, file), 'utf8')) ?? {};
  const { include = [], ...own } = doc;
  const sub = path.dirname(file);
  if (sub !== '.') {
    for (const svc of Object.values(own.services ?? {})) {
      if (!Array.isArray(svc?.volumes)) continue;
      svc.volumes = svc.volumes.map((v) => (typeof v === 'string' && v.startsWith('.') ? path.join(sub, v) : v));
    }
  }
  return [include].flat().map((i) => (typeof i === 'string' ? i : i.path))
    .reduce((acc, f) => mergeCompose(readWithIncludes(dir, path.join(sub, f)), acc), own);
}

/** The file of a sample that only the harness reads, merged on top of its compose files. */
export const LAB_FILE = 'compose.lab.yaml';

/**
 * A sample's compose files as the harness reads them, not interpolated: compose.yaml, then
 * compose.override.yaml and compose.lab.yaml on top where they exist, each with what it includes.
 * @param {string} dir the sample's folder
 */
export function readCompose(dir) {
  const read = (file) => readWithIncludes(dir, file);
  return ['compose.override.yaml', LAB_FILE]
    .filter((file) => fs.existsSync(path.join(dir, file)))
    .reduce((doc, file) => mergeCompose(doc, read(file)), read('compose.yaml'));
}

function parsePorts(raw = []) {
  return raw.map((spec) => {
    if (typeof spec === 'object') return { host: Number(spec.published), container: Number(spec.target) };
    const parts = String(spec).split(':');
    const container = Number(parts.at(-1).split('/')[0]);
    const host = parts.length > 1 ? Number(parts.at(-2)) : container;
    return { host, container };
  });
}

/**
 * A compose healthcheck as the runner checks it: { kind: 'http' | 'tcp', path?, intervalMs, timeoutMs,
 * retries, startPeriodMs }.
 */
export function parseHealthcheck(raw) {
  if (!raw || raw.disable) return { kind: 'tcp', intervalMs: 1000, timeoutMs: 2000, retries: 30, startPeriodMs: 0 };
  const test = Array.isArray(raw.test) ? raw.test.join(' ') : String(raw.test ?? '');
  const url = /https?:\/\/(?:127\.0\.0\.1|localhost|0\.0\.0\.0)(?::(\d+))?(\/[^\s"'|;]*)?/.exec(test);
  return {
    kind: url ? 'http' : 'tcp',
    path: url ? (url[2] ?? '/') : undefined,
    intervalMs: durationMs(raw.interval, 30_000),
    timeoutMs: durationMs(raw.timeout, 30_000),
    retries: Number(raw.retries ?? 3),
    startPeriodMs: durationMs(raw.start_period, 0),
  };
}

function parseVolumes(raw = [], dir) {
  return raw.filter((v) => typeof v === 'string' && v.includes(':')).map((v) => {
    const [src, dst] = v.split(':');
    return { src: path.resolve(dir, src), dst };
  }).filter((v) => v.src.startsWith('/') && fs.existsSync(v.src));
}

function replicasOf(name, svc) {
  const raw = svc.deploy?.replicas ?? svc.scale ?? 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    throw new Error(`${name}: replicas must be a whole number from 1 to 64 (got '${raw}')`);
  }
  return n;
}

function cpusOf(name, svc) {
  const raw = svc.deploy?.resources?.limits?.cpus ?? svc.cpus;
  if (raw === undefined || raw === '' || raw === null) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: cpus must be a positive number like 0.5 (got '${raw}')`);
  return n;
}

// As Compose: a service with `profiles:` runs only when one of them is asked for (COMPOSE_PROFILES,
// comma-separated; `*` for all), e.g. the samples' `metrics` profile.
function inActiveProfile(svc, vars) {
  if (!Array.isArray(svc.profiles) || !svc.profiles.length) return true;
  const active = new Set(String(vars.COMPOSE_PROFILES ?? '').split(',').map((p) => p.trim()).filter(Boolean));
  return active.has('*') || svc.profiles.some((p) => active.has(p));
}

export function loadTopology(sample, callerEnv = process.env) {
  const { name, dir } = resolveSample(sample);
  const vars = { ...readEnvFile(envFilePath(dir)), ...callerEnv };
  const doc = interpolateDeep(readCompose(dir), vars);
  const services = {};
  for (const [svcName, svc] of Object.entries(doc.services ?? {})) {
    if (!inActiveProfile(svc, vars)) continue;
    const envFiles = [svc.env_file ?? []].flat().map((f) => (typeof f === 'string' ? f : f.path));
    const fromFiles = Object.assign({}, ...envFiles.map((f) => readEnvFile(envFilePath(dir, f))));
    const local = svc['x-local'] ?? {};
    services[svcName] = {
      name: svcName,
      replicas: replicasOf(svcName, svc),
      cpus: cpusOf(svcName, svc),
      memoryBytes: sizeBytes(svc.deploy?.resources?.limits?.memory ?? svc.mem_limit),
      environment: { ...fromFiles, ...toMap(svc.environment) },
      healthcheck: parseHealthcheck(svc.healthcheck),
      dependsOn: dependsOn(svc.depends_on),
      ports: parsePorts(svc.ports),
      // Listened on, reached only from the service network (never published): locally a loopback port.
      expose: (svc.expose ?? []).map((p) => Number(String(p).split('/')[0])),
      volumes: parseVolumes(svc.volumes, dir),
      stopGraceMs: durationMs(svc.stop_grace_period, 10_000),
      restart: parseRestartPolicy(svc.restart, svcName),
      local: { port_env: 'PORT', ...local, environment: toMap(local.environment) },
    };
  }
  for (const svc of Object.values(services)) {
    for (const dep of Object.keys(svc.dependsOn)) {
      if (!services[dep]) throw new Error(`${svc.name} depends on unknown service '${dep}'`);
    }
  }
  // A service some other service waits on with service_completed_successfully is a one-shot job.
  for (const svc of Object.values(services)) {
    for (const [dep, condition] of Object.entries(svc.dependsOn)) {
      if (condition === 'service_completed_successfully') services[dep].oneshot = true;
    }
  }
  return { sample: name, dir, vars, services };
}

// Start order: dependencies first; `wanted` limits it to those services (and, unless noDeps, theirs).
export function startOrder(topology, wanted, noDeps = false) {
  const { services } = topology;
  for (const name of wanted ?? []) {
    if (!services[name])
      throw new Error(`unknown service '${name}' in ${topology.sample}: ${Object.keys(services).join(', ')}`);
  }
  const order = [];
  const visiting = new Set();
  const visit = (name, chain) => {
    if (order.includes(name)) return;
    if (visiting.has(name)) throw new Error(`depends_on cycle: ${[...chain, name].join(' -> ')}`);
    visiting.add(name);
    if (!(noDeps && wanted)) for (const dep of Object.keys(services[name].dependsOn)) visit(dep, [...chain, name]);
    visiting.delete(name);
    order.push(name);
  };
  for (const name of wanted ?? Object.keys(services)) visit(name, []);
  return order;
}
