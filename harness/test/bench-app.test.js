// make bench APP=… on real components: json-server, a Node service from the npm registry this
// repository doesn't contain, installed into a temp folder and started only by its own command
// (package.json's start script), generated into an app folder, checked, then run through the local
// runner under each strategy the bench measures — one process, the cluster module, PM2, replicas —
// answering through the real nginx; a service that opts in to reusePort; a crash mid-run read back
// as the app's last log line. Nothing is left running.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runnerFor } from '../runner/index.js';
import { prepareApp } from '../bench/lib/apps/prepare.js';
import { lastLogLine } from '../bench/lib/apps/last-log.js';
import {
  userFolder, httpService, removeFolders, leftRunning, cgroupsLeft, STRATEGY_KNOBS, getThrough,
} from './bench-app-helpers.js';
import { waitFor } from './helpers.js';

after(removeFolders);

const { up, down, ps, reload, workerPids } = runnerFor('processes');

const JSON_SERVER = 'json-server@0.17.4';
const service = userFolder('json-server', {
  'package.json': JSON.stringify(
    { name: 'posts-api', private: true, scripts: { start: 'json-server db.json --port $PORT --host 127.0.0.1' } },
    null,
    2,
  ),
  'db.json': JSON.stringify({
    posts: [
      { id: 1, title: 'hello' },
      { id: 2, title: 'world' },
    ],
  }),
});
// The user's own `npm install`, from the npm registry (the only network this test uses).
const install = spawnSync(
  'npm',
  ['install', '--no-audit', '--no-fund', '--loglevel=error', '--save-exact', JSON_SERVER],
  { cwd: service, encoding: 'utf8', timeout: 180_000 },
);
const installSaid = (install.stderr || install.error?.message || '').trim().split('\n').at(-1);
const skip = install.status === 0 ? false : `npm install ${JSON_SERVER} failed, no registry here? ${installSaid}`;

const STRATEGIES = STRATEGY_KNOBS;

// The processes the strategy runs: json-server itself alone, two replicas, or a manager's workers.
async function assertProcesses(label, state, runDir) {
  const instances = state.services.app.instances;
  const workers = await Promise.all(instances.map((i) => workerPids({ runDir, service: 'app', index: i.index })));
  if (label === 'one process') {
    assert.equal(instances.length, 1);
    if (state.cpuLimits?.enforced)
      assert.ok(
        cgroupsLeft('posts-api').length >= 2,
        'the app and nginx each in a cgroup of the run (the leak check sees them)',
      );
    assert.deepEqual(workers, [[]], 'no process around the app');
    const cmdline = fs.readFileSync(`/proc/${instances[0].pid}/cmdline`, 'utf8').split('\0');
    assert.ok(
      cmdline.some((a) => a.endsWith('node_modules/.bin/json-server')),
      `the instance is json-server itself, as sh started it (no shell around it): ${cmdline.join(' ')}`,
    );
  } else if (label.includes('replicas')) {
    assert.equal((await ps({ runDir })).filter((r) => r.service === 'app' && r.status === 'running').length, 2);
    assert.deepEqual(workers, [[], []]);
  } else {
    assert.equal(instances.length, 1);
    await waitFor(async () => (await workerPids({ runDir, service: 'app', index: 1 })).length >= 2, {
      timeoutMs: 20_000,
    });
  }
}

// SIGHUP: the primary replaces its workers one at a time; json-server answers throughout.
async function assertRollingRestart(state, runDir) {
  const before = await workerPids({ runDir, service: 'app', index: 1 });
  const rolled = await reload({ runDir, service: 'app' });
  assert.equal(rolled.strategy, 'signal');
  const now = await workerPids({ runDir, service: 'app', index: 1 });
  assert.equal(now.filter((p) => before.includes(p)).length, 0, 'every worker replaced');
  assert.deepEqual(await getThrough(state.url, '/posts?title=hello', 3), [200, 200, 200]);
}

describe(`make bench APP=: ${JSON_SERVER} from npm, started by its own start script`, { skip }, () => {
  let app;

  before(async () => {
    app = await prepareApp({
      app: service,
      paths: '/posts,/posts?title=hello,POST /posts {"title":"new"}',
      out: path.join(userFolder('json-server-out', {}), 'run'),
    });
  });

  test(
    'the check: generated, started once, healthy, every request below 400 through nginx; nothing left running',
    () => {
      assert.equal(app.description.framework, 'json-server');
      assert.deepEqual(app.description.strategies, ['one-process', 'cluster', 'pm2', 'replicas']);
      assert.deepEqual(
        app.description.requests.map((r) => `${r.method} ${r.path}`),
        ['GET /posts', 'GET /posts?title=hello', 'POST /posts'],
      );
      assert.deepEqual(leftRunning(path.join(app.out, 'check')), []);
      const launch = JSON.parse(fs.readFileSync(path.join(app.dir, 'launch.json'), 'utf8'));
      assert.equal(
        launch.entry,
        fs.realpathSync(path.join(service, 'node_modules/json-server/lib/cli/bin.js')),
        "the entry of its own command: the package's bin",
      );
    },
  );

  for (const [label, knobs] of Object.entries(STRATEGIES)) {
    test(`${label}: through the real nginx, as many processes as asked, nothing left after down`, async () => {
      const runDir = path.join(app.out, `run-${label.replace(/\W+/g, '-')}`);
      try {
        const state = await up({
          sample: app.dir,
          runDir,
          env: { ...app.description.defaults, HTTP_PORT: '0', ...knobs },
        });
        assert.deepEqual(await getThrough(state.url, '/posts'), [200, 200, 200, 200, 200, 200]);
        await assertProcesses(label, state, runDir);
        if (label.startsWith('cluster')) await assertRollingRestart(state, runDir);
      } finally {
        await down({ runDir });
      }
      assert.deepEqual(leftRunning(runDir), []);
      assert.deepEqual(cgroupsLeft('posts-api'), []);
    });
  }
});

describe('make bench APP=: reusePort where the service opts in', () => {
  test('REUSE_PORT: checked with two processes, then the kernel spreads connections over them', async () => {
    const dir = userFolder('reuseport', {
      'package.json': JSON.stringify({ name: 'rp-api', scripts: { start: 'node server.js' } }),
      'server.js': httpService("server.listen({ port: Number(process.env.PORT), host: '127.0.0.1', reusePort: true })"),
    });
    const app = await prepareApp({ app: dir, reusePort: true, out: path.join(userFolder('reuseport-out', {}), 'run') });
    assert.deepEqual(app.description.process_managers, ['cluster', 'pm2', 'reuseport']);
    const runDir = path.join(app.out, 'run');
    try {
      const state = await up({
        sample: app.dir,
        runDir,
        env: { ...app.description.defaults, HTTP_PORT: '0', PROCESS_MANAGER: 'reuseport', WORKERS: '2' },
      });
      const direct = state.services.app.instances[0].url;
      const pids = new Set();
      // A new connection per request: the kernel picks a process per connection.
      for (let i = 0; i < 200 && pids.size < 2; i += 1) {
        const res = await fetch(`${direct}/`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(5000) });
        pids.add(/** @type {any} */ (await res.json()).pid);
      }
      assert.equal(pids.size, 2, 'both processes answered on the one port');
      assert.equal((await fetch(`${state.url}/health`)).status, 200, 'and through nginx');
    } finally {
      await down({ runDir });
    }
    assert.deepEqual(leftRunning(runDir), []);
  });
});

describe('make bench APP=: an app that crashes mid-run', () => {
  test("its last log line is the app's error, for the failed cell to record", async () => {
    const dir = userFolder('crash', { 'server.js': httpService() });
    const app = await prepareApp({
      app: dir,
      start: 'node server.js',
      out: path.join(userFolder('crash-out', {}), 'run'),
    });
    const runDir = path.join(app.out, 'run');
    try {
      const state = await up({
        sample: app.dir,
        runDir,
        env: { ...app.description.defaults, HTTP_PORT: '0', WORKERS: '2' },
      });
      await fetch(`${state.url}/crash`).catch(() => {});
      await waitFor(async () => /crash requested/.test((await lastLogLine({ runDir, service: 'app' })) ?? ''), {
        timeoutMs: 10_000,
      });
      assert.equal(await lastLogLine({ runDir, service: 'app' }), 'Error: crash requested by GET /crash');
      // The cluster primary respawned the worker: the app serves again.
      await waitFor(async () => (await fetch(`${state.url}/health`).catch(() => ({ status: 0 }))).status === 200, {
        timeoutMs: 10_000,
      });
    } finally {
      await down({ runDir });
    }
    assert.deepEqual(leftRunning(runDir), []);
  });
});
