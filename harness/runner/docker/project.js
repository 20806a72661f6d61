// A run on Docker: one Compose v2 project per run folder (its record: record.js), the docker and
// docker compose commands against the run's engine, and its containers as the engine sees them now.
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runIdOf } from '../common/run-dir.js';

/** The file name of the override a run adds to the sample's compose files (override.js). */
export const OVERRIDE = 'compose.engine.yaml';

/** The project name of a run folder (Compose: lower case, digits, - and _). */
export const projectOf = (runDir) => `lab-${runIdOf(path.resolve(runDir))}`;

/** The environment docker commands of a run get: the run's knobs, its engine's host. */
export const envOf = (record) => ({
  ...process.env,
  ...record.env,
  ...(record.host ? { DOCKER_HOST: record.host } : {}),
});

const why = (res) =>
  res.error ? res.error.message : (res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ');

/** `docker <args>` against the run's engine; throws one line unless check is false. */
export function docker(record, args, { timeout = 120_000, check = true } = {}) {
  const res = spawnSync('docker', args, { encoding: 'utf8', timeout, maxBuffer: 64 << 20, env: envOf(record) });
  if (check && res.status !== 0) throw new Error(`docker ${args.slice(0, 2).join(' ')}: ${why(res)}`);
  return res;
}

/** The arguments of `docker` for `docker compose -p <project> -f … <args>`. */
export const composeArgv = (record, args) => [
  'compose',
  '-p',
  record.project,
  ...record.files.flatMap((f) => ['-f', f]),
  ...args,
];

/** `docker compose -p <project> -f … <args>` in the sample's folder, with the run's knobs. */
export function compose(record, args, { timeout = 120_000, check = true } = {}) {
  const res = spawnSync('docker', composeArgv(record, args), {
    cwd: record.sampleDir, encoding: 'utf8', timeout, maxBuffer: 64 << 20, env: envOf(record),
  });
  if (check && res.status !== 0) throw new Error(`docker compose ${args.join(' ')}: ${why(res)}`);
  return res;
}

/** `docker compose config` of the sample's own files (the run's override left out), with the run's knobs. */
export function sampleConfig(record) {
  const own = { ...record, files: record.files.filter((f) => path.basename(f) !== OVERRIDE) };
  return JSON.parse(compose(own, ['config', '--format', 'json']).stdout);
}

/** The last line a service's containers logged (what it said before it failed). */
export function lastLogLine(record, service) {
  const res = compose(record, ['logs', '--no-log-prefix', '--tail', '1', service], { check: false, timeout: 30_000 });
  return (res.stdout + res.stderr).trim().split('\n').at(-1) || '(no output)';
}

// The first host port a container publishes on 127.0.0.1, as a URL.
function urlOf(c) {
  const bound = Object.values(c.NetworkSettings?.Ports ?? {}).flat().filter(Boolean);
  const mine = bound.find((b) => b.HostIp === '127.0.0.1') ?? bound[0];
  return mine ? `http://127.0.0.1:${mine.HostPort}` : null;
}

// The ports a container's own environment names (HTTP_PORT, METRICS_PORT, …): what the processes
// backend calls an instance's extraPorts, reached on the container's address (`host`).
const portsInEnv = (c) => Object.fromEntries((c.Config.Env ?? [])
  .map((kv) => /^(\w+_PORT)=(\d+)$/.exec(kv)).filter(Boolean).map((m) => [m[1], Number(m[2])]));

// One container as the engine's inspect shows it, in the backend's terms.
const rowOf = (c) => ({
  service: c.Config.Labels['com.docker.compose.service'],
  index: Number(c.Config.Labels['com.docker.compose.container-number']),
  name: c.Name.replace(/^\//, ''),
  id: c.Id,
  pid: c.State.Pid,
  running: c.State.Running,
  status: c.State.Status,
  health: c.State.Health?.Status ?? null,
  exit: c.State.Running ? undefined : String(c.State.ExitCode),
  restarts: c.RestartCount,
  restart: c.HostConfig.RestartPolicy?.Name || 'no',
  oneshot: c.HostConfig.RestartPolicy?.Name === 'no' && !c.State.Running && c.State.ExitCode === 0,
  url: urlOf(c),
  host: Object.values(c.NetworkSettings?.Networks ?? {}).map((n) => n.IPAddress).find(Boolean) ?? null,
  extraPorts: portsInEnv(c),
});

// Compose stamps its project and service labels on the images it builds, and a container inherits
// its image's labels: a Swarm task or a `docker run` of an image this run built carries the run's
// project label too. Only a container Compose itself created has a container number.
const OWN_CONTAINERS = (project) => [
  '--filter',
  `label=com.docker.compose.project=${project}`,
  '--filter',
  'label=com.docker.compose.container-number',
];

/** The docker commands that list what is left of a project: its containers (above), networks, volumes. */
export const LEFTOVER_QUERIES = (project) => {
  const label = ['--filter', `label=com.docker.compose.project=${project}`];
  return [
    ['ps', '-aq', ...OWN_CONTAINERS(project)],
    ['network', 'ls', '-q', ...label],
    ['volume', 'ls', '-q', ...label],
  ];
};

/**
 * Every container of the project (stopped ones too), in service and number order:
 * [{ service, index, name, id, pid, running, status, health, exit, restarts, restart, url }].
 */
export function containers(record) {
  const ids = docker(record, ['ps', '-aq', '--no-trunc', ...OWN_CONTAINERS(record.project)])
    .stdout.trim()
    .split('\n')
    .filter(Boolean);
  if (!ids.length) return [];
  // A container removed between the two calls is simply not listed.
  const res = docker(record, ['inspect', ...ids], { check: false });
  const list = /** @type {any[]} */ (JSON.parse(res.stdout || '[]'));
  return list.map(rowOf).sort((a, b) => a.service.localeCompare(b.service) || a.index - b.index);
}

/** One container of a service, by its number; a one-line error naming what there is. */
export function findContainer(record, service, index) {
  // By the name Compose gives it (<project>-<service>-<n>): one call to the engine, as the drills poll.
  const res = docker(record, ['inspect', '--type', 'container', `${record.project}-${service}-${Number(index)}`], {
    check: false,
  });
  const [one] = res.status === 0 ? /** @type {any[]} */ (JSON.parse(res.stdout || '[]')) : [];
  const labels = one?.Config?.Labels ?? {};
  const numbered = 'com.docker.compose.container-number' in labels;
  const ours = numbered && labels['com.docker.compose.project'] === record.project;
  if (ours && labels['com.docker.compose.service'] === service) return rowOf(one);
  const all = containers(record);
  const mine = all.filter((c) => c.service === service);
  if (!mine.length)
    throw new Error(
      `no service '${service}' in ${record.sample} (there are: ${[...new Set(all.map((c) => c.service))].join(', ')})`,
    );
  const c = mine.find((x) => x.index === Number(index));
  if (!c) throw new Error(`${service} has no instance ${index} (there are: ${mine.map((x) => x.index).join(', ')})`);
  return c;
}

/**
 * The record's services: { name: { restart, instances: [{ index, name, id, pid, url, host, extraPorts }] } }
 * of these containers.
 */
export function servicesOf(list) {
  /** @type {Record<string, any>} */
  const services = {};
  for (const c of list) {
    services[c.service] ??= { restart: { name: c.restart }, instances: [] };
    services[c.service].instances.push({
      index: c.index, name: c.name, id: c.id, pid: c.pid, url: c.url, host: c.host, extraPorts: c.extraPorts,
    });
  }
  return services;
}
