// The cluster primary: forks the workers, respawns crashed ones with backoff, replaces them one at
// a time on SIGHUP and drains them all on SIGTERM/SIGINT. It serves no requests itself.
// `fork` makes one worker: cluster.fork() by default; the reuseport launcher hands in independent
// processes behind the same interface (src/child-worker.js: id, process, isDead(), isConnected(),
// send(), exitedAfterDisconnect, and the events 'listening' and 'exit').
// For a worker that is not this sample's (any app's server), `stopWith: 'SIGTERM'` asks it to drain
// with the signal every server knows instead of the sample's shutdown message, `port` names the port
// whose 'listening' counts (an app may listen on more), `killAfterMs` when a stop turns to SIGKILL,
// and `log(msg, fields)` writes the lines: so the bench keeps other apps' processes with it
// (harness/bench/wrap/supervise.js).
import cluster from 'node:cluster';
import { createBackoff } from './backoff.js';
import { log as jsonLog } from './log.js';

export function startSupervisor({
  workers, drainMs, drainDelayMs = 0, backoff: backoffOptions = {}, listenTimeoutMs = 30_000,
  fork: forkWorker = () => cluster.fork(), name = 'cluster',
  stopWith = 'message', port = 0, killAfterMs = undefined, log = jsonLog,
}) {
  const backoff = createBackoff(backoffOptions);
  const all = new Set(); // every worker not yet exited
  const forkedAt = new Map(); // worker id -> time of fork
  const retiring = new Set(); // worker ids we asked to stop: their exits are planned
  const candidates = new Set(); // rolling-restart replacements not yet listening: never respawned
  const listening = new Set(); // worker ids that have started listening (and so handle messages)
  let shuttingDown = false;
  let rolling = false;
  let pendingRespawns = 0;
  let gaveUp = false;

  const alive = () => [...all].filter((w) => !w.isDead());
  const counts = (address) => !port || address?.port === port;

  function fork() {
    const worker = forkWorker();
    all.add(worker);
    forkedAt.set(worker.id, Date.now());
    worker.on('listening', (address) => { if (counts(address)) listening.add(worker.id); });
    worker.on('exit', (code, signal) => onExit(worker, code, signal));
    log('worker forked', { worker: worker.id, workerPid: worker.process.pid });
    return worker;
  }

  // Resolves once `worker` accepts connections; rejects if it dies or takes too long first.
  function whenListening(worker) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { cleanup(); reject(new Error('listen timeout')); }, listenTimeoutMs);
      const onListening = (address) => { if (counts(address)) { cleanup(); resolve(); } };
      const onExit = () => { cleanup(); reject(new Error('exited before listening')); };
      function cleanup() {
        clearTimeout(timer);
        worker.off('listening', onListening);
        worker.off('exit', onExit);
      }
      worker.on('listening', onListening);
      worker.on('exit', onExit);
    });
  }

  function whenExited(worker) {
    return new Promise((resolve) => {
      if (worker.isDead()) resolve();
      else worker.once('exit', () => resolve());
    });
  }

  // Planned stop: the worker stops accepting (after delayMs of serving on), finishes its requests
  // and exits by itself; SIGKILL if it is still there after the drain timeout (which counts the
  // delay) plus a margin, or after killAfterMs where given.
  function retire(worker, delayMs = 0) {
    retiring.add(worker.id);
    const timer = setTimeout(() => {
      log('worker did not exit in time, killing', { worker: worker.id });
      worker.process.kill('SIGKILL');
    }, killAfterMs ?? drainMs + 2_000);
    worker.once('exit', () => clearTimeout(timer));
    // A worker still starting up may not listen for messages yet, and has no requests to drain.
    const asked = stopWith === 'message' && listening.has(worker.id) && worker.isConnected();
    if (asked) worker.send({ cmd: 'shutdown', delayMs });
    else worker.process.kill('SIGTERM');
  }

  function onExit(worker, code, signal) {
    all.delete(worker);
    listening.delete(worker.id);
    const uptimeMs = Date.now() - (forkedAt.get(worker.id) ?? Date.now());
    forkedAt.delete(worker.id);
    const planned = retiring.delete(worker.id) || worker.exitedAfterDisconnect;
    log('worker exited', { worker: worker.id, code, signal, planned, uptimeMs });
    if (shuttingDown) {
      if (alive().length === 0) {
        log('primary stopped');
        process.exit(0);
      }
      return;
    }
    if (planned) return;
    if (candidates.delete(worker.id)) {
      backoff.onCrash(uptimeMs); // counts towards the crash-loop limit, but the old worker stays
      return;
    }
    const delayMs = backoff.onCrash(uptimeMs);
    if (delayMs === null) {
      gaveUp = true;
      log('crash loop: not respawning', { crashes: backoff.crashes });
      if (alive().length === 0 && pendingRespawns === 0) {
        log('no workers left, primary exiting');
        process.exit(1);
      }
      return;
    }
    log('respawning worker', { delayMs, crashes: backoff.crashes });
    pendingRespawns += 1;
    setTimeout(() => {
      pendingRespawns -= 1;
      if (!shuttingDown && !gaveUp) fork();
      else if (gaveUp && alive().length === 0 && pendingRespawns === 0) process.exit(1);
    }, delayMs);
  }

  // One worker at a time: the new one must be listening before the old one is asked to stop,
  // so there are always at least `workers` processes accepting connections.
  async function rollingRestart() {
    if (rolling || shuttingDown) {
      log('rolling restart ignored', { reason: rolling ? 'already running' : 'shutting down' });
      return;
    }
    rolling = true;
    const old = alive().filter((w) => !retiring.has(w.id));
    log('rolling restart started', { workers: old.length });
    try {
      for (const worker of old) {
        if (shuttingDown) break;
        const next = fork();
        candidates.add(next.id);
        try {
          await whenListening(next);
          candidates.delete(next.id);
        } catch (err) {
          log('rolling restart aborted: new worker failed', { worker: next.id, error: err.message });
          if (!next.isDead()) retire(next);
          return;
        }
        retire(worker);
        await whenExited(worker);
      }
      log('rolling restart done');
    } finally {
      rolling = false;
    }
  }

  function shutdown(signal) {
    if (shuttingDown) return;
    shuttingDown = true;
    const workersLeft = alive();
    log('primary shutting down', { signal, workers: workersLeft.length });
    if (workersLeft.length === 0) process.exit(0);
    // A stop from outside: the whole instance goes, so it serves on for the drain delay first.
    for (const worker of workersLeft) retire(worker, signal === 'SIGTERM' ? drainDelayMs : 0);
  }

  process.on('SIGHUP', () => { rollingRestart(); });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const initial = Array.from({ length: workers }, fork);
  Promise.allSettled(initial.map(whenListening)).then((results) => {
    if (results.every((r) => r.status === 'fulfilled')) log(`${name} ready`, { workers });
  });
  // `workers`: those alive now, for the instance's /metrics (src/metrics-server.js).
  return { rollingRestart, shutdown, workers: alive };
}
