// Graceful shutdown on SIGTERM (docker stop, compose, the local runner) and SIGINT (Ctrl-C):
// report not ready, stop accepting, let in-flight requests finish, close idle keep-alive
// sockets, exit 0. A timer bounds the whole drain so a stuck request can't hold the exit.
import net from 'node:net';
import { setTimeout as sleep, setImmediate as afterPoll } from 'node:timers/promises';

// With a drain delay (behind a DNS name: compose), how long the replica stays up after it has
// stopped accepting: nginx's next tries are refused at once and mark it failed (max_fails) for its
// fail_timeout, which outlasts this plus nginx's re-resolution of the name once the container is
// gone — so nginx never waits out a connect to the vanished address (proxy_connect_timeout, 1 s).
export const LINGER_MS = 1000;

// Resolves once a turn of the event loop has found no connection waiting to be accepted (at most
// MAX_TURNS turns). Node accepts one queued connection per turn, in its poll phase; closing the
// port with connections still queued resets them, and a POST nginx has written on one is a 502 it
// never resends. A process held at its CPU quota (stopped for tens of ms at a time) gathers such
// connections while its loop waits (2 POST 502s in 7 stops on Swarm, 2026-12-04, deploy-events.js,
// when the port was closed from the drain delay's timer).
const MAX_TURNS = 50;

async function acceptQueued(server) {
  let accepted = true;
  const seen = () => { accepted = true; };
  server.on('connection', seen);
  for (let turn = 0; accepted && turn < MAX_TURNS; turn++) {
    accepted = false;
    await afterPoll(); // setImmediate: after this turn's poll phase
  }
  server.off('connection', seen);
}

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
    const done = () => {
      clearTimeout(force);
      log(`${config.instance}: drained; exiting`);
      exit(0);
    };
    if (config.drainDelayMs === 0) {
      // Stops accepting and closes idle keep-alive sockets; busy ones close after their answer
      // (which carries `Connection: close` once closing). The callback runs once all are gone.
      state.closing = true;
      server.close(done);
      server.closeIdleConnections();
      return;
    }
    // Serve on for a while (compose: DRAIN_DELAY_MS), /ready 503, until whoever routes here has
    // stopped: nginx re-resolves the service's name every 2 s (Swarm takes a task out of its DNS
    // before the signal, Kubernetes takes a pod that is not ready out of its endpoints). Plain
    // Compose keeps the address in its DNS until the container has exited: nginx may still send
    // here meanwhile, and gets answers. Keep-alive stays on meanwhile, as dotnet-api's Drain.cs
    // does: with every answer closing its connection nginx opens one per request, and the closing
    // listening socket resets those still in its accept queue (a POST on one: a 502 nginx never
    // resends). Idle, nginx closes its connections itself after keepalive_timeout (10 s).
    await sleep(config.drainDelayMs);
    await acceptQueued(server);
    // Then stop accepting, leaving open connections be (not http.Server#close, which also closes
    // idle ones: one nginx has just opened may be about to carry a POST); each closes after its
    // answer. After LINGER_MS, refusing, close what is idle still (no nginx connection by then).
    state.closing = true;
    const closed = new Promise((resolve) => net.Server.prototype.close.call(server, resolve));
    await sleep(LINGER_MS);
    server.closeIdleConnections();
    await closed;
    done();
  }

  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
