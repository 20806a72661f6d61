// The fault and rollout drills against real topologies through the runner (node-replicas behind
// Debian's nginx with the reference config, the node-cluster primary), counting failed requests.
// Failures are counted, never timed: the targets are 0 failed GETs when one of two replicas dies,
// and 0 failed requests while the replicas are replaced one at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runnerFor } from '../runner/index.js';
import { startLoad, summarise } from '../bench/lib/drills/load.js';
import { faultDrill } from '../bench/lib/drills/fault.js';
import { rolloutDrill } from '../bench/lib/drills/rollout.js';
import { tempRunDir, runProcesses, waitFor } from './helpers.js';
import { setTimeout as sleep } from 'node:timers/promises';

const { up, down, ps, signal, readState } = runnerFor('processes');

const MIX = {
  get: '/',
  post: { path: '/echo', body: JSON.stringify({ order: 1, items: ['a'] }), contentType: 'application/json' },
  postShare: 0.2,
};

async function replicas(t, n = 2) {
  const runDir = tempRunDir('drill');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
  });
  const state = await up({ sample: 'node-replicas', runDir, env: { HTTP_PORT: '0', REPLICAS: String(n), CPUS: '1' } });
  return { runDir, state };
}

test('one of 2 replicas killed every 2 s for 10 s under GETs: back by its restart policy, 0 failed', async (t) => {
  const { runDir, state } = await replicas(t);
  const load = await startLoad({ url: state.url, rate: 100, mix: { get: '/' } });
  let kills = 0;
  for (let second = 2; second <= 8; second += 2) {
    await sleep(Math.max(0, second * 1000 - load.now()));
    // A fixed kill rate: when the replica is still coming back from the last kill, this one is skipped.
    if ((await ps({ runDir })).find((r) => r.service === 'app' && r.index === 1).status === 'running') {
      await signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' });
      kills += 1;
    }
  }
  await sleep(Math.max(0, 10_000 - load.now()));
  const result = summarise(await load.stop());
  t.diagnostic(`${kills} kills; ${JSON.stringify(result.get)}; p99 ${result.latencyMs.p99} ms`);
  assert.ok(kills >= 3, `app-1 was killed ${kills} times`);
  assert.ok(result.get.requests >= 900, `load ran (${result.get.requests} GETs)`);
  assert.equal(result.get.failed, 0, `failed GETs: ${JSON.stringify(result.get.errors)}`);
  await waitFor(
    async () => (await ps({ runDir })).find((r) => r.service === 'app' && r.index === 1).restarts === kills,
    { what: `${kills} restarts of app-1` },
  );
});

test('5 fault drills in a row on 2 replicas + nginx: 0 failed GETs in every one, lost POSTs counted', async (t) => {
  const { runDir, state } = await replicas(t);
  for (let drill = 1; drill <= 5; drill += 1) {
    const r = await faultDrill({
      runDir,
      url: state.url,
      how: 'instance',
      kills: 2,
      rate: 100,
      mix: MIX,
      settleMs: 500,
      gapMs: 300,
    });
    t.diagnostic(
      `drill ${drill}: GET ${r.get.failed}/${r.get.requests} failed, POST ${r.post.failed}/${r.post.requests} ` +
        `failed ${JSON.stringify(r.post.errors)}, back in ${r.kills.map((k) => k.backAfterMs)} ms`,
    );
    assert.equal(r.get.failed, 0, `drill ${drill}: failed GETs ${JSON.stringify(r.get.errors)}`);
    assert.deepEqual(
      r.kills.map((k) => k.target),
      ['node-replicas-app-1', 'node-replicas-app-2'],
      'the same kills every time, one instance after the other',
    );
    assert.ok(r.kills.every((k) => k.backAfterMs > 0 && k.inRotationAfterMs >= k.backAfterMs && k.failed.get === 0));
    assert.ok(r.post.requests > 0 && r.get.requests > 4 * r.post.requests - 10, 'a fifth of the requests are POSTs');
    // A lost POST is one nginx had sent to the process that died (502), never anything else.
    assert.deepEqual(
      Object.keys(r.post.errors).filter((e) => e !== 'HTTP 502'),
      [],
    );
    assert.equal(
      r.kills.reduce((n, k) => n + k.failed.post, 0),
      r.post.failed,
      'every lost POST is put down to a kill',
    );
  }
  assert.equal(
    (await ps({ runDir })).filter((r) => r.service === 'app').reduce((n, r) => n + r.restarts, 0),
    10,
  );
});

test('a rollout of 2 replicas under GETs and POSTs: 0 failed GETs; a POST lost only to an nginx reload', async (t) => {
  const { runDir, state } = await replicas(t);
  const before = (await readState(runDir)).services.app.instances.map((i) => i.pid);
  // 50 requests/s: above that, a client may reuse a keep-alive connection just as an old nginx
  // worker closes it (nginx < 1.27.4 closes them at once on reload), and a POST sent on it is lost.
  const r = await rolloutDrill({ runDir, sample: 'node-replicas', url: state.url, rate: 50, mix: MIX, settleMs: 500 });
  t.diagnostic(`${JSON.stringify(r.get)} ${JSON.stringify(r.post)} rollout ${r.reloadMs} ms`);
  assert.equal(r.rolledBy, 'proxy');
  assert.deepEqual(
    r.steps.map((s) => s.instance),
    ['node-replicas-app-1', 'node-replicas-app-2'],
  );
  assert.deepEqual(
    r.steps.map((s) => s.from.pid),
    before,
  );
  assert.ok(r.get.requests > 50 && r.post.requests > 10, JSON.stringify([r.get, r.post]));
  assert.equal(r.get.failed, 0, JSON.stringify(r.get.errors));
  // nginx < 1.27.4 (Debian's 1.22 here) closes idle client keep-alive connections at once when a
  // reload retires its old workers: a POST sent on one at that instant is reset before any app sees
  // it (and can't be resent). Nothing else may fail: no 502, no refused connection, no timeout.
  assert.deepEqual(
    Object.keys(r.post.errors).filter((k) => k !== 'ECONNRESET'),
    [],
    JSON.stringify(r.post.errors),
  );
  assert.ok(r.post.failed <= r.steps.length, `at most one POST per reload (${r.post.failed} in ${r.steps.length})`);
});

// node-cluster's three process managers, each crashed (a worker killed, its manager starts
// another) and rolled out (its own rolling restart, started by SIGHUP: the cluster primary's,
// `pm2 reload`, the reusePort launcher's) under GETs and POSTs of /echo, through its nginx. Its
// store is MongoDB, which does not run here: the drill says so in its record instead of counting.
for (const manager of ['cluster', 'pm2', 'reuseport']) {
  test(
    `${manager} of 2: each kill hits another worker, the manager replaces it; its rolling restart fails no request`,
    { timeout: 180_000 },
    async (t) => {
      const runDir = tempRunDir(`drill-${manager}`);
      t.after(async () => {
        await down({ runDir });
        assert.deepEqual(runProcesses(runDir), []);
      });
      const state = await up({
        sample: 'node-cluster',
        runDir,
        env: {
          HTTP_PORT: '0',
          WORKERS: '2',
          PROCESS_MANAGER: manager,
          MONGODB_URI_LOCAL: 'mongodb://127.0.0.1:9/items',
        },
        services: ['app', 'nginx'],
        noDeps: true,
      });
      const about = { strategy: manager, processes: 2, app: 'node-cluster' };
      const r = await faultDrill({
        runDir,
        url: state.url,
        how: 'worker',
        kills: 2,
        rate: 100,
        mix: MIX,
        about,
        settleMs: 500,
      });
      t.diagnostic(
        `crash: GET ${JSON.stringify(r.get)} POST ${JSON.stringify(r.post)} back ${JSON.stringify(r.backMs)}`,
      );
      assert.deepEqual([r.kind, r.strategy, r.engine, r.how], ['crash', manager, 'processes', 'worker']);
      assert.equal(new Set(r.kills.map((k) => k.pid)).size, 2, 'two different workers');
      assert.ok(r.kills.every((k) => k.target === 'node-cluster-app-1 worker' && k.backAfterMs > 0));
      assert.ok(r.get.requests + r.post.requests > 100);
      // The cluster module (and PM2's cluster mode) hands each connection from the primary to a
      // worker: one handed to a worker that dies before it reads it is neither answered nor closed,
      // and the client times out. Counted as such; nothing else may fail a GET behind nginx.
      const handOff = manager === 'reuseport' ? [] : ['ETIMEDOUT'];
      assert.deepEqual(
        Object.keys(r.get.errors).filter((e) => !handOff.includes(e)),
        [],
        `no GET failed behind nginx but a lost hand-off: ${JSON.stringify(r.get.errors)}`,
      );
      assert.ok(r.get.failed <= r.kills.length, `at most one GET per kill (${r.get.failed})`);
      // Its store, MongoDB, does not run here: one line in the record says so (drills-writes.test.js has the lines).
      assert.equal(r.writes.counted, false);
      assert.match(r.writes.why, /^node-cluster('s store \(service mongo\) does not run here| has no store)/);
      assert.equal((await readState(runDir)).services.app.instances[0].restarts, 0, 'the manager itself never died');
      const roll = await rolloutDrill({
        runDir,
        sample: 'node-cluster',
        url: state.url,
        rate: 50,
        mix: MIX,
        about,
        settleMs: 500,
      });
      t.diagnostic(`rollout: GET ${JSON.stringify(roll.get)} POST ${JSON.stringify(roll.post)} in ${roll.reloadMs} ms`);
      assert.deepEqual([roll.rolledBy, roll.zeroDowntime], ['signal', true]);
      assert.ok(roll.get.requests > 50, JSON.stringify(roll.get));
      assert.equal(
        roll.get.failed + roll.post.failed,
        0,
        `nothing failed: ${JSON.stringify([roll.get.errors, roll.post.errors])}`,
      );
    },
  );
}

test('drill input is checked before anything starts', async () => {
  const runDir = tempRunDir('drill-bad');
  await assert.rejects(
    faultDrill({ runDir, url: 'http://127.0.0.1:9', how: 'everything', mix: MIX }),
    /^Error: how must be 'instance' or 'worker' \(got "everything"\)$/,
  );
  await assert.rejects(
    faultDrill({ runDir, url: 'http://127.0.0.1:9', kills: 0, mix: MIX }),
    /^Error: kills must be a whole number of at least 1 \(got 0\)$/,
  );
  await assert.rejects(
    faultDrill({ runDir, url: 'http://127.0.0.1:9', mix: { get: 'nope' } }),
    /^Error: mix.get must be a path such as "\/"/,
  );
  await assert.rejects(faultDrill({ runDir, url: 'http://127.0.0.1:9', mix: MIX }), /^Error: nothing running from /);
  await assert.rejects(
    rolloutDrill({ runDir, url: 'http://127.0.0.1:9', mix: { ...MIX, postShare: 2 } }),
    /^Error: mix.postShare must be between 0 and 1 \(got 2\)$/,
  );
});
