// Entry point. With clustering on (the default) this process is the cluster primary and each
// worker re-runs this file as a worker; CLUSTERING_ENABLED=false serves from this one process.
import cluster from 'node:cluster';
import { loadConfig } from './config.js';
import { workerCount } from './cpu-count.js';
import { log } from './log.js';

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  fail(err.message);
}

if (cluster.isWorker || !config.clustering) {
  const { startWorker } = await import('./worker.js');
  if (!config.clustering) log('clustering disabled: one process');
  startWorker(config);
} else {
  let workers;
  try {
    workers = workerCount(process.env);
  } catch (err) {
    fail(err.message);
  }
  const { startSupervisor } = await import('./supervisor.js');
  const { startInstanceMetrics } = await import('./metrics-server.js');
  log('primary starting', { workers: workers.count, source: workers.source, node: process.version });
  const supervisor = startSupervisor({
    workers: workers.count,
    drainMs: config.drainMs,
    drainDelayMs: config.drainDelayMs,
    backoff: { initialMs: config.respawnInitialMs, maxCrashes: config.respawnMaxCrashes },
  });
  startInstanceMetrics(config, supervisor.workers);
}
