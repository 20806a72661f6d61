// One serving process and nothing else: no cluster primary, never forks. The entry of the
// reuseport launcher's processes (`--reuse-port`) and of PM2's cluster-mode instances.
import cluster from 'node:cluster';
import { loadConfig } from './config.js';
import { log } from './log.js';
import { startWorker } from './worker.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}

startWorker(config, { reusePort: process.argv.includes('--reuse-port'), ownPrimary: false });

// Started by the reuseport launcher (an IPC channel, not a cluster worker): if the launcher dies
// without stopping it, drain and exit rather than serve on unsupervised. Cluster workers (PM2)
// exit by themselves when their primary goes.
if (process.connected && !cluster.isWorker) {
  process.once('disconnect', () => {
    log('launcher gone, stopping');
    process.kill(process.pid, 'SIGTERM');
  });
}
