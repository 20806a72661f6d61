// wrk (closed loop, C): the fastest generator here. Parses its text report (--latency).
import { GeneratorError } from './errors.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60000, h: 3600000 };

const DURATION = /^([\d.]+)(us|ms|s|m|h)$/;

function toMs(text) {
  const m = DURATION.exec(text.trim());
  if (!m) throw new GeneratorError(`wrk: cannot read duration "${text}"`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/** Turns wrk's text report into the common result shape. Throws if it isn't a wrk report. */
export function parseWrk(text) {
  const reqs = /(\d+) requests in ([\d.]+\w+),/.exec(text);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!reqs || !rps) throw new GeneratorError(`wrk: unexpected output: ${text.slice(0, 300)}`);
  const pct = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(text);
    return m ? toMs(m[1]) : null;
  };
  // "Latency   avg   stdev   max   +/- stdev" under Thread Stats. wrk prints each column in a fixed
  // width and truncates nothing, so a wide value runs into the one before it ("1.23s100.00ms"): the
  // max is the value before the percentage, and where that is not one duration it is not known.
  const lat = /^\s+Latency\s+(.+)$/m.exec(text)?.[1].trim().split(/\s+/) ?? [];
  const maxText = lat.length >= 2 && lat.at(-1).endsWith('%') ? lat.at(-2) : null;
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)?.slice(1).map(Number);
  const [connect, read, write, timeout] = sock ?? [0, 0, 0, 0];
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  return {
    requests: Number(reqs[1]),
    durationS: toMs(reqs[2]) / 1000,
    rps: Number(rps[1]),
    latencyMs: {
      p50: pct(50), p90: pct(90), p99: pct(99), max: maxText && DURATION.test(maxText) ? toMs(maxText) : null,
    },
    // wrk counts status >= 400 here (its "Non-2xx or 3xx"); responses were verified as 2xx beforehand.
    non2xx: bad ? Number(bad[1]) : 0,
    socketErrors: connect + read + write + timeout,
    socketErrorDetail: { connect, read, write, timeout },
  };
}

export const bin = () => process.env.WRK_BIN || 'wrk';

// A request other than a plain GET (an app's own POST): wrk takes it as a Lua script setting
// wrk.method, wrk.body and wrk.headers; one file per distinct request, kept for the run.
const scripts = new Map();
function scriptFor(request) {
  const key = JSON.stringify(request);
  if (!scripts.has(key)) {
    const file = path.join(os.tmpdir(), `bench-wrk-${process.pid}-${scripts.size}.lua`);
    const lua = (v) => JSON.stringify(String(v)); // a JSON string literal is a Lua string literal here
    const lines = [
      `wrk.method = ${lua(request.method)}`,
      ...(request.body !== undefined ? [`wrk.body = ${lua(request.body)}`] : []),
      ...Object.entries(request.headers ?? {}).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`),
    ];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    scripts.set(key, file);
    process.once('exit', () => fs.rmSync(file, { force: true }));
  }
  return scripts.get(key);
}

// threads: one per CPU the generator is pinned to (more would only fight each other).
export function run({ url, connections, durationS, timeoutS = 10, threads: cpus = 1, request = null }) {
  const threads = Math.max(1, Math.min(cpus, connections));
  // wrk takes whole seconds only.
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${Math.max(1, Math.round(durationS))}s`,
    '--timeout', `${timeoutS}s`, '--latency', ...(request ? ['-s', scriptFor(request)] : []), url];
  return new Promise((resolve, reject) => {
    execFile(bin(), args, { timeout: (durationS + timeoutS + 15) * 1000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (err) {
          const why = err.code === 'ENOENT'
            ? `"${bin()}" not found (install wrk or pick --tool autocannon)`
            : (stderr || err.message).trim();
          return reject(new GeneratorError(`wrk failed: ${why}`));
        }
        try { resolve({ tool: 'wrk', ...parseWrk(stdout) }); } catch (e) { reject(e); }
      });
  });
}

export function version() {
  return new Promise((resolve) => {
    execFile(bin(), ['--version'], { timeout: 5000 }, (err, stdout, stderr) => {
      const m = /wrk (\S+)/.exec(`${stdout}${stderr}`);
      resolve(m ? m[1] : null);
    });
  });
}
