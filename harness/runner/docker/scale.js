// `make scale ENGINE=docker`: `docker compose up --scale <service>=N --no-recreate`, the containers
// there are kept. Added containers publish the service's own port from a new loopback range of
// their own (override.js); those started before keep theirs. Compose removes the highest numbers
// first, each with its stop signal and grace period; nginx stops sending to them when a connection
// is refused (its passive check) and forgets them when it re-resolves the name (proxy.js). After a
// scale down, a range has free ports: a container of it that restarts may take another one.
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { checkReplicas } from '../common/options.js';
import { compose, containers, docker, sampleConfig, servicesOf } from './project.js';
import { recordOf, updateRecord } from './record.js';
import { sampleFile } from './sample.js';
import { newRange } from './override.js';
import { proxyOf } from './proxy.js';

/**
 * Same options and result as the processes backend's scale():
 * { sample, service, from, to, added: [names], removed: [names], tookMs }.
 * @param {{ runDir?: string, service?: string, replicas?: number | string, log?: (line: string) => void }} options
 */
export async function scale({ runDir = DEFAULT_RUN_DIR, service = 'app', replicas, log = () => {} }) {
  const wanted = checkReplicas(replicas);
  const record = recordOf(runDir);
  const file = sampleFile(record.sampleDir);
  if (!file.services?.[service])
    throw new Error(
      `${record.sample} has no service '${service}' (there are: ${Object.keys(file.services ?? {}).join(', ')})`,
    );
  if (service === proxyOf(file)) throw new Error(`${service} is the proxy: scale the service behind it`);
  const config = sampleConfig(record);
  if (config.services[service].ports?.length && wanted > 1)
    throw new Error(`${service} publishes a port of its own, which ${wanted} instances can't share`);
  const began = Date.now();
  const before = containers(record).filter((c) => c.service === service);
  if (wanted > before.length) await newRange(record, service, wanted - before.length);
  log(`docker compose up --scale ${service}=${wanted} --no-recreate (engine: docker)`);
  const res = compose(
    record,
    ['up', '-d', '--wait', '--no-deps', '--no-recreate', '--scale', `${service}=${wanted}`, service],
    { check: false, timeout: 600_000 },
  );
  const after = containers(record).filter((c) => c.service === service);
  if (res.status !== 0) {
    // New containers that never got healthy go; the ones before keep serving.
    const known = new Set(before.map((c) => c.id));
    for (const c of after.filter((x) => !known.has(x.id))) docker(record, ['rm', '-f', c.id], { check: false });
    throw new Error(
      `scale stopped: ${(res.stderr || res.stdout || '').trim().split('\n').at(-1)}; the ${before.length} ` +
        `container(s) before it keep serving`,
    );
  }
  const services = servicesOf(containers(record));
  updateRecord(record, (r) => { r.services = services; });
  const names = (list, other) => list.filter((c) => !other.some((o) => o.id === c.id)).map((c) => c.name);
  return {
    sample: record.sample,
    service,
    from: before.length,
    to: after.length,
    added: names(after, before),
    removed: names(before, after),
    tookMs: Date.now() - began,
  };
}
