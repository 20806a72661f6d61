// The override file a run adds to the sample's own compose files (<runDir>/compose.engine.yaml):
// every published port bound to 127.0.0.1 (`!override`: replaces the sample's list); the app's own
// port published too, on a free loopback port per container, for measurements straight at the app;
// and the run's CPU placement: `cpuset` on every service, and a `cgroup_parent` whose group carries
// the run's CPU budget (one quota over every container, as the processes backend's run group does).
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

// The port a service listens on inside its container: its PORT variable (the samples' x-local
// port_env), else the port its healthcheck asks on loopback.
function containerPort(svc) {
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

/**
 * config: `docker compose config --format json` of the sample's files with the run's knobs.
 * placement: { cpuset?: string, cgroupParent?: string }. Writes the file; returns its path.
 * @param {string} runDir @param {any} config @param {{ cpuset?: string, cgroupParent?: string | null }} [placement]
 */
export function writeOverride(runDir, config, { cpuset, cgroupParent } = {}) {
  const doc = new YAML.Document({ services: {} });
  for (const [name, svc] of Object.entries(config.services ?? {})) {
    /** @type {Record<string, any>} */
    const extra = {};
    const ports = (svc.ports ?? []).map((p) => loopback(p.target, p.published, p.protocol));
    const own = containerPort(svc);
    if (!ports.length && own) ports.push(loopback(own));
    if (ports.length) extra.ports = ports;
    if (cpuset) extra.cpuset = cpuset;
    if (cgroupParent) extra.cgroup_parent = cgroupParent;
    doc.setIn(['services', name], doc.createNode(extra));
    if (ports.length) /** @type {any} */ (doc.getIn(['services', name, 'ports'], true)).tag = '!override';
  }
  const file = path.join(runDir, 'compose.engine.yaml');
  fs.mkdirSync(runDir, { recursive: true });
  fs.writeFileSync(file, `# Written by harness/runner/docker for this run: loopback ports and CPU placement.\n${doc.toString()}`);
  return file;
}
