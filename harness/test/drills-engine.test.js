// The drills act on a deployment through the runner of the engine it runs on (`runner`), never
// through the processes backend behind its back: a run on Docker kills, waits and rolls out with
// the docker backend's operations. Here the runner is a recording stand-in around a real HTTP
// server on 127.0.0.1 and real processes as the "workers"; the drills on real topologies are in
// drills.test.js (processes) and the bench's `--engine docker --scenario drills` (Docker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ENGINES, runnerFor } from '../runner/index.js';
import { faultDrill } from '../bench/lib/drills/fault.js';
import { rolloutDrill } from '../bench/lib/drills/rollout.js';
import { isAlive } from '../lib/processes.js';
import { waitFor } from './helpers.js';

const MIX = { get: '/', post: { path: '/echo', body: '{"drill":true}', contentType: 'application/json' }, postShare: 0.2 };
const RUN_DIR = 'stand-in-run-folder';

async function server(t) {
  const s = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('{"ok":true}')); });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.after(() => new Promise((r) => { s.closeAllConnections(); s.close(r); }));
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (s.address()).port}`;
}

// A process that stands for a cluster worker: the drill kills the first one with SIGKILL.
function sleeper(t) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  return child;
}

// Two instances of `app`; each kill gives the instance a new pid once it "serves again".
function recordingRunner(extra = {}) {
  const calls = [];
  const pids = { 1: 101, 2: 102 };
  return {
    calls,
    readState: async (runDir) => (runDir === RUN_DIR ? { sample: 'stand-in', services: { app: { instances: [{ index: 1 }, { index: 2 }] } } } : undefined),
    ps: async () => [1, 2].map((index) => ({
      service: 'app', index, name: `stand-in-app-${index}`, pid: pids[index], url: '-', status: 'running', restarts: 0,
    })),
    signal: async (o) => { calls.push(['signal', o]); return { name: `stand-in-app-${o.index}`, pid: pids[o.index] }; },
    waitServing: async (o) => {
      calls.push(['waitServing', o]);
      pids[o.index] += 10;
      return { pid: pids[o.index], healthyAt: Date.now(), inRotationAt: Date.now() + 5 };
    },
    ...extra,
  };
}

test('the fault drill kills instances and waits for them through the runner it is given', async (t) => {
  const url = await server(t);
  const runner = recordingRunner();
  const r = await faultDrill({ runner, runDir: RUN_DIR, url, how: 'instance', kills: 3, rate: 50, mix: MIX, settleMs: 100, gapMs: 50 });
  assert.deepEqual(runner.calls, [
    ['signal', { runDir: RUN_DIR, service: 'app', index: 1, signal: 'SIGKILL' }],
    ['waitServing', { runDir: RUN_DIR, service: 'app', index: 1, notPid: 101 }],
    ['signal', { runDir: RUN_DIR, service: 'app', index: 2, signal: 'SIGKILL' }],
    ['waitServing', { runDir: RUN_DIR, service: 'app', index: 2, notPid: 102 }],
    ['signal', { runDir: RUN_DIR, service: 'app', index: 1, signal: 'SIGKILL' }],
    // The pid ps gives now: the one the first kill's restart left.
    ['waitServing', { runDir: RUN_DIR, service: 'app', index: 1, notPid: 111 }],
  ]);
  assert.deepEqual(r.kills.map((k) => [k.target, k.pid]), [['stand-in-app-1', 101], ['stand-in-app-2', 102], ['stand-in-app-1', 111]]);
  assert.ok(r.kills.every((k) => k.backAfterMs >= 0 && k.inRotationAfterMs >= k.backAfterMs));
  assert.equal(r.get.failed + r.post.failed, 0);
});

test('a kill of the instance the load goes to straight fails the drill when the instance comes back on another port', async (t) => {
  const url = await server(t);
  let port = Number(new URL(url).port);
  const runner = recordingRunner({
    ps: async () => [{ service: 'app', index: 1, name: 'stand-in-app-1', pid: 101, url: `http://127.0.0.1:${port}` }],
    waitServing: async () => { port += 1; return { pid: 111, healthyAt: Date.now(), inRotationAt: Date.now() }; },
  });
  await assert.rejects(faultDrill({ runner, runDir: RUN_DIR, url, how: 'instance', kills: 1, rate: 50, mix: MIX, settleMs: 100 }),
    new RegExp(`^Error: stand-in-app-1 came back on http://127\\.0\\.0\\.1:${port + 1} instead of ${url.replaceAll('.', '\\.')}, where the load goes`));
});

test('the fault drill kills a worker the runner names and waits until the runner sees its replacement listen', async (t) => {
  const url = await server(t);
  const victim = sleeper(t);
  const replacement = sleeper(t);
  const asked = [];
  const runner = recordingRunner({
    workerPids: async (o) => { asked.push(['workerPids', o]); return isAlive(victim.pid) ? [victim.pid] : [replacement.pid]; },
    logReader: async (o) => {
      asked.push(['logReader', o]);
      return { read: async () => (isAlive(victim.pid) ? '' : `{"pid":${replacement.pid},"msg":"worker listening"}\n`) };
    },
    isServing: async (o) => { asked.push(['isServing', o]); return true; },
  });
  const r = await faultDrill({ runner, runDir: RUN_DIR, url, how: 'worker', kills: 1, rate: 50, mix: MIX, settleMs: 100 });
  await waitFor(() => victim.signalCode === 'SIGKILL', { what: 'the victim killed by SIGKILL', timeoutMs: 5000 });
  assert.deepEqual(r.kills.map((k) => [k.target, k.pid]), [['stand-in-app-1 worker', victim.pid]]);
  const at = { runDir: RUN_DIR, service: 'app', index: 1 };
  assert.deepEqual(asked.slice(0, 2), [['workerPids', at], ['logReader', at]]);
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
      return { strategy: 'proxy', zeroDowntime: true, tookMs: 1, steps: [{ instance: 'stand-in-app-1', from: { pid: 101 }, to: { pid: 201 }, startedAt, tookMs: 1 }] };
    },
  });
  const r = await rolloutDrill({ runner, runDir: RUN_DIR, sample: 'stand-in', url, rate: 50, mix: MIX, settleMs: 100 });
  assert.deepEqual(runner.calls, [['reload', { runDir: RUN_DIR, sample: 'stand-in', service: 'app' }]]);
  assert.deepEqual(r.steps.map((s) => [s.instance, s.to.pid]), [['stand-in-app-1', 201]]);
  assert.equal(r.strategy, 'proxy');
});

test('every engine\'s runner has the operations the drills use', async () => {
  for (const engine of ENGINES) {
    const runner = await runnerFor(engine);
    for (const op of ['readState', 'ps', 'signal', 'waitServing', 'isServing', 'workerPids', 'logReader', 'reload']) {
      assert.equal(typeof runner[op], 'function', `${engine}: ${op}`);
    }
  }
});
