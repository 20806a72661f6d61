// Shared by the runner's tests: a private run folder per test and process-leak checks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../runner/processes.js';

export const FIXTURE = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'echo');

export function tempRunDir(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `lab-${label}-`));
}

export function pidsOf(state) {
  return Object.values(state.services).flatMap((s) => s.instances ?? []).map((i) => i.pid);
}

export function alivePids(pids) {
  return pids.filter((pid) => isAlive(pid));
}

export async function getJson(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: await res.json() };
}
