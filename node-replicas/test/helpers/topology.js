// Runs this sample's compose.yaml through the local runner (real nginx, one process per replica)
// in a fresh run folder, and tears it down after the test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runnerFor } from '../../../harness/runner/index.js';
import { waitFor } from '../../../harness/lib/poll.js';
import { SAMPLE_DIR } from './child.js';

const { up, down, ps } = runnerFor('processes');

// `stop()` tears down early (e.g. to run another topology in the same test); t.after makes sure.
// KEEP_RUN=1 keeps the run folder (nginx and replica logs) for a post-mortem.
export async function startTopology(t, env = {}) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-replicas-test-'));
  let stopped;
  const stop = () => {
    stopped ??= down({ runDir }).then(() => process.env.KEEP_RUN || fs.rmSync(runDir, { recursive: true, force: true }));
    return stopped;
  };
  t.after(stop);
  const topo = await up({ sample: SAMPLE_DIR, runDir, env: { REPLICAS: '4', HTTP_PORT: '0', ...env } });
  const app = topo.services.app.instances;
  return { runDir, topo, url: topo.url, app, names: app.map((i) => i.name), stop };
}

export async function statusOf(runDir, service, index) {
  return (await ps({ runDir })).find((p) => p.service === service && p.index === index)?.status;
}

// Polls until the instance's process is gone (bounded); returns its last status.
export async function waitExited(runDir, service, index, maxMs = 15_000) {
  await waitFor(async () => await statusOf(runDir, service, index) !== 'running', { timeoutMs: maxMs }).catch(() => {});
  return statusOf(runDir, service, index);
}

export async function restartsOf(runDir, service, index) {
  return (await ps({ runDir })).find((p) => p.service === service && p.index === index)?.restarts;
}

// Polls until the instance runs again (its restart policy brought it back); bounded.
export async function waitRunning(runDir, service, index, maxMs = 30_000) {
  await waitFor(async () => await statusOf(runDir, service, index) === 'running', { what: `${service} ${index} to run again`, timeoutMs: maxMs });
}
