// PROCESS_MANAGER=pm2: PM2's cluster mode, run in the foreground by `pm2-runtime
// ecosystem.config.cjs` (scripts/start.sh). PM2's own process is the cluster primary; each
// instance runs src/serve.js, which serves and never forks.
const { loadConfig } = require('./src/config.js');
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
