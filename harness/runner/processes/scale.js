// `make scale`: a running service to N instances, as `docker compose up --scale` does. New
// instances start on ports of their own and nginx sends to them once they are healthy; removed
// ones (the highest numbers first) leave nginx's upstream before they get the stop sequence, so
// their requests in flight finish. A new instance that never gets healthy is stopped and taken
// out again; the others keep serving.
import fs from 'node:fs';
import { loadTopology } from '../common/compose.js';
import { waitHealthy } from '../common/health.js';
import { freePort } from '../../lib/ports.js';
import { checkReplicas } from '../common/options.js';
import { DEFAULT_RUN_DIR } from '../common/run-dir.js';
import { portsOf } from './spec.js';
import { call, exitedOf, readState } from './supervisor-client.js';
import { proxiesOf } from './instances.js';
import { startInstance } from './up.js';
import { claimService, switchProxies } from './service-change.js';
import { writeTargets } from './prometheus.js';

// Stops instances on purpose, takes them out of the run, and removes their cgroups.
async function removeInstances(runDir, service, instances) {
  for (const inst of instances) {
    await call(runDir, 'remove', { service, index: inst.index }, { timeoutMs: 5 * 60_000 });
    for (const dir of inst.cgroup ?? []) { try { fs.rmdirSync(dir); } catch { /* teardown reports what is left */ } }
  }
}

/**
 * Scales `service` of the run in runDir to `replicas` instances. Returns { sample, service, from,
 * to, added: [names], removed: [names], tookMs }. Throws one line for bad input.
 * @param {{ runDir?: string, sample?: string, service?: string, replicas?: number | string, log?: (line: string) =>
 * void }} options
 */
export async function scale({ runDir = DEFAULT_RUN_DIR, sample, service = 'app', replicas, log = () => {} }) {
  const wanted = checkReplicas(replicas);
  const claim = await claimService({ runDir, sample, service, op: 'scale' });
  const { state, entry } = claim;
  runDir = claim.runDir;
  const began = Date.now();
  try {
    if (entry.spec?.local?.nginx) throw new Error(`${service} is the proxy: scale the service behind it`);
    if (entry.spec?.ports?.length && wanted > 1)
      throw new Error(`${service} publishes a port of its own, which ${wanted} instances can't share`);
    const proxies = proxiesOf(state, service);
    const from = entry.instances.length;
    const result = (added, removed) => ({
      sample: state.sample,
      service,
      from,
      to: wanted,
      added,
      removed,
      tookMs: Date.now() - began,
    });
    if (wanted === from) return result([], []);

    if (wanted < from) {
      const gone = entry.instances.slice(wanted);
      const kept = entry.instances.slice(0, wanted);
      if (proxies.length) {
        log(`nginx: sending to ${kept.map((i) => i.name).join(', ')} only`);
        await switchProxies(state, proxies, { ...portsOf(state), [service]: kept.map((i) => i.port) });
      }
      log(`stopping ${gone.map((i) => i.name).join(', ')}`);
      await removeInstances(runDir, service, gone);
      await writeTargets(runDir);
      return result([], gone.map((i) => i.name));
    }

    const topology = { sample: state.sample, dir: state.sampleDir, vars: loadTopology(state.sampleDir).vars };
    const ctx = { ports: portsOf(state), listen: {}, run: runDir };
    const last = Math.max(...entry.instances.map((i) => i.index));
    const started = [];
    for (let index = last + 1; started.length < wanted - from; index += 1) {
      const inst = await startInstance(runDir, {
        topology,
        svc: entry.spec,
        index,
        port: await freePort(),
        ctx,
        runId: state.runId,
        cpuLimits: state.cpuLimits,
      });
      log(`${inst.name}: started on port ${inst.port}`);
      started.push(inst);
    }
    try {
      await Promise.all(started.map((inst) => waitHealthy({
        port: inst.port, healthcheck: entry.healthcheck, label: `${inst.name} (log: ${inst.log})`, log: inst.log,
        exited: exitedOf(runDir, inst.pid),
      })));
    } catch (err) {
      await removeInstances(runDir, service, started);
      throw new Error(`scale stopped: ${err.message}; the ${from} instance(s) before it keep serving`, { cause: err });
    }
    if (proxies.length) {
      const now = await readState(runDir);
      log(`nginx: sending to ${now.services[service].instances.map((i) => i.name).join(', ')}`);
      await switchProxies(now, proxies, portsOf(now));
    }
    await writeTargets(runDir);
    return result(started.map((i) => i.name), []);
  } finally {
    await claim.release();
  }
}
