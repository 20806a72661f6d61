// Test helpers: start the primary as a child process, read its JSON log lines, send HTTP
// requests to 127.0.0.1, and clean up every process started (by pid). The process, port and
// polling helpers are the harness's (harness/lib), as for the tests that run this sample through it.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../harness/lib/ports.js';
import { childPids, isAlive } from '../../harness/lib/processes.js';
import { waitFor } from '../../harness/lib/poll.js';

export { childPids, freePort, isAlive, waitFor, sleep };
// The name this sample's tests used before the helpers were shared.
export const pidAlive = isAlive;

/**
 * The handle's exit, or { code: 'still running' } after `ms` (a bound on a hang: its timer does not
 * keep the test file's process alive once the handle has exited).
 */
export const exitWithin = (handle, ms) =>
  Promise.race([handle.exited, sleep(ms, undefined, { ref: false }).then(() => ({ code: 'still running' }))]);

export const SAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
const PRIMARY = fileURLToPath(new URL('../src/primary.js', import.meta.url));
const START = fileURLToPath(new URL('../scripts/start.sh', import.meta.url));

// Waits until `pid` has exactly `count` child processes; returns their pids.
export function waitForChildren(pid, count, timeoutMs = 30_000) {
  return waitFor(() => { const kids = childPids(pid); return kids.length === count && kids; }, { timeoutMs, what: `${count} child processes of ${pid}` });
}

// Starts `node src/primary.js` with `env`; returns a handle with its logs and helpers.
export function startPrimary(env = {}, { waitReady = true } = {}) {
  return startProgram([process.execPath, PRIMARY], env, { ready: waitReady && 'cluster ready' });
}

// Starts `sh scripts/start.sh` (PROCESS_MANAGER in `env`); waits for the log line `ready` if given.
/** @param {Record<string, string>} [env] @param {{ ready?: string, readyMs?: number }} [options] */
export function startScript(env = {}, { ready, readyMs } = {}) {
  return startProgram(['sh', START], env, { ready, readyMs });
}

async function startProgram([program, ...args], env, { ready, readyMs = 60_000 }) {
  const port = await freePort();
  const child = spawn(program, args, {
    cwd: SAMPLE_DIR,
    env: {
      // This Node first: scripts/start.sh runs `node`.
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      // Nothing listens on port 9 (discard): the database is "down" unless a test says otherwise.
      MONGODB_URI: 'mongodb://127.0.0.1:9/items',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs = [];
  let stderr = '';
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try { logs.push(JSON.parse(line)); } catch { logs.push({ msg: 'raw', line }); }
    }
  });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => { child.once('exit', (code, signal) => resolve({ code, signal })); });

  const handle = {
    child,
    port,
    logs,
    exited,
    get stderr() { return stderr; },
    find: (msg) => logs.filter((l) => l.msg === msg),
    waitLog: (msg, count = 1, timeoutMs = 15_000) => waitFor(
      () => (handle.find(msg).length >= count ? handle.find(msg) : null),
      { timeoutMs, what: `${count} × "${msg}" in the primary's log` },
    ),
    workerPids: () => new Set(handle.find('worker forked').map((l) => l.workerPid)),
    // Kills the primary and every worker it ever forked (or has now) that is still alive.
    async cleanup() {
      for (const pid of [...handle.workerPids(), ...childPids(child.pid), child.pid]) {
        if (isAlive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      }
      await Promise.race([exited, sleep(2_000, undefined, { ref: false })]);
    },
  };
  // Not ready in time: what it started goes before the error does, or its processes would keep the
  // test file's process alive (a reuseport launcher not ready in 15 s under a busy make test,
  // 2026-12-05, held its suite for over 17 min). 60 s: a bound on a hang.
  if (ready) {
    try {
      await handle.waitLog(ready, 1, readyMs);
    } catch (err) {
      await handle.cleanup();
      throw err;
    }
  }
  return handle;
}

// One HTTP request; resolves { status, body, headers } or rejects on a network error.
/**
 * @param {number} port @param {string} path
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string>, agent?: import('node:http').Agent, timeoutMs?: number }} [options]
 */
export function request(port, path, { method = 'GET', body, headers = {}, agent, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body));
    const req = http.request({
      host: '127.0.0.1', port, path, method, agent: agent ?? false, timeout: timeoutMs,
      headers: payload === undefined ? headers : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, body: json, text, headers: res.headers });
      });
    });
    req.once('timeout', () => req.destroy(new Error('request timeout')));
    req.once('error', reject);
    req.end(payload);
  });
}
