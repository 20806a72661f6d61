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
import { runnerFor, runProcesses } from '../../harness/runner/index.js';
import { REPO_ROOT } from '../../harness/lib/repo-root.js';
import { childPids, pidAlive, request, waitFor, waitForChildren } from './helpers.js';

const { up, down, reload } = runnerFor('processes');

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

// The runner calls the app healthy once one process answers /health; PM2 starts its instances one
// after the other. Wait until `count` processes listen: nginx keeps reusing the upstream
// connections it opens first, so a process that listens later would get none of them.
function waitListening(app, count) {
  return waitFor(() => (fs.readFileSync(app.log, 'utf8').match(/"msg":"worker listening"/g) ?? []).length >= count, { timeoutMs: 30_000, what: `${count} processes listening` });
}

// Pids that answered through nginx, in rounds of 16 concurrent requests until `count` differ
// (bounded). Concurrent: one request at a time would ride one upstream keep-alive connection, and
// so one process.
async function servingPids(port, count) {
  const pids = new Set();
  for (let round = 0; round < 10 && pids.size < count; round += 1) {
    const answers = await Promise.all(Array.from({ length: 16 }, () => request(port, '/delay?ms=100')));
    for (const res of answers) pids.add(res.body.pid);
  }
  return pids;
}

// `make up SAMPLE=node-cluster PROCESS_MANAGER=reuseport WORKERS=2`, then `make reload`, `make down`.
test('PROCESS_MANAGER=reuseport: two processes behind nginx, make reload replaces both, down leaves none', async () => {
  const { runDir, topo, app } = await start({ PROCESS_MANAGER: 'reuseport', WORKERS: '2' });
  const before = await waitForChildren(app.pid, 2);
  await waitListening(app, 2);
  const nginxPort = Number(new URL(topo.url).port);
  assert.deepEqual([...await servingPids(nginxPort, 2)].sort(), before.sort());
  const r = await reload({ runDir, sample: 'node-cluster', service: 'app' });
  assert.equal(r.strategy, 'signal');
  const after = childPids(app.pid);
  assert.equal(after.length, 2);
  assert.ok(after.every((pid) => !before.includes(pid)), 'both processes replaced');
  assert.equal((await request(nginxPort, '/')).status, 200);
  await down({ runDir });
  assert.deepEqual([app.pid, ...after].filter(pidAlive), [], 'no process left');
});

test('PROCESS_MANAGER=pm2: pm2-runtime with two instances behind nginx, make reload replaces both, down leaves none', async () => {
  const { runDir, topo, app } = await start({ PROCESS_MANAGER: 'pm2', WORKERS: '2' });
  const instances = await waitForChildren(app.pid, 2);
  await waitListening(app, 2);
  assert.deepEqual([...await servingPids(new URL(topo.url).port, 2)].sort(), instances.sort());
  // PM2_HOME is a folder of this run's, not ~/.pm2.
  const environ = fs.readFileSync(`/proc/${app.pid}/environ`, 'utf8').split('\0');
  const home = environ.find((v) => v.startsWith('PM2_HOME=')).slice('PM2_HOME='.length);
  assert.ok(home.startsWith(runDir), home);
  assert.equal(fs.readFileSync(path.join(home, 'pm2.pid'), 'utf8'), String(app.pid));
  // SIGHUP, which pm2-runtime alone would die of, is `pm2 reload app` (ecosystem.config.cjs).
  assert.equal((await reload({ runDir, sample: 'node-cluster', service: 'app' })).strategy, 'signal');
  const after = await waitForChildren(app.pid, 2);
  assert.ok(after.every((pid) => !instances.includes(pid)), 'both instances replaced');
  await down({ runDir });
  assert.deepEqual([app.pid, ...instances, ...after].filter(pidAlive), [], 'no pm2-runtime and no instance left');
});

// `make up SAMPLE=node-cluster` where no mongod can be had, or MONGOD_BIN is not one: one line
// naming the cause, exit 1, nothing left running. MONGOD_BIN points nowhere, or at /bin/true, so
// this holds on machines that have a mongod.
/** @type {Array<{ what: string, bin: (runDir: string) => string, cause: (bin: string) => string }>} */
const BAD_MONGOD = [
  { what: 'no mongod', bin: (runDir) => path.join(runDir, 'no-such-mongod'), cause: (bin) => `MONGOD_BIN=${bin} does not exist` },
  { what: 'MONGOD_BIN=/bin/true (not mongod)', bin: () => '/bin/true', cause: () => 'MONGOD_BIN=/bin/true is not mongod: `--version` ' },
];
for (const { what, bin, cause } of BAD_MONGOD) {
  test(`${what}: \`lab up\` says why in one line, exits 1 and leaves nothing running`, () => {
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-nomongod-'));
    runDirs.push(runDir);
    const mongodBin = bin(runDir);
    const res = spawnSync(process.execPath, [LAB, 'up', 'node-cluster', '--port', '0', '--run-dir', runDir], {
      encoding: 'utf8', timeout: 120_000, env: { ...process.env, MONGOD_BIN: mongodBin },
    });
    assert.equal(res.status, 1, res.stdout + res.stderr);
    const errors = res.stderr.trim().split('\n');
    assert.equal(errors.length, 1, res.stderr);
    assert.ok(errors[0].startsWith('error: node-cluster-mongo-1 '), errors[0]);
    assert.match(errors[0], /exited before it was healthy /);
    assert.ok(errors[0].includes(`run-mongod: ${cause(mongodBin)}`), errors[0]);
    assert.equal(fs.existsSync(path.join(runDir, 'state.json')), false, 'no state left');
    assert.deepEqual(runProcesses(runDir), [], 'no process of this run left');
  });
}
