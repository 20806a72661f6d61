// The sample through the local runner (harness/runner): compose.yaml is the description, the
// runner puts the app in a cgroup with the CPU quota from CPUS, and nginx in front.
// Only app + nginx are started here, so these tests don't need MongoDB.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { up, down } from '../../harness/runner/index.js';
import { childPids, request, waitFor } from './helpers.js';

const runDirs = [];
after(async () => {
  for (const runDir of runDirs) {
    await down({ runDir });
    fs.rmSync(runDir, { recursive: true, force: true });
  }
});

async function start(env) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-runner-'));
  runDirs.push(runDir);
  const topo = await up({
    sample: 'node-cluster',
    runDir,
    // Nothing listens on port 9: the app runs with its database "down".
    env: { HTTP_PORT: '0', MONGODB_URI_LOCAL: 'mongodb://127.0.0.1:9/items', ...env },
    services: ['app', 'nginx'],
    noDeps: true,
  });
  return { runDir, topo, app: topo.services.app.instances[0] };
}

// The primary logs its worker count and where it came from.
function primaryStart(app) {
  const line = fs.readFileSync(app.log, 'utf8').split('\n').find((l) => l.includes('"primary starting"'));
  return JSON.parse(line);
}

test('CPUS=1 on this machine → one worker (the cgroup quota, not the host cores)', async (t) => {
  const { runDir, topo, app } = await start({ CPUS: '1' });
  if (!topo.cpuLimits.enforced) {
    t.skip(`the runner can't enforce CPU quotas here: ${topo.cpuLimits.reason}`);
    return;
  }
  const started = primaryStart(app);
  assert.deepEqual([started.workers, started.source], [1, 'cpu quota/affinity']);
  await waitFor(() => childPids(app.pid).length === 1, { what: 'one worker process' });

  // Through nginx: the one worker answers.
  const res = await request(new URL(topo.url).port, '/');
  assert.equal(res.status, 200);
  assert.equal(res.body.instance, 'node-cluster-app-1');
  await down({ runDir });
});

test('CPUS=2 → as many workers as the machine has cores, up to 2', async (t) => {
  const { runDir, topo, app } = await start({ CPUS: '2' });
  if (!topo.cpuLimits.enforced) {
    t.skip(`the runner can't enforce CPU quotas here: ${topo.cpuLimits.reason}`);
    return;
  }
  const expected = Math.min(2, os.availableParallelism());
  assert.equal(primaryStart(app).workers, expected);
  await waitFor(() => childPids(app.pid).length === expected, { what: `${expected} worker processes` });
  await down({ runDir });
});

test('WORKERS overrides the quota', async () => {
  const { runDir, app } = await start({ CPUS: '1', WORKERS: '3' });
  assert.deepEqual([primaryStart(app).workers, primaryStart(app).source], [3, 'WORKERS']);
  await waitFor(() => childPids(app.pid).length === 3, { what: 'three worker processes' });
  const { stopped } = await down({ runDir });
  assert.equal(stopped, 2, 'app and nginx stopped');
  assert.deepEqual(childPids(app.pid), [], 'no worker left behind');
});
