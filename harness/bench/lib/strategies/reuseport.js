// Separate Node processes opening the same port with SO_REUSEPORT: the kernel spreads connections.
export default {
  key: 'reuseport',
  slug: 'reuseport',
  order: 2,
  core: false,
  optional: true,
  title: 'reusePort',
  why: 'Separate Node processes each open the same port with SO_REUSEPORT, and the kernel spreads new connections over them: no primary process hands connections out. The spread is per connection, so a few long-lived connections can load one process more than another.',
  multiProcess: true,
  unsupported(app) {
    if (app.runtime !== 'node') return `${app.name} is not a Node app`;
    if (!app.knobs.workers || !app.knobs.process_manager || !app.processManagers.includes('reuseport')) return `${app.name} does not opt in to reusePort (x-bench.knobs.process_manager with 'reuseport' in process_managers: the app must listen with { reusePort: true })`;
    return null;
  },
  configure(app, n) {
    const k = app.knobs;
    return { knobs: { [k.workers]: String(n), [k.process_manager]: 'reuseport', ...(k.instances ? { [k.instances]: '1' } : {}) }, instances: 1, workers: n };
  },
  shape: (n) => `reuseport-${n}`,
  label: (n) => `${n} reusePort process${n > 1 ? 'es' : ''}`,
  drill: { crash: 'worker', rollout: 'the processes replaced one at a time' },
};
