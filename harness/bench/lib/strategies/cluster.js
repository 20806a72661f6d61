// Node's cluster module: a primary forks n workers that share one listening port.
export default {
  key: 'cluster',
  slug: 'cluster',
  order: 1,
  core: true,
  title: 'Cluster',
  why: 'The cluster module forks workers that share one listening port. On two or more cores they compute at the same time, which is where a cluster pays. On one core they take turns on it, and every worker carries its own heap.',
  multiProcess: true,
  unsupported(app) {
    if (app.runtime !== 'node') return `${app.name} is not a Node app`;
    if (!app.knobs.workers) return `${app.name} has no workers knob (x-bench.knobs.workers)`;
    if (app.knobs.process_manager && !app.processManagers.includes('cluster')) return `${app.name}'s process_manager knob has no 'cluster'`;
    return null;
  },
  configure(app, n) {
    const k = app.knobs;
    const knobs = { [k.workers]: String(n) };
    if (k.clustering) knobs[k.clustering] = 'true';
    if (k.process_manager) knobs[k.process_manager] = 'cluster';
    if (k.instances) knobs[k.instances] = '1';
    return { knobs, instances: 1, workers: n };
  },
  shape: (n) => `cluster-${n}`,
  label: (n) => `cluster of ${n}`,
  drill: { crash: 'worker', rollout: 'SIGHUP: the primary replaces its workers one at a time' },
};
