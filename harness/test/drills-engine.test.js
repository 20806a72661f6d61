// The drills act on a deployment through the runner of the engine it runs on (`runner`), never
// through the processes backend behind its back: a run on Docker kills, waits and rolls out with
// the docker backend's operations. Here the runner is a recording stand-in around a real HTTP
// server on 127.0.0.1 and real processes as the "workers"; the drills on real topologies are in
// drills.test.js and drills-dotnet.test.js (processes) and docker/drills.test.js (Docker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ENGINES, runnerFor } from '../runner/index.js';
import { faultDrill } from '../bench/lib/drills/fault.js';
import { rolloutDrill } from '../bench/lib/drills/rollout.js';
import { lifecycleDrill } from '../bench/lib/drills/lifecycle.js';
import { isAlive } from '../lib/processes.js';
import { waitFor, asRunner } from './helpers.js';

const MIX = {
  get: '/',
  post: { path: '/echo', body: '{"drill":true}', contentType: 'application/json' },
  postShare: 0.2,
};
const RUN_DIR = 'stand-in-run-folder';
// The app's x-bench description, handed to the drill: no store to read back here.
const APP = { post: '/echo', writes: null };

async function server(t) {
  const s = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.after(
    () =>
      new Promise((r) => {
        s.closeAllConnections();
        s.close(r);
      }),
  );
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (s.address()).port}`;
}

// A process that stands for a cluster worker: the drill kills the first one with SIGKILL.
function sleeper(t) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

// Two instances of `app`; each kill gives the instance a new pid once it "serves again".
function recordingRunner(extra = {}) {
  const calls = [];
  const pids = { 1: 101, 2: 102 };
  return asRunner({
    calls,
    readState: async (runDir) =>
      runDir === RUN_DIR
        ? { sample: 'stand-in', services: { app: { instances: [{ index: 1 }, { index: 2 }] } } }
        : undefined,
    ps: async () =>
      [1, 2].map((index) => ({
        service: 'app',
        index,
        name: `stand-in-app-${index}`,
        pid: pids[index],
        url: '-',
        status: 'running',
        restarts: 0,
      })),
    signal: async (o) => {
      calls.push(['signal', o]);
      return { name: `stand-in-app-${o.index}`, pid: pids[o.index] };
    },
    waitServing: async (o) => {
      calls.push(['waitServing', o]);
      pids[o.index] += 10;
      return { pid: pids[o.index], healthyAt: Date.now(), inRotationAt: Date.now() + 5 };
    },
    ...extra,
  });
}

test('the fault drill kills instances and waits for them through the runner it is given', async (t) => {
  const url = await server(t);
  const runner = recordingRunner();
  const r = await faultDrill({
    runner,
    runDir: RUN_DIR,
    url,
    how: 'instance',
    kills: 3,
    rate: 50,
    mix: MIX,
    app: APP,
    settleMs: 100,
    gapMs: 50,
  });
  assert.deepEqual(runner.calls, [
    ['signal', { runDir: RUN_DIR, service: 'app', index: 1, signal: 'SIGKILL' }],
    ['waitServing', { runDir: RUN_DIR, service: 'app', index: 1, notPid: 101 }],
    ['signal', { runDir: RUN_DIR, service: 'app', index: 2, signal: 'SIGKILL' }],
    ['waitServing', { runDir: RUN_DIR, service: 'app', index: 2, notPid: 102 }],
    ['signal', { runDir: RUN_DIR, service: 'app', index: 1, signal: 'SIGKILL' }],
    // The pid ps gives now: the one the first kill's restart left.
    ['waitServing', { runDir: RUN_DIR, service: 'app', index: 1, notPid: 111 }],
  ]);
  assert.deepEqual(
    r.kills.map((k) => [k.target, k.pid]),
    [
      ['stand-in-app-1', 101],
      ['stand-in-app-2', 102],
      ['stand-in-app-1', 111],
    ],
  );
  assert.ok(r.kills.every((k) => k.backAfterMs >= 0 && k.inRotationAfterMs >= k.backAfterMs));
  assert.equal(r.get.failed + r.post.failed, 0);
});

test('a kill straight at the instance fails the drill when it comes back on another port', async (t) => {
  const url = await server(t);
  let port = Number(new URL(url).port);
  const runner = recordingRunner({
    ps: async () => [{ service: 'app', index: 1, name: 'stand-in-app-1', pid: 101, url: `http://127.0.0.1:${port}` }],
    waitServing: async () => {
      port += 1;
      return { pid: 111, healthyAt: Date.now(), inRotationAt: Date.now() };
    },
  });
  await assert.rejects(
    faultDrill({
      runner,
      runDir: RUN_DIR,
      url,
      how: 'instance',
      kills: 1,
      rate: 50,
      mix: MIX,
      app: APP,
      settleMs: 100,
    }),
    new RegExp(
      `^Error: stand-in-app-1 came back on http://127\\.0\\.0\\.1:${port + 1} instead of ${url.replaceAll('.', '\\.')}, where the load goes`,
    ),
  );
});

test('the fault drill kills a worker the runner names, waits until its replacement listens', async (t) => {
  const url = await server(t);
  const victim = sleeper(t);
  const replacement = sleeper(t);
  const asked = [];
  const runner = recordingRunner({
    workerPids: async (o) => {
      asked.push(['workerPids', o]);
      return isAlive(victim.pid) ? [victim.pid] : [replacement.pid];
    },
    logReader: async (o) => {
      asked.push(['logReader', o]);
      return { read: async () => (isAlive(victim.pid) ? '' : `{"pid":${replacement.pid},"msg":"worker listening"}\n`) };
    },
    isServing: async (o) => {
      asked.push(['isServing', o]);
      return true;
    },
  });
  const r = await faultDrill({
    runner,
    runDir: RUN_DIR,
    url,
    how: 'worker',
    kills: 1,
    rate: 50,
    mix: MIX,
    app: APP,
    settleMs: 100,
  });
  await waitFor(() => victim.signalCode === 'SIGKILL', { what: 'the victim killed by SIGKILL', timeoutMs: 5000 });
  assert.deepEqual(
    r.kills.map((k) => [k.target, k.pid]),
    [['stand-in-app-1 worker', victim.pid]],
  );
  const at = { runDir: RUN_DIR, service: 'app', index: 1 };
  assert.deepEqual(asked.slice(0, 2), [
    ['workerPids', at],
    ['logReader', at],
  ]);
  assert.deepEqual(asked.at(-1), ['isServing', at]);
  assert.ok(isAlive(replacement.pid), 'only the worker the runner named was killed');
  assert.deepEqual(runner.calls, [], 'no instance was signalled');
});

test('the rollout drill runs the reload of the runner it is given', async (t) => {
  const url = await server(t);
  const runner = recordingRunner({
    reload: async (o) => {
      runner.calls.push(['reload', { runDir: o.runDir, sample: o.sample, service: o.service }]);
      const startedAt = Date.now();
      return {
        strategy: 'proxy',
        zeroDowntime: true,
        tookMs: 1,
        steps: [{ instance: 'stand-in-app-1', from: { pid: 101 }, to: { pid: 201 }, startedAt, tookMs: 1 }],
      };
    },
  });
  const r = await rolloutDrill({
    runner,
    runDir: RUN_DIR,
    sample: 'stand-in',
    url,
    rate: 50,
    mix: MIX,
    app: APP,
    about: { strategy: 'replicas', processes: 2 },
    settleMs: 100,
  });
  assert.deepEqual(runner.calls, [['reload', { runDir: RUN_DIR, sample: 'stand-in', service: 'app' }]]);
  assert.deepEqual(
    r.steps.map((s) => [s.instance, s.to.pid]),
    [['stand-in-app-1', 201]],
  );
  assert.deepEqual(
    [r.kind, r.strategy, r.processes, r.roll, r.rolledBy, r.engine],
    ['rollout', 'replicas', 2, 'reload', 'proxy', null],
  );
  assert.deepEqual(r.writes, {
    counted: false,
    why: 'stand-in has no store the drill can count (x-bench.writes: null)',
  });
});

test('a lone process is rolled out by restarting it in place, through the runner it is given', async (t) => {
  const url = await server(t);
  const runner = recordingRunner({
    restart: async (o) => {
      runner.calls.push(['restart', o]);
      return { pid: 300 + o.index };
    },
  });
  const r = await rolloutDrill({
    runner,
    runDir: RUN_DIR,
    url,
    roll: 'restart',
    rate: 50,
    mix: MIX,
    app: APP,
    settleMs: 100,
  });
  assert.deepEqual(runner.calls, [
    ['restart', { runDir: RUN_DIR, service: 'app', index: 1 }],
    ['restart', { runDir: RUN_DIR, service: 'app', index: 2 }],
  ]);
  assert.deepEqual([r.rolledBy, r.zeroDowntime], ['restart', false]);
  assert.deepEqual(
    r.steps.map((s) => [s.instance, s.from.pid, s.to.pid]),
    [
      ['stand-in-app-1', 101, 301],
      ['stand-in-app-2', 102, 302],
    ],
  );
  await assert.rejects(rolloutDrill({ runner, runDir: RUN_DIR, url, roll: 'redeploy', mix: MIX, app: APP }), {
    message: "roll must be 'reload' or 'restart' (got \"redeploy\")",
  });
});

// Two instances of `app` that a SIGTERM stops and a restart brings back; scale answers as the runner does.
function lifecycleRunner() {
  const running = { 1: true, 2: true };
  const row = (index) => ({
    service: 'app',
    index,
    name: `stand-in-app-${index}`,
    pid: 100 + index,
    status: running[index] ? 'running' : 'exited',
  });
  const runner = recordingRunner({
    ps: async () => [1, 2].map(row),
    signal: async (o) => {
      runner.calls.push(['signal', o]);
      running[o.index] = false;
    },
    restart: async (o) => {
      runner.calls.push(['restart', o]);
      running[o.index] = true;
      return { pid: 500 };
    },
    waitServing: async (o) => {
      runner.calls.push(['waitServing', o]);
      return { pid: 500, healthyAt: Date.now(), inRotationAt: Date.now() };
    },
    scale: async (o) => {
      runner.calls.push(['scale', { replicas: o.replicas }]);
      return { tookMs: 5, removed: o.replicas === 1 ? ['stand-in-app-2'] : [] };
    },
  });
  return runner;
}

test('the stop drill stops each instance, restarts it and waits until nginx takes it back', async (t) => {
  const url = await server(t);
  const runner = lifecycleRunner();
  const options = { runner, runDir: RUN_DIR, url, events: 2, rate: 50, mix: MIX, app: APP, settleMs: 100, gapMs: 20 };
  const stop = await lifecycleDrill({ ...options, kind: 'stop' });
  const at = (index) => ({ runDir: RUN_DIR, service: 'app', index });
  assert.deepEqual(runner.calls, [
    ['signal', { ...at(1), signal: 'SIGTERM' }],
    ['restart', at(1)],
    ['waitServing', { ...at(1), notPid: 101 }],
    ['signal', { ...at(2), signal: 'SIGTERM' }],
    ['restart', at(2)],
    ['waitServing', { ...at(2), notPid: 102 }],
  ]);
  assert.deepEqual(
    stop.events.map((e) => e.target),
    ['stand-in-app-1', 'stand-in-app-2'],
  );
  assert.ok(stop.events.every((e) => e.backMs >= e.stoppedMs && e.outageMs === 0));
});

test('the scale-down drill scales to n-1 and back; bad kinds and one instance refused', async (t) => {
  const url = await server(t);
  const runner = lifecycleRunner();
  const options = { runner, runDir: RUN_DIR, url, rate: 50, mix: MIX, app: APP, settleMs: 100 };
  const down = await lifecycleDrill({ ...options, kind: 'scale-down', events: 1 });
  assert.deepEqual(runner.calls, [
    ['scale', { replicas: 1 }],
    ['scale', { replicas: 2 }],
  ]);
  const [event] = down.events;
  assert.deepEqual([down.kind, event.target, event.from, event.to], ['scale-down', 'stand-in-app-2', 2, 1]);
  await assert.rejects(lifecycleDrill({ ...options, kind: 'drain' }), {
    message: "kind must be 'stop' or 'scale-down' (got \"drain\")",
  });
  const one = recordingRunner({
    ps: async () => [{ service: 'app', index: 1, name: 'stand-in-app-1', pid: 101, status: 'running' }],
  });
  await assert.rejects(lifecycleDrill({ ...options, runner: one, kind: 'stop' }), {
    message: "a stop drill needs 2 or more instances of 'app' (it has 1): with one, nothing serves meanwhile",
  });
});

test("every engine's runner has the operations the drills use", async () => {
  for (const engine of ENGINES) {
    const runner = await runnerFor(engine);
    for (const op of [
      'readState',
      'ps',
      'signal',
      'restart',
      'scale',
      'waitServing',
      'isServing',
      'workerPids',
      'logReader',
      'reload',
      'exec',
    ]) {
      assert.equal(typeof runner[op], 'function', `${engine}: ${op}`);
    }
  }
});
