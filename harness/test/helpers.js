// Shared by the runner's tests: a private run folder per test, process-leak checks, polling (the
// harness's own waitFor, ../lib/poll.js, and the runner's runProcesses).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../lib/processes.js';

export { waitFor } from '../lib/poll.js';
export { runProcesses } from '../runner/index.js';

export const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'echo');

/** A regular expression from parts (String.raw), so a long expected message fits in short lines. */
export const pattern = (...parts) => new RegExp(parts.join(''));

/**
 * A test's stand-in for part of the Runner contract, typed as the whole: the code under test may
 * call only what the stand-in has (anything else is not a function, and the test fails).
 * @template T @param {T} fake @returns {T & import('../runner/index.js').Runner}
 */
export const asRunner = (fake) => /** @type {any} */ (fake);

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

/** @param {string} url @param {RequestInit} [init] @returns {Promise<{ status: number, body: any }>} */
export async function getJson(url, init = {}) {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000), ...init });
  return { status: res.status, body: await res.json() };
}
