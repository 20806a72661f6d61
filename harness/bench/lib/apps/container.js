// Any service in a container image (a folder whose compose.yaml has a service with build: or image:,
// in any language) → a generated app folder for the Docker engine: the user's compose file as
// `docker compose config` resolves it (their .env and env_files read, paths made absolute), with
// the app's published ports, fixed container names and fixed network and volume names taken out
// (B replicas and several runs must coexist), its CPUs and replicas turned by the REPLICAS and CPUS
// knobs, and the repository's nginx in front. One container with B CPUs, or B replicas × 1 CPU.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { AppInputError } from './errors.js';
import { nginxService } from './nginx.js';
import { DEFAULT_REQUESTS, normalizeRequests } from './requests.js';

export const COMPOSE_FILES = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];
// Services that hold data rather than serve the requests (the app is never one of these).
const STORES = /postgres|mysql|mariadb|mongo|redis|valkey|memcached|rabbitmq|kafka|zookeeper|elasticsearch|mssql|sqlserver|minio/i;
// A runtime word from an image name: what the x-bench `runtime` says (labels; which strategies apply).
/** @type {[RegExp, string][]} */
const RUNTIMES = [
  [/\bnode\b|nodejs|\bbun\b|\bdeno\b/, 'node'], [/python|pypy|uvicorn|gunicorn/, 'python'], [/golang|\bgo\b/, 'go'],
  [/dotnet|aspnet/, 'dotnet'], [/ruby|rails/, 'ruby'], [/php/, 'php'], [/openjdk|temurin|java|corretto/, 'java'],
  [/rust/, 'rust'], [/busybox/, 'busybox'],
];

/** The compose file of `dir` (compose.yaml, …), or null. */
export const composeFileOf = (dir) => COMPOSE_FILES.find((f) => fs.existsSync(path.join(dir, f))) ?? null;

// `docker compose config`: client-side, no engine needed; interpolation, env files and paths resolved.
function resolvedConfig(dir, file) {
  const res = spawnSync('docker', ['compose', '-f', file, 'config', '--format', 'json'], {
    cwd: dir, encoding: 'utf8', timeout: 60_000,
  });
  if (/** @type {NodeJS.ErrnoException} */ (res.error)?.code === 'ENOENT') {
    throw new AppInputError('docker is not installed here, and a container app runs on Docker: run `make setup` '
      + '(it installs Docker Engine and Compose v2)');
  }
  if (res.status !== 0) {
    const last = (res.stderr || res.stdout).trim().split('\n').at(-1);
    throw new AppInputError(`${path.join(dir, file)}: docker compose config failed: ${last}`);
  }
  return JSON.parse(res.stdout);
}

function pickApp(services, dir, file) {
  const names = Object.keys(services);
  const built = names.filter((n) => services[n].build);
  const serving = names.filter((n) => !STORES.test(services[n].image ?? '') && !STORES.test(n));
  const pick = names.length === 1 ? names : built.length === 1 ? built : serving.length === 1 ? serving : [];
  if (pick.length === 1) return pick[0];
  throw new AppInputError(
    `${path.join(dir, file)} has services ${names.join(', ')}: say which one serves the requests with SERVICE=<name>`);
}

// The port the app listens on in its container: its published ports' target, expose, PORT, or the
// port its healthcheck asks on loopback.
function portOf(svc) {
  const test = [].concat(svc.healthcheck?.test ?? []).join(' ');
  const candidates = [
    svc.ports?.[0]?.target, svc.expose?.[0], svc.environment?.PORT, /(?:127\.0\.0\.1|localhost):(\d+)/.exec(test)?.[1],
  ];
  return candidates.map(Number).find((p) => Number.isInteger(p) && p > 0) ?? null;
}

function runtimeOf(svc, x) {
  if (x.runtime) return String(x.runtime);
  let from = svc.image ?? '';
  if (svc.build) {
    const dockerfile = path.resolve(svc.build.context, svc.build.dockerfile ?? 'Dockerfile');
    try {
      from = /^\s*FROM\s+(?:--\S+\s+)*(\S+)/im.exec(fs.readFileSync(dockerfile, 'utf8'))?.[1] ?? from;
    } catch { /* inline or remote */ }
  }
  return RUNTIMES.find(([re]) => re.test(from.toLowerCase()))?.[1] ?? 'container';
}

// A service as every run may start it: no null field, no fixed container name, no published port.
const portable = (svc) => Object.fromEntries(Object.entries(svc)
  .filter(([k, v]) => v !== null && v !== undefined && k !== 'container_name' && k !== 'ports'));
// Names Compose would give every run the same (the user's project's): each run gets its own.
const unnamed = (defs = {}) => Object.fromEntries(Object.entries(defs).map(([k, v]) => {
  if (!v || v.external) return [k, v];
  const { name: _name, ...rest } = v;
  return [k, rest];
}));

/** The health path the app's own compose healthcheck asks for, or null. */
export function healthFromCheck(svc) {
  const test = [].concat(svc?.healthcheck?.test ?? []).join(' ');
  const url = /https?:\/\/(?:127\.0\.0\.1|localhost|0\.0\.0\.0)(?::\d+)?(\/[^\s"'|;]*)?/.exec(test);
  return url ? (url[1] ?? '/') : null;
}

/**
 * What a Node folder's own compose.yaml says of it, read as plain YAML (no engine needed): the health
 * path of its app service's healthcheck, and its x-bench `requests` and `health`. {} without one.
 * @param {string} dir @returns {{ health?: string, requests?: object[] }}
 */
export function ownDescription(dir) {
  const file = composeFileOf(dir);
  if (!file) return {};
  let doc;
  try {
    doc = YAML.parse(fs.readFileSync(path.join(dir, file), 'utf8')) ?? {};
  } catch (e) {
    throw new AppInputError(`${path.join(dir, file)} is not valid YAML (${e.message.split('\n')[0]}): fix it`);
  }
  const services = doc.services ?? {};
  const names = Object.keys(services);
  const x = doc['x-bench'] ?? {};
  return saidOf(x, services[x.app ?? (names.length === 1 ? names[0] : names.find((n) => services[n]?.build))], file);
}

// The health path and requests of app service `svc`: those `given`, else what the compose file says
// (x-bench's, else its healthcheck's path; x-bench's requests, checked), else undefined.
/** @param {{ health?: string, requests?: object[] }} [given] */
const saidOf = (x, svc, file, given = {}) => ({
  health: given.health ?? x.health ?? healthFromCheck(svc) ?? undefined,
  requests: given.requests ?? (x.requests ? normalizeRequests(x.requests, `x-bench.requests of ${file}`) : undefined),
});

// The generated compose file: the services, the user's networks and volumes under names of this
// run's own, their secrets and configs, and the x-bench description.
const generatedCompose = (config, services, xbench) => ({
  services,
  ...(config.networks ? { networks: unnamed(config.networks) } : {}),
  ...(config.volumes ? { volumes: unnamed(config.volumes) } : {}),
  ...(config.secrets ? { secrets: config.secrets } : {}),
  ...(config.configs ? { configs: config.configs } : {}),
  'x-bench': xbench,
});

/**
 * Writes the generated folder `genDir` for the compose folder `dir`; returns its x-bench description.
 * @param {{ dir: string, genDir: string, name: string, service?: string, health?: string, requests?: object[] }} o
 */
export function containerApp({ dir, genDir, name, service, health, requests }) {
  const file = composeFileOf(dir);
  const config = resolvedConfig(dir, file);
  const x = config['x-bench'] ?? {};
  const services = config.services ?? {};
  const app = service ?? x.app ?? pickApp(services, dir, file);
  const svc = services[app];
  if (!svc) {
    throw new AppInputError(
      `${path.join(dir, file)} has no service '${app}' (it has ${Object.keys(services).join(', ')}): fix SERVICE=`);
  }
  if (!svc.build && !svc.image) {
    throw new AppInputError(
      `service '${app}' in ${path.join(dir, file)} has neither build: nor image: so there is nothing to run`);
  }
  const port = portOf(svc);
  if (!port) {
    throw new AppInputError(`can't tell which port service '${app}' listens on in its container: `
      + `add \`expose: ["<port>"]\` (or ports:) to it in ${file}`);
  }
  const proxy = services.nginx ? 'bench-nginx' : 'nginx';

  const out = Object.fromEntries(Object.entries(services).map(([n, s]) => [n, portable(s)]));
  const { scale: _scale, ...appService } = out[app]; // the REPLICAS knob sets deploy.replicas, and Compose refuses both
  out[app] = {
    ...appService,
    // A build the bench starts again for every deployment reuses one tag (Compose would name it per project).
    ...(svc.build && !svc.image ? { image: `scaling-lab-app/${name}-${app}:local` } : {}),
    environment: { PORT: String(port), ...(svc.environment ?? {}) },
    deploy: {
      ...(svc.deploy ?? {}),
      replicas: '${REPLICAS:-1}',
      resources: {
        ...(svc.deploy?.resources ?? {}),
        limits: { ...(svc.deploy?.resources?.limits ?? {}), cpus: '${CPUS:-1}' },
      },
    },
    restart: svc.restart ?? 'on-failure',
  };
  out[proxy] = nginxService(genDir, { app, port, healthy: Boolean(svc.healthcheck && !svc.healthcheck.disable) });
  const runtime = runtimeOf(svc, x);
  const said = saidOf(x, svc, file, { health, requests });
  const xbench = {
    app,
    proxy,
    ...(x.database ? { database: x.database } : {}),
    runtime,
    framework: String(x.framework ?? (runtime === 'container' ? (svc.image ?? app) : runtime)),
    name: String(x.name ?? name),
    health: said.health ?? '/',
    knobs: { instances: 'REPLICAS', cpus: 'CPUS', lb: 'LB' },
    strategies: ['one-process', 'replicas'],
    baseline: true,
    defaults: { LB: 'least_conn', REPLICAS: '1' },
    ...(x.warmup_min_s ? { warmup_min_s: x.warmup_min_s } : {}),
    workloads: {},
    requests: said.requests ?? DEFAULT_REQUESTS,
    post: null,
    writes: null,
    engines: ['docker'],
  };
  const compose = generatedCompose(config, out, xbench);
  const header = `# Generated by \`make bench APP=${dir}\` (harness/bench/lib/apps/container.js) from ${file}, as\n`
    + '# `docker compose config` resolves it; run on the Docker engine.\n';
  fs.writeFileSync(path.join(genDir, 'compose.yaml'), header + YAML.stringify(compose, { lineWidth: 0 }));
  const skipped = runtime === 'node' ? 'cluster, PM2 and reusePort' : 'in-container strategies';
  return {
    xbench,
    notes: [
      `${skipped} not measured: a container app is measured as one container with B CPUs against B replicas × 1 CPU`,
    ],
  };
}
