// Graceful shutdown on SIGTERM (docker stop, compose, the local runner) and SIGINT (Ctrl-C):
// report not ready, stop accepting, let in-flight requests finish, close idle keep-alive
// sockets, exit 0. A timer bounds the whole drain so a stuck request can't hold the exit.
import { setTimeout as sleep } from 'node:timers/promises';

export function installShutdown({ server, state, config, log = console.log, exit = process.exit }) {
  let started = false;

  async function shutdown(signal) {
    if (started) {
      log(`${config.instance}: ${signal} while draining; still waiting (at most ${config.drainTimeoutMs} ms in all)`);
      return;
    }
    started = true;
    state.draining = true;
    log(`${config.instance}: ${signal}: draining`);
    const force = setTimeout(() => {
      log(`${config.instance}: in-flight requests still open after ${config.drainTimeoutMs} ms; closing them`);
      server.closeAllConnections();
      exit(1);
    }, config.drainTimeoutMs);
    // Serve on for a while (compose: DRAIN_DELAY_MS), /ready 503 and every answer closing its
    // connection, until whoever routes here has stopped: nginx re-resolves the service's name every
    // 10 s (Swarm takes a task out of its DNS before the signal, Kubernetes takes a pod that is not
    // ready out of its endpoints). Plain Compose keeps the address in its DNS until the container
    // has exited: nginx may still send here meanwhile, and gets answers.
    if (config.drainDelayMs > 0) await sleep(config.drainDelayMs);
    // Stops accepting and closes idle keep-alive sockets; busy ones close after their answer
    // (which carries `Connection: close` while draining). The callback runs once all are gone.
    server.close(() => {
      clearTimeout(force);
      log(`${config.instance}: drained; exiting`);
      exit(0);
    });
    server.closeIdleConnections();
  }

  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
