// Shared by the runner's tests: a private run folder per test, process-leak checks, polling.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../runner/processes.js';

export const FIXTURE = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'echo');

export function tempRunDir(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `lab-${label}-`));
}

export function pidsOf(state) {
  const pids = Object.values(state.services).flatMap((s) => s.instances ?? []).map((i) => i.pid);
  return state.supervisor ? [...pids, state.supervisor.pid] : pids;
}

export function alivePids(pids) {
  return pids.filter((pid) => isAlive(pid));
}

/**
 * Every live process that belongs to a run: the runner gives each instance LAB_RUN_DIR in its
 * environment; nginx rewrites its own (process title), so it and the supervisor are found by the
 * run folder on their command line.
 */
export function runProcesses(runDir) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${name}/environ`, 'latin1');
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if ((environ.includes(`LAB_RUN_DIR=${runDir}\0`) || cmdline.includes(runDir)) && isAlive(Number(name))) found.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return found;
}

export async function getJson(url, init = {}) {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000), ...init });
  return { status: res.status, body: await res.json() };
}

/** Polls `check` (sync or async) until it returns something truthy; bounded in time. */
export async function waitFor(check, { what, timeoutMs = 20_000, everyMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
