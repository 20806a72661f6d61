// PROCESS_MANAGER=reuseport: WORKERS independent processes (src/serve.js), each listening on the
// same port with SO_REUSEPORT, so the kernel spreads the connections; no cluster primary between
// them. This launcher only starts them and, through src/supervisor.js, respawns a crashed one with
// backoff, replaces them one at a time on SIGHUP and drains them all on SIGTERM/SIGINT.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.js';
import { workerCount } from './cpu-count.js';
import { log } from './log.js';
import { reusePortUnsupported } from './reuse-port-support.js';
import { startSupervisor } from './supervisor.js';
import { childWorker } from './child-worker.js';
import { startInstanceMetrics } from './metrics-server.js';

const SERVE = fileURLToPath(new URL('./serve.js', import.meta.url));

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

// One serving process, with the interface the supervisor knows from cluster workers. It exits 0
// only after a drain (SIGTERM, SIGINT, shutdown message): planned, as a cluster worker's exit after
// disconnect is.
const forkServer = () => childWorker(fork(SERVE, ['--reuse-port']), { cleanExitPlanned: true });

const unsupported = reusePortUnsupported();
if (unsupported) fail(`PROCESS_MANAGER=reuseport: ${unsupported}`);

let config;
let workers;
try {
  config = loadConfig();
  workers = workerCount(process.env);
} catch (err) {
  fail(err.message);
}
if (config.port === 0) fail('PROCESS_MANAGER=reuseport needs a fixed PORT: with 0 each process would get a port of its own');

log('launcher starting', { workers: workers.count, source: workers.source, node: process.version, reusePort: true });
const supervisor = startSupervisor({
  workers: workers.count,
  drainMs: config.drainMs,
  drainDelayMs: config.drainDelayMs,
  backoff: { initialMs: config.respawnInitialMs, maxCrashes: config.respawnMaxCrashes },
  fork: forkServer,
  name: 'launcher',
});
startInstanceMetrics(config, supervisor.workers);
