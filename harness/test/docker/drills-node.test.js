// The bench's drills on the real engine, through the docker backend's runner as `make bench
// ENGINE=docker` runs them:
//   - node-replicas, 2 replicas behind its nginx: each replica killed under GETs (its restart
//     policy brings it back), and a kill with the load sent straight to one container, which must
//     come back on the loopback port the load goes to;
//   - node-cluster's cluster, PM2 and reusePort: a worker crashed and the manager's own rolling
//     restart, without MongoDB (no image here), which the record says.
// dotnet-api's, with its writes counted in PostgreSQL: drills.test.js. Counts are asserted, never
// times.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runnerFor } from '../../runner/index.js';
import { faultDrill } from '../../bench/lib/drills/fault.js';
import { drillCells, runDrillCell } from '../../bench/lib/drills/index.js';
import { describeSample } from '../../bench/lib/topologies/app-descriptions.js';
import { engine, nginxRoutes, runFolder, STAND_INS } from './helpers.js';

const { skip, failed } = await engine();
const runner = runnerFor('docker');
const GETS = { get: '/', postShare: 0 };
const SMALL = { kills: 2, events: 1, rate: 60 };

describe(`the fault drill on Docker: node-replicas ${STAND_INS}`, { skip }, () => {
  const r = runFolder(runner, 'drills-replicas');
  let state;

  before(async () => {
    if (failed) throw new Error(failed);
    state = await runner.up({
      sample: 'node-replicas', runDir: r.runDir, env: { REPLICAS: '2', HTTP_PORT: '0' }, build: false,
    });
    await nginxRoutes(state.url, '/');
  });
  after(() => r.down());

  test(`through nginx: each replica killed once, no GET fails, each back in rotation ${STAND_INS}`, async () => {
    const d = await faultDrill({
      runner,
      runDir: r.runDir,
      url: state.url,
      how: 'instance',
      kills: 2,
      rate: 50,
      mix: GETS,
      settleMs: 500,
      gapMs: 200,
    });
    assert.deepEqual(
      d.kills.map((k) => k.target),
      state.services.app.instances.map((i) => i.name),
    );
    for (const k of d.kills) assert.ok(k.backAfterMs > 0 && k.inRotationAfterMs >= k.backAfterMs, JSON.stringify(k));
    assert.ok(d.get.requests > 50, `load ran (${d.get.requests} GETs)`);
    assert.equal(d.get.failed, 0, `no GET failed: ${JSON.stringify(d.get.errors)}`);
    assert.equal(d.engine, 'docker');
    assert.equal(d.writes.counted, false, 'node-replicas keeps nothing');
  });

  test(`straight at one container: it comes back on the port the load goes to ${STAND_INS}`, async () => {
    const [first] = (await runner.ps({ runDir: r.runDir })).filter((row) => row.service === 'app');
    const d = await faultDrill({
      runner,
      runDir: r.runDir,
      url: first.url,
      how: 'instance',
      kills: 1,
      rate: 50,
      mix: GETS,
      settleMs: 500,
    });
    assert.equal(d.kills[0].target, first.name);
    const now = (await runner.ps({ runDir: r.runDir })).find(
      (row) => row.service === 'app' && row.index === first.index,
    );
    assert.notEqual(now.pid, first.pid, 'a new first process');
    assert.equal(now.url, first.url, 'the same loopback port');
    // Nothing fails over here: GETs fail while it is down, and are answered again once it is back.
    assert.ok(d.get.requests > d.get.failed, JSON.stringify(d.get));
    assert.equal((await fetch(`${first.url}/`)).status, 200);
  });
});

describe(
  `node-cluster's process managers on Docker: a worker crashed, the manager's rolling restart ${STAND_INS}`,
  { skip },
  () => {
    const app = describeSample('node-cluster');
    for (const manager of ['cluster', 'pm2', 'reuseport']) {
      test(`${manager} of 2 behind nginx ${STAND_INS}`, { timeout: 600_000 }, async (t) => {
        if (failed) throw new Error(failed);
        const r = runFolder(runner, `drills-${manager}`);
        try {
          // No MongoDB image here: the app and nginx alone (the bench's x-bench.without_database).
          const state = await runner.up({
            sample: 'node-cluster',
            runDir: r.runDir,
            services: ['app', 'nginx'],
            noDeps: true,
            env: { WORKERS: '2', CPUS: '1', PROCESS_MANAGER: manager, HTTP_PORT: '0' },
            build: false,
          });
          await nginxRoutes(state.url, '/health');
          for (const cell of drillCells(app, manager, 2, 1, SMALL)) {
            const d = await runDrillCell({
              cell, runner, runDir: r.runDir, url: state.url, app, name: 'node-cluster', sendLagBoundMs: Infinity,
            });
            t.diagnostic(`${cell.kind}: ${JSON.stringify({ get: d.get, post: d.post, back: d.backMs })}`);
            assert.deepEqual([d.strategy, d.engine], [manager, 'docker']);
            assert.equal(d.writes.counted, false);
            assert.match(d.writes.why, /^node-cluster('s store \(service mongo\) does not run here| has no store)/);
            assert.ok(d.get.requests > 50, JSON.stringify(d.get));
            if (cell.kind === 'rollout') {
              assert.equal(d.rolledBy, 'signal');
              assert.equal(
                d.get.failed + d.post.failed,
                0,
                `the rolling restart failed nothing: ${JSON.stringify([d.get.errors, d.post.errors])}`,
              );
            } else {
              assert.equal(d.kills.length, 2);
              // A connection the primary handed to the worker that died times out (cluster, PM2):
              // counted, at most one per kill; nothing else fails a GET behind nginx.
              assert.deepEqual(
                Object.keys(d.get.errors).filter((e) => e !== 'ETIMEDOUT'),
                [],
                JSON.stringify(d.get.errors),
              );
              assert.ok(d.get.failed <= d.kills.length);
            }
          }
        } finally {
          await r.down();
        }
      });
    }
  },
);
