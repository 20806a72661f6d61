// The cluster module around an app that knows nothing of it: this process is the primary and
// forks `count` workers of the app's own entry (cluster.setupPrimary({ exec })). Each worker runs
// the entry as `node <entry>` would; its server.listen(PORT) goes through the primary, which
// shares one listening socket among them. The primary serves nothing: the cluster sample's own
// supervisor (respawn with PM2's backoff, rolling restart on SIGHUP, drain on SIGTERM) keeps the
// workers, asking them to stop as a container is asked (supervise.js). Each worker gets the entry's
// own options, arguments, folder and environment, as the start command would have started it
// (entry-probe.js).
import cluster from 'node:cluster';
import { log } from './launch-spec.js';
import { supervise } from './supervise.js';

/** @param {import('./entry-probe.js').NodeEntry} node @param {number} count @param {number} drainMs */
export function runCluster(node, count, drainMs) {
  cluster.setupPrimary({ exec: node.entry, args: node.args, execArgv: node.execArgv, cwd: node.cwd });
  // cluster.fork() starts a worker with this process's environment: the entry's, exactly (the
  // launchers' BENCH_* settings never reach the app).
  const port = Number(process.env.PORT);
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, node.env);
  log(`cluster primary: ${count} worker(s) of ${node.entry}`);
  // An app may listen on more than one port (metrics, admin): the one that counts is PORT.
  supervise({ workers: count, drainMs, name: 'cluster', port });
}
