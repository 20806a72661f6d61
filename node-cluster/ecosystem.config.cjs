// PROCESS_MANAGER=pm2: PM2's cluster mode, run in the foreground by `pm2-runtime
// ecosystem.config.cjs` (scripts/start.sh). PM2's own process is the cluster primary; each
// instance runs src/serve.js, which serves and never forks.
const { spawn } = require('node:child_process');
const { loadConfig } = require('./src/config.js');
const { log } = require('./src/log.js');
const { workerCount } = require('./src/cpu-count.js');

function settings() {
  try {
    return { config: loadConfig(), workers: workerCount(process.env) };
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    return process.exit(2);
  }
}
const { config, workers } = settings();

// pm2-runtime leaves SIGHUP at Node's default, which ends it and every instance with it. Here, as
// for the cluster primary and the reuseport launcher, SIGHUP is the rolling restart: PM2's own
// `pm2 reload app`, one instance at a time, each new one ready before an old one stops. This file
// is read inside the pm2-runtime process (and again by any pm2 command given it): install once.
const HUP = Symbol.for('node-cluster.pm2-sighup');
if (!process[HUP]) {
  process[HUP] = true;
  process.on('SIGHUP', () => {
    log('SIGHUP: pm2 reload app');
    // "rolling restart aborted" is what the local runner's `make reload` watches for, as with
    // the cluster primary.
    spawn(process.execPath, [require.resolve('pm2/bin/pm2'), 'reload', 'app'], { stdio: 'ignore' })
      .on('exit', (code) => log(code === 0 ? 'pm2 reload app done' : 'rolling restart aborted: pm2 reload app failed', { code }));
  });
}

// The instance's /metrics (METRICS_PORT): served from this process, PM2's own, the cluster primary
// of its instances: at each scrape it asks every instance for its registry over the cluster IPC
// channel (src/metrics-server.js). Started once, like the SIGHUP handler above.
const METRICS = Symbol.for('node-cluster.pm2-metrics');
if (!process[METRICS] && config.metricsPort !== null) {
  process[METRICS] = true;
  const cluster = require('node:cluster');
  const { startInstanceMetrics } = require('./src/metrics-server.js');
  startInstanceMetrics(config, () => Object.values(cluster.workers ?? {}).filter((w) => !w.isDead()));
}

module.exports = {
  apps: [{
    name: 'app',
    script: 'src/serve.js',
    cwd: __dirname,
    exec_mode: 'cluster',
    // WORKERS, else the CPUs this container may use. PM2's own 'max' counts the host's cores
    // (os.cpus()), whatever the CPU quota.
    instances: workers.count,
    // src/worker.js sends 'ready' once it listens: a reload starts the next instance only then.
    wait_ready: true,
    listen_timeout: 30_000,
    // PM2 stops an instance with SIGINT (the worker drains), then SIGKILLs it after this: above
    // the drain, with the same margin as src/supervisor.js.
    kill_timeout: config.drainMs + 2_000,
    // PM2's backoff, which src/backoff.js copies: ×1.5 per crash from this delay, cap 15 s.
    exp_backoff_restart_delay: config.respawnInitialMs,
    max_restarts: config.respawnMaxCrashes,
    // No log files: pm2-runtime streams every instance's output to its own stdout.
    out_file: '/dev/null',
    error_file: '/dev/null',
  }],
};
