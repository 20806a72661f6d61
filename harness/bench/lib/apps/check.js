// Before anything is measured, a generated app is started once through the runner of its engine
// (one process, or one container, behind the repository's nginx), its health path must answer 2xx
// and every request must answer below 400 through nginx; then it is stopped. What goes wrong is one
// line naming it and how to fix it (AppInputError), and nothing is left running.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runnerFor } from '../../../runner/index.js';
import { waitFor } from '../../../lib/poll.js';
import { track } from '../run/cleanup.js';
import { AppInputError, outputBlock } from './errors.js';
import { lastLogLine, lastOutput } from './last-log.js';
import { requestText } from './requests.js';
import { outcome, removeLeftSockets, watchStart } from './start-watch.js';

const REQUEST_TIMEOUT_MS = 10_000;
const IN_USE = /EADDRINUSE\D*?(?:[\d.:[\]a-f]*:)?(\d{2,5})\b/;

/** One request as the bench sends it: { status } or { error }. */
export async function send(base, r, timeoutMs = REQUEST_TIMEOUT_MS) {
  try {
    const res = await fetch(`${base}${r.path}`, {
      method: r.method ?? 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      ...(r.body != null ? {
        body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
        headers: { 'content-type': r.content_type ?? 'application/json' },
      } : {}),
    });
    await res.arrayBuffer();
    return { status: res.status };
  } catch (e) {
    return {
      error: e.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : e.cause?.code ?? e.message,
    };
  }
}

// The evidence under a failed check's line: where it listens (from the watch), its last output.
function evidenceOf({ runDir, service, engine }, listening = '') {
  const out = engine === 'processes' ? lastOutput({ runDir, service }) : null;
  const file = path.relative(process.cwd(), out?.file ?? '');
  const named = file.startsWith('..') ? out?.file : file;
  const shown = out ? outputBlock(`its last output (${named}):`, out.text) : '';
  const said = out && !shown ? `  it printed nothing on stdout or stderr (${named})` : '';
  return [listening, shown || said].filter(Boolean).join('\n');
}

async function startFailure(err, app, runDir, gaveUp) {
  const msg = err.message;
  const { name } = app;
  const where = { runDir, service: app.description.app, engine: app.engine };
  // The runner's own message names the last line of whichever service failed (on Docker, maybe nginx).
  const said = (await lastLogLine(where).catch(() => null))
    ?? (app.engine === 'processes' ? /last log line: (.*)$/m.exec(msg)?.[1] : null);
  const last = said ? `; it last said: ${said}` : '';
  const inUse = IN_USE.exec(said ?? '') ?? IN_USE.exec(msg);
  const fail = (line, listening) => new AppInputError(line, { evidence: evidenceOf(where, listening) });
  if (inUse) {
    return fail(`${name} could not listen: port ${inUse[1]} is already taken. Make the app listen on `
      + `process.env.PORT (the bench gives every process a free port), or stop what holds port ${inUse[1]} `
      + `(\`ss -ltnp 'sport = :${inUse[1]}'\` shows it)`);
  }
  if (gaveUp) return fail(`${name} ${gaveUp.cause}`, gaveUp.evidence);
  if (/not healthy within|health (unhealthy|starting)|is unhealthy/.test(msg)) {
    return fail(`${name} never became healthy: GET ${app.description.health} did not answer 2xx in time${last}. `
      + 'Make it answer 2xx there once it is up (on PORT), or give HEALTH=/your/health/path');
  }
  if (/exited before it was healthy|exit \d+/.test(msg)) {
    const how = /\((exit code \d+|killed by \w+|exited, exit \d+)/.exec(msg)?.[1] ?? 'it exited';
    return fail(`${name} exited at start (${how})${said ? `: ${said}` : ', having printed nothing'}`);
  }
  if (/pull access denied|failed to resolve|manifest unknown|no such image/i.test(msg)) {
    return fail(`an image of ${name} is not on the Docker engine, and no registry is reachable here: `
      + 'build it (build: in compose.yaml) or `docker load` it first');
  }
  return fail(`${name} did not start: ${msg.split('\n')[0]}`);
}

async function waitHealthy(url, health, timeoutS) {
  let last;
  const healthy = async () => {
    last = await send(url, { path: health }, 5000);
    return last.status >= 200 && last.status < 300;
  };
  return waitFor(healthy, { timeoutMs: timeoutS * 1000, everyMs: 500 }).then(() => null, () => outcome(last));
}

// An app that opted in to reusePort, run as two processes: the second must listen beside the first.
/** @param {any} app @param {import('../../../runner/index.js').Runner} runner @param {(line: string) => void} log */
async function checkReusePort(app, runner, log) {
  const runDir = path.join(app.out, 'check-reuseport');
  const untrack = track(() => runner.down({ runDir }));
  try {
    const env = { ...app.description.defaults, HTTP_PORT: '0', PROCESS_MANAGER: 'reuseport', WORKERS: '2' };
    await runner.up({ sample: app.dir, runDir, env, services: [app.description.app], noDeps: true, log });
    const logs = path.join(runDir, 'logs');
    for (let i = 0; i < 60; i += 1) {
      const text = fs.readdirSync(logs).filter((f) => f.includes(`-${app.description.app}-`))
        .map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('\n');
      if (/EADDRINUSE/.test(text)) {
        throw new AppInputError(`REUSE_PORT=1, but a second process of ${app.name} could not listen on the same port `
          + '(EADDRINUSE): the app must listen with server.listen({ port, reusePort: true }) (Node >= 22.12), '
          + 'or leave REUSE_PORT out');
      }
      if (/reusePort ready/.test(text)) return;
      await sleep(250);
    }
    throw new AppInputError(
      `REUSE_PORT=1, but two processes of ${app.name} did not both listen within 15 s: see ${logs}`);
  } finally {
    await runner.down({ runDir }).catch(() => {});
    untrack();
  }
}

/**
 * Starts `app` (prepare.js) once, checks its health path and every request, stops it.
 * @param {{ name: string, engine: string, dir: string, out: string, source: string, description: any }} app
 * @param {{ log?: (line: string) => void, healthTimeoutS?: number }} [options]
 */
export async function checkApp(app, { log = () => {}, healthTimeoutS = 60 } = {}) {
  const runner = runnerFor(app.engine);
  const runDir = path.join(app.out, 'check');
  const x = app.description;
  const one = {
    ...x.defaults, HTTP_PORT: '0', [x.knobs.instances]: '1',
    ...(x.knobs.clustering ? { [x.knobs.clustering]: 'false' } : {}),
  };
  const untrack = track(() => runner.down({ runDir }));
  let gaveUp = null;
  const watch = app.engine === 'processes'
    ? watchStart({
      runDir, service: x.app, health: x.health, timeoutS: healthTimeoutS, ps: runner.ps, send,
      giveUp: (why) => {
        gaveUp ??= why;
        runner.down({ runDir }).catch(() => {});
      },
    })
    : { stop: () => {}, sockets: new Set() };
  try {
    const what = app.engine === 'docker' ? 'container' : 'process';
    const then = x.requests.map(requestText).join(', ');
    log(`checking ${app.name}: one ${what} behind nginx, GET ${x.health}, then ${then}`);
    // The watch ends once the app is up or failed: from there on the health wait and requests judge it.
    const state = await runner.up({ sample: app.dir, runDir, env: one, log }).finally(() => watch.stop())
      .catch(async (err) => { throw await startFailure(err, app, runDir, gaveUp); });
    const appUrl = state.services[x.app]?.instances?.[0]?.url ?? state.url;
    const unhealthy = await waitHealthy(appUrl, x.health, healthTimeoutS);
    if (unhealthy) {
      const said = await lastLogLine({ runDir, service: x.app, engine: app.engine });
      throw new AppInputError(`${app.name} never became healthy: GET ${x.health} ${unhealthy} for ${healthTimeoutS} s`
        + `${said ? `; it last said: ${said}` : ''}. `
        + 'Make it answer 2xx there once it is up, or give HEALTH=/your/health/path');
    }
    for (const r of x.requests) {
      const res = await send(state.url, r);
      if (res.status !== undefined && res.status < 400) continue;
      const said = res.status >= 500 || res.error
        ? await lastLogLine({ runDir, service: x.app, engine: app.engine })
        : null;
      const last = said ? `; the app last said: ${said}` : '';
      throw new AppInputError(`${requestText(r)} ${outcome(res)} through nginx${last}: `
        + 'every path must answer 2xx or 3xx before it is measured; fix the path (PATHS=…) or the app');
    }
    if (x.process_managers?.includes('reuseport')) await checkReusePort(app, runner, log);
    log(`${app.name}: healthy, and every request answered below 400`);
  } finally {
    watch.stop();
    await runner.down({ runDir }).catch(() => {});
    removeLeftSockets(watch.sockets);
    untrack();
  }
}
