// PM2's cluster mode: the cluster module under a process manager (restarts, logs, `pm2 reload`).
export default {
  key: 'pm2',
  slug: 'pm2',
  order: 3,
  core: false,
  optional: true,
  title: 'PM2',
  why: 'PM2\'s cluster mode runs the cluster module under a process manager: the same shared port, plus restarts, logs and a reload command. The manager is one more process holding memory.',
  multiProcess: true,
  unsupported(app) {
    if (app.runtime !== 'node') return `${app.name} is not a Node app`;
    if (!app.knobs.workers || !app.knobs.process_manager || !app.processManagers.includes('pm2')) return `${app.name} has no PM2 knob (x-bench.knobs.process_manager with 'pm2' in process_managers)`;
    return null;
  },
  configure(app, n) {
    const k = app.knobs;
    return { knobs: { [k.workers]: String(n), [k.process_manager]: 'pm2', ...(k.instances ? { [k.instances]: '1' } : {}) }, instances: 1, workers: n };
  },
  shape: (n) => `pm2-${n}`,
  label: (n) => `PM2, ${n} process${n > 1 ? 'es' : ''}`,
  drill: { crash: 'worker', rollout: 'pm2 reload: one instance at a time' },
};
