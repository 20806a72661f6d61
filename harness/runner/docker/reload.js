// `make reload ENGINE=docker`: replace a service's containers one at a time, by the strategy its
// place in the topology allows (the processes backend's strategies, done with Compose):
//   proxy    containers behind the sample's nginx: start-first. `up --scale <n+1> --no-recreate`
//            starts a new container and waits until it is healthy; once nginx has re-resolved the
//            service's name (its resolver's valid=), the old container is stopped (it drains) and
//            removed. A new container that never gets healthy stops the rollout; the old ones serve.
//   signal   a service whose x-local names a reload signal (node-cluster: SIGHUP, the primary's own
//            rolling restart of its workers): sent to each container, then its old workers waited out;
//            containers of one process each (no workers) behind nginx are replaced as `proxy`.
//   nginx    nginx itself: `nginx -s reload` in each container.
//   restart  anything else: `docker restart`, one at a time (not zero-downtime).
import { setTimeout as sleep } from 'node:timers/promises';
import * as cgroup from '../common/cgroup.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { compose, containers, docker } from './project.js';
import { recordOf } from './record.js';
import { waitHealthy } from './instances.js';
import { sampleFile } from './sample.js';
import { proxyOf, reResolveMs } from './proxy.js';
import { newRange } from './override.js';

// Whether a container runs workers: processes beyond its first (tini) and its main program.
const hasWorkers = (record, c) => !record.cgroupParent || cgroup.instancePids(record.runId, c.id).length > 2;

function strategyOf(file, service, record, olds) {
  const svc = file.services?.[service];
  if (!svc)
    throw new Error(
      `no service '${service}' in the sample (there are: ${Object.keys(file.services ?? {}).join(', ')})`,
    );
  const proxy = proxyOf(file);
  if (service === proxy) return 'nginx';
  const proxied = Boolean(proxy && file.services[proxy]);
  // One process per container (node-cluster with clustering off): nothing for the signal to
  // replace it with; behind nginx it is replaced start-first.
  if (svc['x-local']?.reload_signal && (!proxied || olds.some((c) => hasWorkers(record, c)))) return 'signal';
  return proxied ? 'proxy' : 'restart';
}

async function proxyStep(record, service, old, count, log) {
  const ids = () => containers(record).filter((c) => c.service === service).map((c) => c.id);
  const before = new Set(ids());
  log(`${old.name}: starting a new container beside it`);
  const res = compose(
    record,
    ['up', '-d', '--wait', '--no-deps', '--no-recreate', '--scale', `${service}=${count + 1}`, service],
    { check: false, timeout: 600_000 },
  );
  if (res.status !== 0) {
    // The new container never got healthy: it goes, the old ones keep serving.
    for (const id of ids().filter((x) => !before.has(x))) docker(record, ['rm', '-f', id], { check: false });
    throw new Error(
      `reload stopped at ${old.name}: the new container did not get healthy ` +
        `(${(res.stderr || '').trim().split('\n').at(-1)}); the old containers keep serving`,
    );
  }
  const fresh = containers(record).find((c) => c.service === service && !before.has(c.id));
  await sleep(reResolveMs(record.sampleDir));
  log(`${old.name}: stopping it (it drains), nginx sends to the new one`);
  docker(record, ['stop', old.id], { timeout: 180_000 });
  docker(record, ['rm', old.id]);
  return { name: fresh?.name, pid: fresh?.pid };
}

async function signalStep(record, c, sig, log) {
  const before = new Set(cgroup.instancePids(record.runId, c.id));
  log(`${c.name}: ${sig} (its own rolling restart)`);
  process.kill(c.pid, sig);
  const deadline = Date.now() + 180_000;
  // Its workers: every process but the first (tini) and its child (the primary).
  for (;;) {
    await sleep(500);
    const now = cgroup.instancePids(record.runId, c.id);
    const stayed = now.filter((p) => before.has(p));
    const healthy = containers(record).find((x) => x.id === c.id)?.health !== 'unhealthy';
    if (stayed.length <= 2 && now.length > stayed.length && healthy)
      return { pid: c.pid, workers: now.filter((p) => !before.has(p)) };
    if (!record.cgroupParent || Date.now() > deadline) break;
  }
  await waitHealthy(record, c.id, { label: c.name });
  return { pid: c.pid };
}

/**
 * { runDir, service, log } -> { sample, service, strategy, zeroDowntime, tookMs, steps: [{ instance,
 * from, to, startedAt (epoch ms), tookMs }] }, the processes backend's shape.
 * @param {{ runDir?: string, service?: string, sample?: string, log?: (line: string) => void }} [options]
 */
export async function reload({ runDir = DEFAULT_RUN_DIR, service = 'app', log = () => {} } = {}) {
  const record = recordOf(runDir);
  const file = sampleFile(record.sampleDir);
  const began = Date.now();
  const olds = containers(record).filter((c) => c.service === service && c.running);
  if (!olds.length) throw new Error(`${service} has no running container`);
  const strategy = strategyOf(file, service, record, olds);
  // The new containers publish from a range of their own, as wide as the old ones' (override.js).
  if (strategy === 'proxy') await newRange(record, service, olds.length);
  const steps = [];
  for (const c of olds) {
    const t = Date.now();
    /** @type {Record<string, any>} */
    let to = { pid: c.pid };
    if (strategy === 'proxy') to = await proxyStep(record, service, c, olds.length, log);
    else if (strategy === 'signal')
      to = await signalStep(record, c, file.services[service]['x-local'].reload_signal, log);
    else if (strategy === 'nginx') docker(record, ['exec', c.id, 'nginx', '-s', 'reload']);
    else {
      log(`${c.name}: docker restart`);
      docker(record, ['restart', c.id], { timeout: 180_000 });
      to = { pid: (await waitHealthy(record, c.id, { label: c.name })).pid };
    }
    steps.push({ instance: c.name, from: { pid: c.pid }, to, startedAt: t, tookMs: Date.now() - t });
  }
  return {
    sample: record.sample,
    service,
    strategy,
    steps,
    tookMs: Date.now() - began,
    zeroDowntime: strategy !== 'restart',
  };
}
