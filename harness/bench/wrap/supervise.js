// The process manager of the cluster and reusePort launchers is the cluster sample's own (imported
// below, one implementation for both): respawn with PM2's backoff (×1.5 per crash from 100 ms,
// capped at 15 s, reset after 30 s up; more than 10 crashes in a row: a crash loop, given up), a
// rolling restart on SIGHUP (the new process listening before the old one is stopped), and on
// SIGTERM/SIGINT a drain of them all. Set here for an app that knows nothing of it: a process is
// asked to stop with SIGTERM, as a container is, and SIGKILLed after the drain time; the lines are
// the launchers'.
import { startSupervisor } from '../../../node-cluster/src/supervisor.js';
import { log } from './launch-spec.js';

const line = (msg, fields = {}) => log(Object.keys(fields).length ? `${msg} ${JSON.stringify(fields)}` : msg);

/**
 * Starts and keeps `workers` processes: cluster workers, or what `fork` makes (child-worker.js).
 * @param {{ workers: number, drainMs: number, name: string, port?: number, fork?: () => any }} o
 */
export function supervise(o) {
  startSupervisor({ ...o, stopWith: 'SIGTERM', killAfterMs: o.drainMs, listenTimeoutMs: 60_000, log: line });
}
