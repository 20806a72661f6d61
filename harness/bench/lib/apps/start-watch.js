// While the app check's one process starts (local runs): where its processes listen, read from the
// system every half second, and what its health path answers on its PORT. It gives up — and says
// why, with the evidence — once the app has listened somewhere else than its PORT for
// SETTLED_S seconds (a Unix socket, another port, an address 127.0.0.1 doesn't reach), or has not
// answered 2xx on its PORT within the check's time. The runner stops it then. Why, in one line, is
// read from what the system shows (wrap/listening.js): the sockets its processes listen on, the PORT
// it was given, what its health path answered; the evidence under that line is those sockets.
import fs from 'node:fs';
import path from 'node:path';
import { attempt, listenersOf, processTree, read } from '../../wrap/listening.js';

export const SETTLED_S = 20;

// Addresses a connect to 127.0.0.1 reaches.
const REACHABLE = new Set(['0.0.0.0', '::', '127.0.0.1', '::ffff:127.0.0.1']);

/** How one listener reads: `127.0.0.1:3000`, `[::1]:3000`, `Unix socket '/tmp/app.sock'`. */
function listenerText(l) {
  if (l.kind === 'unix') return `Unix socket '${l.path}'`;
  return l.address.includes(':') ? `[${l.address}]:${l.port}` : `${l.address}:${l.port}`;
}

export const outcome = (res) => (res.status ? `answered ${res.status}` : `failed (${res.error})`);

// A Unix socket with a file ('@…' is abstract, '' unnamed).
const socketFile = (l) => l.kind === 'unix' && l.path && !l.path.startsWith('@');

const addressWhy = (address) => {
  if (address === '::1') return 'the IPv6 loopback (the host name "localhost" resolved to ::1)';
  if (address.startsWith('127.')) return `loopback ${address}, not 127.0.0.1`;
  return `the interface ${address} only`;
};

/**
 * The cause, in one line, of an app not answering its health path on its PORT.
 * @param {{ port: number, listeners: import('../../wrap/listening.js').Listener[], health: string,
 *   answered?: string | null, seconds: number, cwd?: string }} what
 *   answered: what GET <health> on PORT did, where the app listens there ('answered 404', 'failed (…)')
 */
export function causeOf({ port, listeners, health, answered, seconds, cwd }) {
  const tcp = listeners.filter((l) => l.kind === 'tcp');
  const onPort = tcp.filter((l) => l.port === port);
  if (onPort.some((l) => REACHABLE.has(l.address))) {
    return `never became healthy: GET ${health} on its PORT ${port} ${answered ?? 'got no answer'} for ${seconds} s. `
      + 'Make it answer 2xx there once it is up, or give HEALTH=/your/health/path';
  }
  if (onPort.length) {
    const where = onPort.map((l) => addressWhy(l.address)).join(', ');
    return `listens on its PORT ${port} on ${where}, and the bench connects to 127.0.0.1: listen on `
      + '0.0.0.0 or :: (or give no host), or on 127.0.0.1';
  }
  const unix = listeners.filter(socketFile);
  if (unix.length) {
    const name = unix[0].path;
    const inFolder = cwd && !name.startsWith('/') ? ` in ${cwd}` : '';
    const why = /[$`{}]/.test(name)
      ? 'the port word was not expanded (no shell expanded it: in single quotes, or read from a file)'
      : 'it was given a path where a port number goes';
    return `listens on a Unix socket named '${name}'${inFolder}, not on TCP port ${port}: ${why}`;
  }
  if (tcp.length) {
    const others = [...new Set(tcp.map(listenerText))].join(', ');
    return `listens on ${others}, not on its PORT ${port}: make it listen on process.env.PORT `
      + '(the bench gives every process a free port of its own)';
  }
  return `runs, but listened on no port in ${seconds} s (its PORT was ${port})`;
}

const commandOf = (pid) => read(`/proc/${pid}/cmdline`).split('\0').filter(Boolean)
  .map((a) => (a.length > 60 ? `…${a.slice(-59)}` : a)).join(' ').slice(0, 160);

/** The evidence block's lines on where the processes listen. */
function listenersBlock(listeners) {
  if (!listeners.length) return '  where it listens (read from /proc): nowhere';
  return ['  where it listens (read from /proc):', ...listeners.map((l) => {
    const cmd = commandOf(l.pid);
    return `    ${listenerText(l)} (pid ${l.pid}${cmd ? `: ${cmd}` : ''})`;
  })].join('\n');
}

const cwdOf = (pid) => attempt(() => fs.readlinkSync(`/proc/${pid}/cwd`), undefined);

/**
 * @param {{ runDir: string, service: string, health: string, timeoutS: number,
 *   ps: (o: { runDir: string }) => Promise<any[]>, send: (base: string, r: object, ms: number) => Promise<any>,
 *   giveUp: (why: { cause: string, evidence: string }) => void }} o
 * @returns {{ stop: () => void, sockets: Set<string> }} stop watching; the Unix sockets the app listened on
 */
export function watchStart({ runDir, service, health, timeoutS, ps, send, giveUp }) {
  const began = Date.now();
  const sockets = new Set();
  let busy = false;
  let settled = { key: '', since: Date.now() };
  const look = async () => {
    const row = (await ps({ runDir }).catch(() => [])).find((r) => r.service === service && r.status === 'running');
    if (!row?.url || !/^https?:/.test(row.url)) return;
    const port = Number(new URL(row.url).port);
    const listeners = processTree(row.pid).flatMap(listenersOf);
    for (const l of listeners.filter(socketFile)) sockets.add(path.resolve(cwdOf(l.pid) ?? '/', l.path));
    const reachable = listeners.some((l) => l.kind === 'tcp' && l.port === port && REACHABLE.has(l.address));
    const res = reachable ? await send(`http://127.0.0.1:${port}`, { path: health }, 2000) : null;
    if (res?.status >= 200 && res.status < 300) return;
    const key = listeners.map((l) => `${l.kind}${l.port ?? l.path}`).sort().join(',');
    if (key !== settled.key) settled = { key, since: Date.now() };
    const seconds = Math.round((Date.now() - began) / 1000);
    const elsewhere = !reachable && listeners.length && Date.now() - settled.since >= SETTLED_S * 1000;
    if (!elsewhere && Date.now() - began < timeoutS * 1000) return;
    const answered = res ? outcome(res) : null;
    giveUp({
      cause: causeOf({ port, listeners, health, answered, seconds, cwd: cwdOf(row.pid) }),
      evidence: listenersBlock(listeners),
    });
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    look().finally(() => { busy = false; });
  }, 500);
  return { stop: () => clearInterval(timer), sockets };
}

/**
 * Removes the Unix socket files an app listened on and left behind (a process killed while it listens
 * leaves its socket file): they existed only while it ran, and the bench leaves no file behind.
 * @param {Iterable<string>} files
 */
export function removeLeftSockets(files) {
  for (const f of files) {
    try {
      if (fs.lstatSync(f).isSocket()) fs.rmSync(f);
    } catch { /* gone already */ }
  }
}
