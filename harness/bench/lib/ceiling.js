// Generator ceiling: each tool against a bare nginx `return 200` on loopback. A result above
// GENERATOR_BOUND of the ceiling says more about the generator than about the server.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../runner/ports.js';
import { waitTcp } from '../../runner/health.js';
import { nginxBinary } from '../../runner/nginx.js';
import { getTool } from './tools/index.js';
import { track } from './cleanup.js';

export const GENERATOR_BOUND = 0.7;
const CONF = new URL('../ceiling-nginx.conf', import.meta.url);

/** Starts nginx in the foreground; returns {url, pid, stop()}. */
export async function startBareNginx() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-ceiling-'));
  await mkdir(path.join(dir, 'tmp'));
  const port = await freePort();
  const conf = (await readFile(CONF, 'utf8')).replaceAll('__DIR__', dir).replaceAll('__PORT__', String(port));
  await writeFile(path.join(dir, 'nginx.conf'), conf);
  const child = spawn(nginxBinary(), ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const failed = new Promise((_, reject) => {
    child.once('error', (e) => reject(new Error(`cannot start nginx for the ceiling: ${e.message}`)));
    exited.then((code) => reject(new Error(`nginx exited (${code}): ${stderr.trim()}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([waitTcp(port, 5000), failed]);
  } catch (e) {
    await stop();
    throw e;
  }
  failed.catch(() => {});
  const untrack = track(stop);
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, stop: async () => { untrack(); await stop(); } };
}

/** Measures each named tool's ceiling (req/s). */
export async function measureCeilings(toolNames, { durationS = 3, connections = 50, onStep } = {}) {
  const nginx = await startBareNginx();
  const out = {};
  try {
    for (const name of toolNames) {
      onStep?.(`ceiling ${name}`);
      const r = await getTool(name).run({ url: nginx.url, connections, durationS });
      out[name] = { rps: Math.round(r.rps), connections, durationS, latencyMs: r.latencyMs };
    }
  } finally {
    await nginx.stop();
  }
  return out;
}

export function isGeneratorBound(rps, ceiling) {
  return Boolean(ceiling && rps > GENERATOR_BOUND * ceiling);
}
