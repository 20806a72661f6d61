// While the app check's one process starts (local runs): where its processes listen, read from the
// system every half second, and what its health path answers on its PORT. It gives up — and says
// why, with the evidence — once the app has listened somewhere else than its PORT for
// SETTLED_S seconds (a Unix socket, another port, an address 127.0.0.1 doesn't reach), or has not
// answered 2xx on its PORT within the check's time. The runner stops it then.
import fs from 'node:fs';
import path from 'node:path';
import { listenersOf, processTree } from '../../wrap/listening.js';
import { causeOf, listenersBlock, REACHABLE } from './diagnose.js';

export const SETTLED_S = 20;

const commandOf = (pid) => {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return argv.map((a) => (a.length > 60 ? `…${a.slice(-59)}` : a)).join(' ').slice(0, 160);
  } catch {
    return '';
  }
};

const cwdOf = (pid) => { try { return fs.readlinkSync(`/proc/${pid}/cwd`); } catch { return undefined; } };

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
    const rows = (await ps({ runDir }).catch(() => [])).filter((r) => r.service === service && r.status === 'running');
    const row = rows[0];
    if (!row?.url || !/^https?:/.test(row.url)) return;
    const port = Number(new URL(row.url).port);
    const listeners = processTree(row.pid).flatMap(listenersOf);
    for (const l of listeners) {
      if (l.kind !== 'unix' || !l.path || l.path.startsWith('@')) continue;
      sockets.add(path.resolve(cwdOf(l.pid) ?? '/', l.path));
    }
    const reachable = listeners.some((l) => l.kind === 'tcp' && l.port === port && REACHABLE.has(l.address));
    const res = reachable ? await send(`http://127.0.0.1:${port}`, { path: health }, 2000) : null;
    if (res?.status >= 200 && res.status < 300) return;
    const key = listeners.map((l) => `${l.kind}${l.port ?? l.path}`).sort().join(',');
    if (key !== settled.key) settled = { key, since: Date.now() };
    const seconds = Math.round((Date.now() - began) / 1000);
    const elsewhere = !reachable && listeners.length && Date.now() - settled.since >= SETTLED_S * 1000;
    if (!elsewhere && Date.now() - began < timeoutS * 1000) return;
    const answered = res ? (res.status ? `answered ${res.status}` : `failed (${res.error})`) : null;
    giveUp({
      cause: causeOf({ port, listeners, health, answered, seconds, cwd: cwdOf(row.pid) }),
      evidence: listenersBlock(listeners, commandOf),
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
