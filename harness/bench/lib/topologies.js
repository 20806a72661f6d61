// A topology is what a measurement talks to: a sample started with some knobs, reached through its
// nginx or directly on the app. It is described by structured fields (and a stable id built from
// them), so results describe themselves. Several topologies can share one deployment (one start
// through the runner): "1 process, direct" and "1 process + nginx" are the same processes.
import { describeSample } from './samples.js';

const SHORT = { 'node:http': 'node', express: 'express', aspnet: 'dotnet' };
const NAME = { 'node:http': 'node:http', express: 'Express', aspnet: '.NET' };
const cpuText = (c) => `${Number(c.toFixed(3))} CPU`;

// Strategies that run n processes of the app in one container, each its own process manager: the
// sample's x-bench knob `process_manager` takes the strategy's name (node-cluster's PROCESS_MANAGER).
const PROCESS_MANAGERS = { reuseport: 'reusePort', pm2: 'PM2' };

/**
 * sample; strategy 'one process' | 'cluster' | 'replicas' | 'reuseport' | 'pm2'; n (workers,
 * processes or replicas);
 * budget (CPUs for the whole topology, split evenly over replicas — or, with quota 'each', given
 * whole to every instance: no per-instance quota, the run's budget caps them together; `cpus`
 * sets each instance's quota exactly); viaNginx; lb; env (extra knobs); cpuset 'sut' (the CPUs left
 * after the generator) or 'all'; tag (a deployment of its own, e.g. one an instance is killed in);
 * id/label to override the generated ones (experiments name their variants).
 * @param {{ sample: string, strategy: string, n?: number, budget?: number, quota?: string, cpus?: number, viaNginx?: boolean, lb?: string, env?: object, cpuset?: string, tag?: string, id?: string, label?: string }} spec
 */
export function topology({ sample, strategy, n = 1, budget, quota = 'split', cpus, viaNginx = false, lb, env = {}, cpuset = 'sut', tag, id, label }) {
  const s = describeSample(sample);
  const k = s.knobs;
  const knobs = { ...s.defaults };
  let instances = 1;
  let workers = 1;
  if (strategy === 'cluster') {
    if (!k.workers) throw new Error(`${sample} has no cluster knob (x-bench.knobs.workers)`);
    workers = n;
    knobs[k.workers] = String(n);
    if (k.clustering) knobs[k.clustering] = 'true';
    if (k.instances) knobs[k.instances] = '1';
  } else if (strategy === 'one process') {
    if (k.clustering) knobs[k.clustering] = 'false';
    if (k.instances) knobs[k.instances] = '1';
  } else if (strategy === 'replicas') {
    if (!k.instances) throw new Error(`${sample} has no replica knob (x-bench.knobs.instances)`);
    instances = n;
    knobs[k.instances] = String(n);
    if (k.clustering) knobs[k.clustering] = 'false';
  } else if (PROCESS_MANAGERS[strategy]) {
    if (!k.workers || !k.process_manager) throw new Error(`${sample} has no ${PROCESS_MANAGERS[strategy]} knob (x-bench.knobs.process_manager and workers)`);
    workers = n;
    knobs[k.workers] = String(n);
    knobs[k.process_manager] = strategy;
    if (k.instances) knobs[k.instances] = '1';
  } else {
    throw new Error(`unknown strategy '${strategy}'`);
  }
  const cpusPerInstance = cpus ?? (budget ? (quota === 'each' ? budget : budget / instances) : null);
  if (cpusPerInstance) knobs[k.cpus] = String(Number(cpusPerInstance.toFixed(4)));
  if (lb && k.lb) knobs[k.lb] = lb;
  Object.assign(knobs, env);
  const short = SHORT[s.framework] ?? sample;
  const shape = strategy === 'cluster' ? `cluster-${n}` : strategy === 'replicas' ? `replicas-${n}` : PROCESS_MANAGERS[strategy] ? `${strategy}-${n}` : '1';
  const name = NAME[s.framework] ?? sample;
  const shapeText = strategy === 'cluster' ? `cluster of ${n}` : PROCESS_MANAGERS[strategy] ? `${PROCESS_MANAGERS[strategy]}, ${n} process${n > 1 ? 'es' : ''}` : strategy === 'replicas' ? `${n} replicas${quota === 'each' && !cpus ? ', no quota' : cpusPerInstance ? ` × ${cpuText(cpusPerInstance)}` : ''}` : '1 process';
  return {
    id: id ?? `${short}-${shape}${viaNginx ? '-nginx' : ''}`,
    label: label ?? `${name}, ${shapeText}${cpusPerInstance && strategy !== 'replicas' ? ` (${cpuText(cpusPerInstance)})` : ''}${viaNginx ? ' + nginx' : ''}`,
    sample,
    runtime: s.runtime,
    framework: s.framework,
    strategy,
    instances,
    workers,
    processes: instances * workers,
    cpusPerInstance,
    budgetCpus: cpus ? cpus * instances : budget ?? null,
    quota: cpus ? 'per instance' : quota === 'each' ? 'none per instance' : 'split',
    viaNginx: Boolean(viaNginx),
    cpuset,
    tag: tag ?? null,
    lb: viaNginx ? (lb ?? s.defaults[k.lb] ?? null) : null,
    env: knobs,
  };
}

/** The deployment a topology runs on: one start of its sample with these knobs. */
export function deploymentKey(t) {
  return `${t.sample}[${Object.entries(t.env).sort().map(([k, v]) => `${k}=${v}`).join(',')}]@${t.cpuset}/${t.budgetCpus ?? '-'}${t.tag ? `#${t.tag}` : ''}`;
}

/** The services whose processes a topology's measurement covers (CPU time, memory). */
export function servicesOf(t, { withDatabase = false } = {}) {
  const s = describeSample(t.sample);
  return [s.app, ...(t.viaNginx && s.proxy ? [s.proxy] : []), ...(withDatabase && s.database ? [s.database] : [])];
}
