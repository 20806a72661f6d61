// PM2's cluster mode on the app's own entry: `pm2-runtime pm2.config.cjs`, started by start.js,
// which hands the app's description in BENCH_PM2_APP (JSON: entry, args, node_args, cwd, instances,
// env, drain time). pm2-runtime reads this file inside its own process.
const { spawn } = require('node:child_process');
const cluster = /** @type {any} */ (require('node:cluster'));

const app = JSON.parse(process.env.BENCH_PM2_APP || '{}');
const say = (line) => process.stdout.write(`[bench-wrap ${process.pid}] ${line}\n`);

// pm2-runtime leaves SIGHUP at Node's default, which would end it and every instance. Here, as for
// the cluster and reusePort launchers, SIGHUP is the rolling restart: `pm2 reload app`, one
// instance at a time. Installed once, however often this file is read.
const HUP = Symbol.for('bench-wrap.pm2-sighup');
const proc = /** @type {any} */ (process);
if (!proc[HUP]) {
  proc[HUP] = true;
  process.on('SIGHUP', () => {
    say('pm2: SIGHUP: pm2 reload app');
    spawn(process.execPath, [require.resolve('pm2/bin/pm2'), 'reload', 'app'], { stdio: 'ignore' })
      .on('exit', (code) => say(code === 0 ? 'pm2: rolling restart done'
        : `pm2: rolling restart aborted: pm2 reload app exited ${code}`));
  });
}

// PM2's workers are cluster workers of this process, which hands them its own arguments by default
// (['pm2.config.cjs']): the app would read them before its own (json-server took this file for its
// database). They get only the app's arguments, which PM2 appends.
cluster.setupPrimary({ args: [] });

module.exports = {
  apps: [{
    name: 'app',
    script: app.entry,
    args: app.args,
    node_args: app.node_args,
    cwd: app.cwd,
    env: app.env,
    exec_mode: 'cluster',
    instances: app.instances,
    // Stopped with SIGTERM (PM2_KILL_SIGNAL, set by start.js) like a container, SIGKILL after the drain.
    kill_timeout: app.drainMs,
    // PM2's own backoff, which the cluster sample's supervisor copies: ×1.5 per crash from 100 ms, capped at 15 s.
    exp_backoff_restart_delay: 100,
    max_restarts: 10,
    // No log files: pm2-runtime streams every instance's output to its own stdout, the instance's log.
    out_file: '/dev/null',
    error_file: '/dev/null',
  }],
};
