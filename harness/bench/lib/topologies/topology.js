// A topology is what a measurement talks to: an app started with some knobs, reached through its
// nginx or directly on the app. It is described by structured fields (and a stable id built from
// them), so results describe themselves. Several topologies can share one deployment (one start
// through the runner): "1 process, direct" and "1 process + nginx" are the same processes.
// How a strategy is started is its record's business (strategies/); this module only adds the
// budget, the placement and the names.
import { describeSample } from './app-descriptions.js';
import { strategyOf } from '../strategies/index.js';

/**
 * sample (an app folder); strategy (a record's key or slug); n (workers, processes or replicas);
 * budget (CPUs for the whole topology, split evenly over instances — or, with quota 'each', given
 * whole to every instance: no per-instance quota, the run's budget caps them together; `cpus` sets
 * each instance's quota exactly); viaNginx; lb; env (extra knobs); cpuset 'sut' (the CPUs left after
 * the generator) or 'all'; tag (a deployment of its own, e.g. one an instance is killed in); id/label
 * to override the generated ones (experiments name their variants).
 * @param {{ sample: string, strategy: string, n?: number, budget?: number, quota?: string, cpus?: number,
 *   viaNginx?: boolean, lb?: string, env?: object, cpuset?: string, tag?: string, id?: string, label?: string }} spec
 */
export function topology({
  sample, strategy, n = 1, budget, quota = 'split', cpus, viaNginx = false, lb, env = {}, cpuset = 'sut', tag, id,
  label,
}) {
  const app = describeSample(sample);
  const record = strategyOf(strategy);
  const why = record.unsupported(app);
  if (why) throw new Error(`${record.slug} can't run ${app.sample}: ${why}`);
  const { knobs: set, instances, workers } = record.configure(app, n);
  const knobs = { ...app.defaults, ...set };
  const cpusPerInstance = cpus ?? (budget ? (quota === 'each' ? budget : budget / instances) : null);
  if (cpusPerInstance && app.knobs.cpus) knobs[app.knobs.cpus] = String(Number(cpusPerInstance.toFixed(4)));
  if (lb && app.knobs.lb) knobs[app.knobs.lb] = lb;
  Object.assign(knobs, env);
  const perInstance = cpusPerInstance ? `${Number(cpusPerInstance.toFixed(3))} CPU` : '';
  const replicaText = quota === 'each' && !cpus ? ', no quota' : perInstance && ` × ${perInstance}`;
  const sizeText = record.key === 'replicas' ? replicaText : perInstance && ` (${perInstance})`;
  return {
    id: id ?? `${app.key}-${record.shape(n)}${viaNginx ? '-nginx' : ''}`,
    label: label ?? `${app.name}, ${record.label(n)}${sizeText}${viaNginx ? ' + nginx' : ''}`,
    sample: app.sample,
    app: app.key,
    runtime: app.runtime,
    framework: app.framework,
    strategy: record.key,
    instances,
    workers,
    processes: instances * workers,
    cpusPerInstance,
    budgetCpus: cpus ? cpus * instances : budget ?? null,
    quota: cpus ? 'per instance' : quota === 'each' ? 'none per instance' : 'split',
    viaNginx: Boolean(viaNginx),
    cpuset,
    tag: tag ?? null,
    lb: viaNginx ? (lb ?? app.defaults[app.knobs.lb] ?? null) : null,
    env: knobs,
  };
}

/** The deployment a topology runs on: one start of its app with these knobs. */
export function deploymentKey(t) {
  const knobs = Object.entries(t.env).sort().map(([k, v]) => `${k}=${v}`).join(',');
  return `${t.sample}[${knobs}]@${t.cpuset}/${t.budgetCpus ?? '-'}${t.tag ? `#${t.tag}` : ''}`;
}

/** The services whose processes a topology's measurement covers (CPU time, memory). */
export function servicesOf(t, { withDatabase = false } = {}) {
  const s = describeSample(t.sample);
  return [s.app, ...(t.viaNginx && s.proxy ? [s.proxy] : []), ...(withDatabase && s.database ? [s.database] : [])];
}
