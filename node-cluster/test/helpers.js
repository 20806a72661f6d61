// Test helpers: start the primary as a child process, read its JSON log lines, send HTTP
// requests to 127.0.0.1, and clean up every process started (by pid).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
const PRIMARY = fileURLToPath(new URL('../src/primary.js', import.meta.url));
const START = fileURLToPath(new URL('../scripts/start.sh', import.meta.url));

export const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Polls `predicate` until it returns a truthy value (returned) or `timeoutMs` passes (throws).
export async function waitFor(predicate, { timeoutMs = 10_000, intervalMs = 25, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

// Child pids of `pid`, from /proc (field 4 of /proc/<pid>/stat is the parent pid).
export function childPids(pid) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') out.push(Number(entry));
    } catch { /* gone */ }
  }
  return out;
}

// Waits until `pid` has exactly `count` child processes; returns their pids.
export function waitForChildren(pid, count, timeoutMs = 30_000) {
  return waitFor(() => { const kids = childPids(pid); return kids.length === count && kids; }, { timeoutMs, what: `${count} child processes of ${pid}` });
}

// Starts `node src/primary.js` with `env`; returns a handle with its logs and helpers.
export function startPrimary(env = {}, { waitReady = true } = {}) {
  return startProgram([process.execPath, PRIMARY], env, { ready: waitReady && 'cluster ready' });
}

// Starts `sh scripts/start.sh` (PROCESS_MANAGER in `env`); waits for the log line `ready` if given.
export function startScript(env = {}, { ready } = {}) {
  return startProgram(['sh', START], env, { ready });
}

async function startProgram([program, ...args], env, { ready }) {
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
        if (pidAlive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      }
      await Promise.race([exited, sleep(2_000)]);
    },
  };
  if (ready) await handle.waitLog(ready);
  return handle;
}

// One HTTP request; resolves { status, body, headers } or rejects on a network error.
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
