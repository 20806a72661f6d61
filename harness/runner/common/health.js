// Local health checks: the compose healthcheck's URL path polled on the instance's loopback port,
// or a TCP connect when the healthcheck names no URL.
import fs from 'node:fs';
import net from 'node:net';
import http from 'node:http';

function tcpOpen(port, timeoutMs) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function httpOk(port, path, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 300);
    });
    req.once('timeout', () => { req.destroy(); resolve(false); });
    req.once('error', () => resolve(false));
  });
}

export function checkOnce(port, healthcheck) {
  const timeout = Math.min(healthcheck.timeoutMs, 5000);
  return healthcheck.kind === 'http' ? httpOk(port, healthcheck.path, timeout) : tcpOpen(port, timeout);
}

/** The last non-empty line a process wrote to its log (what it said before it died), or null. @param {string} [file] */
export function lastLine(file) {
  if (!file) return null;
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
    return lines.at(-1)?.slice(0, 300) ?? null;
  } catch { return null; }
}

/**
 * Waits until the instance is healthy. `exited()` (may be async) returns an exit description once
 * the process has died, so a crash fails at once instead of after the whole budget; `cancelled()`
 * returning true stops the wait (the run is being taken down); `log`, the instance's log file,
 * gives the error the last line the process wrote.
 * @param {{ port: number, healthcheck: object, exited: () => unknown, label: string, log?: string, cancelled?: () =>
 * boolean, budgetMs?: number }} options
 */
export async function waitHealthy({ port, healthcheck, exited, label, log, cancelled = () => false, budgetMs }) {
  const budget =
    budgetMs ??
    Math.max(healthcheck.startPeriodMs + healthcheck.retries * Math.max(healthcheck.intervalMs, 1000), 60_000);
  const deadline = Date.now() + budget;
  while (Date.now() < deadline) {
    if (cancelled()) throw new Error(`${label}: stopped waiting, the run is being taken down`);
    const gone = await exited();
    if (gone) {
      const said = lastLine(log);
      throw new Error(`${label} exited before it was healthy (${gone})${said ? `: ${said}` : ''}`);
    }
    if (await checkOnce(port, healthcheck)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(
    `${label} was not healthy within ${Math.round(budget / 1000)} s ` +
      `(${healthcheck.kind === 'http' ? `GET ${healthcheck.path}` : 'TCP'} on port ${port})`,
  );
}
