// One process of the app given the whole budget: one Node process (its JavaScript on one thread), or
// one .NET process whose thread pool spreads requests over every CPU it is given.
export default {
  key: 'one process',
  slug: 'one-process',
  order: 0,
  core: true,
  title: 'One process',
  why: 'One Node process runs your JavaScript on one thread; one .NET process spreads requests over every core it is given through its thread pool. It is the cheapest in memory and the simplest to run. It cannot be replaced without a gap: a crash or a deploy drops requests unless a second process is there to take them.',
  multiProcess: false,
  unsupported: () => null,
  configure(app) {
    const k = app.knobs;
    const knobs = {};
    if (k.clustering) knobs[k.clustering] = 'false';
    if (k.instances) knobs[k.instances] = '1';
    if (k.workers && k.process_manager) knobs[k.workers] = '1';
    return { knobs, instances: 1, workers: 1 };
  },
  shape: () => '1',
  label: () => '1 process',
  drill: { crash: 'instance', rollout: 'restart in place' },
};
