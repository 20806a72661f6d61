// The override file a run adds to the sample's own compose files (<runDir>/compose.engine.yaml):
// every published port bound to 127.0.0.1 (`!override`: replaces the sample's list); the app's own
// port published too, for measurements straight at the app, from a range of free loopback ports
// exactly as wide as the containers that use it: Docker gives a container that restarts the next
// free port of its range after the last one it handed out, so a range with no spare port gives it
// its own back (an ephemeral port would change, and a load sent to it would be lost). New
// containers (a reload's, a scale's) get a new range (newRange);
// and the run's CPU placement: `cpuset` on every service, and a `cgroup_parent` whose group carries
// the run's CPU budget (one quota over every container, as the processes backend's run group does);
// after a `place` (place.js), a service's quota per container too.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { freePortRange } from '../../lib/ports.js';
import { OVERRIDE, sampleConfig } from './project.js';
import { updateRecord } from './record.js';

// The port a service listens on inside its container: its PORT variable (the samples' x-local
// port_env), else the port its healthcheck asks on loopback.
export function containerPort(svc) {
  const fromEnv = Number(svc.environment?.PORT);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const test = [].concat(svc.healthcheck?.test ?? []).join(' ');
  const m = /(?:127\.0\.0\.1|localhost):(\d+)/.exec(test);
  return m ? Number(m[1]) : null;
}

// Published "0" or nothing: the engine picks a free port (each container of a scaled service its own).
const loopback = (target, published, protocol = 'tcp') => ({
  target, ...(published && published !== '0' ? { published: String(published) } : {}), host_ip: '127.0.0.1', protocol,
});

/** The services whose own port only the override publishes: { name: containers } (deploy.replicas or scale). */
export function ownPortServices(config) {
  return Object.fromEntries(Object.entries(config.services ?? {})
    .filter(([, svc]) => !(svc.ports ?? []).length && containerPort(svc))
    .map(([name, svc]) => [name, Number(svc.deploy?.replicas ?? svc.scale ?? 1)]));
}

/** The placement a run's record says the override applies: its cpuset, cgroup_parent, port ranges, quotas placed. */
export const placementOf = (record) => ({
  cpuset: record.isolation?.cpuset, cgroupParent: record.cgroupParent, ranges: record.ranges, cpus: record.cpus,
});

/**
 * config: `docker compose config --format json` of the sample's files with the run's knobs.
 * placement: { cpuset?: string, cgroupParent?: string }; ranges: { service: [first, last] }, the
 * host ports a service's own port is published from (else the engine picks one per container);
 * cpus: { service: CPUs per container } that `place` gave it, over the sample's own limit.
 * Writes the file; returns its path.
 * @param {string} runDir @param {any} config
 * @param {{ cpuset?: string, cgroupParent?: string | null, ranges?: Record<string, number[]>,
 *   cpus?: Record<string, number | null> }} [placement]
 */
export function writeOverride(runDir, config, { cpuset, cgroupParent, ranges = {}, cpus = {} } = {}) {
  const doc = new YAML.Document({ services: {} });
  for (const [name, svc] of Object.entries(config.services ?? {})) {
    /** @type {Record<string, any>} */
    const extra = {};
    const ports = (svc.ports ?? []).map((p) => loopback(p.target, p.published, p.protocol));
    const own = containerPort(svc);
    if (!ports.length && own)
      ports.push(loopback(own, ranges[name] ? [...new Set(ranges[name])].join('-') : undefined));
    if (ports.length) extra.ports = ports;
    if (cpuset) extra.cpuset = cpuset;
    if (cgroupParent) extra.cgroup_parent = cgroupParent;
    if (cpus[name]) extra.deploy = { resources: { limits: { cpus: String(cpus[name]) } } };
    doc.setIn(['services', name], doc.createNode(extra));
    if (ports.length) /** @type {any} */ (doc.getIn(['services', name, 'ports'], true)).tag = '!override';
  }
  const file = path.join(runDir, OVERRIDE);
  fs.mkdirSync(runDir, { recursive: true });
  fs.writeFileSync(
    file,
    `# Written by harness/runner/docker for this run: loopback ports and CPU placement.\n${doc.toString()}`,
  );
  return file;
}

/**
 * A new range of `count` loopback ports for the service's own port, for the containers about to
 * start (a reload's start-first ones, a scale's added ones); those running keep theirs. Rewrites
 * the override, and the record through record.js.
 */
export async function newRange(record, service, count) {
  if (!record.ranges?.[service]) return;
  const range = await freePortRange(count);
  updateRecord(record, (r) => { r.ranges[service] = range; });
  writeOverride(record.runDir, sampleConfig(record), placementOf(record));
}
