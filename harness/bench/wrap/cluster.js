// The cluster module around an app that knows nothing of it: this process is the primary and
// forks `count` workers of the app's own entry (cluster.setupPrimary({ exec })). Each worker runs
// the entry as `node <entry>` would; its server.listen(PORT) goes through the primary, which
// shares one listening socket among them. The primary serves nothing (supervisor.js: respawn,
// rolling restart on SIGHUP, drain on SIGTERM).
import cluster from 'node:cluster';
import { appEnv, expand, log } from './launch-spec.js';
import { supervise } from './supervisor.js';

/** @param {import('./launch-spec.js').LaunchSpec} spec @param {number} count @param {number} drainMs */
export function runCluster(spec, count, drainMs) {
  const port = Number(process.env.PORT);
  cluster.setupPrimary({
    exec: expand(spec.node.entry),
    args: spec.node.args.map((t) => expand(t)),
    execArgv: spec.node.execArgv.map((t) => expand(t)),
  });
  const env = appEnv(spec);
  // cluster.fork() adds `env` to this process's own: the launchers' settings must not reach the app.
  for (const k of Object.keys(process.env)) if (k.startsWith('BENCH_')) delete process.env[k];
  log(`cluster primary: ${count} worker(s) of ${spec.node.entry}`);
  supervise({
    count,
    drainMs,
    what: 'cluster',
    start: () => {
      const worker = cluster.fork(env);
      return {
        pid: worker.process.pid,
        // An app may listen on more than one port (metrics, admin): the one that counts is PORT.
        listening: () => new Promise((resolve) => {
          const on = (address) => { if (!port || address.port === port) { worker.off('listening', on); resolve(); } };
          worker.on('listening', on);
        }),
        kill: (signal) => { if (!worker.isDead()) worker.process.kill(signal); },
        exited: new Promise((resolve) => worker.once('exit', (code, signal) => resolve({ code, signal }))),
      };
    },
  });
}
