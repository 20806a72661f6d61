// The sample through the local runner (harness/runner): compose.yaml is the description, the
// runner puts the app in a cgroup with the CPU quota from CPUS, and nginx in front.
// Only app + nginx are started here, so these tests don't need MongoDB (the last one checks what
// happens without one).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { up, down, REPO_ROOT } from '../../harness/runner/index.js';
import { runProcesses } from '../../harness/runner/processes.js';
import { childPids, request, waitFor } from './helpers.js';

const LAB = path.join(REPO_ROOT, 'harness', 'bin', 'lab.js');
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
  const res = await request(Number(new URL(topo.url).port), '/');
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

// `make up SAMPLE=node-cluster` where no mongod can be had: one line naming the cause, exit 1,
// nothing left running. MONGOD_BIN points nowhere, so this holds on machines that have a mongod.
test('no mongod: `lab up` says why in one line, exits 1 and leaves nothing running', () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-nomongod-'));
  runDirs.push(runDir);
  const missing = path.join(runDir, 'no-such-mongod');
  const res = spawnSync(process.execPath, [LAB, 'up', 'node-cluster', '--port', '0', '--run-dir', runDir], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, MONGOD_BIN: missing },
  });
  assert.equal(res.status, 1, res.stdout + res.stderr);
  const errors = res.stderr.trim().split('\n');
  assert.equal(errors.length, 1, res.stderr);
  assert.match(errors[0], new RegExp(`^error: node-cluster-mongo-1 .*exited before it was healthy .*run-mongod: MONGOD_BIN=${missing} does not exist`));
  assert.equal(fs.existsSync(path.join(runDir, 'state.json')), false, 'no state left');
  assert.deepEqual(runProcesses(runDir), [], 'no process of this run left');
});
