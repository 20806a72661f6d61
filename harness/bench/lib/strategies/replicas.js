// n instances of the app, each its own process (a container on Docker) with an even slice of the
// budget, behind nginx.
export default {
  key: 'replicas',
  slug: 'replicas',
  order: 4,
  core: true,
  title: 'Replicas behind nginx',
  why: 'Separate processes, each with its own slice of the CPU, and nginx spreading requests over them. They buy isolation and rolling restarts: a new replica starts and is checked before an old one stops. On one host they add no CPU, and a small slice per replica is throttled sooner in a burst.',
  multiProcess: true,
  unsupported(app) {
    if (!app.knobs.instances) return `${app.name} has no replica knob (x-bench.knobs.instances)`;
    if (!app.proxy) return `${app.name} has no proxy in front (x-bench.proxy)`;
    return null;
  },
  configure(app, n) {
    const k = app.knobs;
    const knobs = { [k.instances]: String(n) };
    if (k.clustering) knobs[k.clustering] = 'false';
    if (k.workers && k.process_manager) knobs[k.workers] = '1';
    return { knobs, instances: n, workers: 1 };
  },
  shape: (n) => `replicas-${n}`,
  label: (n) => `${n} replicas`,
  drill: { crash: 'instance', rollout: 'start-first: a new replica healthy, nginx switched, the old one drained' },
};
