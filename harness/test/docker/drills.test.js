// The bench's drills on the real engine for dotnet-api on PostgreSQL (compose.postgres.yaml), through
// the docker backend's runner as `make bench ENGINE=docker` runs them: every drill of each strategy
// with its writes counted in the database (x-bench.docker.writes: the postgres service, through
// `docker compose exec`) against the 2xx answers the client received. One deployment for both
// strategies: 2 replicas for replicas' drills, then scaled to 1 for one-process's (runner.scale, as
// `make scale` does: the same containers, one fewer). Counts are asserted, never times. node-replicas'
// and node-cluster's drills on Docker: drills-node.test.js.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runnerFor } from '../../runner/index.js';
import { drillCells, runDrillCell } from '../../bench/lib/drills/index.js';
import { describeSample } from '../../bench/lib/topologies/app-descriptions.js';
import { engine, nginxRoutes, runFolder, STAND_INS } from './helpers.js';

const { skip, failed } = await engine();
const runner = runnerFor('docker');
const SMALL = { kills: 2, events: 1, rate: 60 };
const DOTNET = describeSample('dotnet-api');

// Every POST sent is acknowledged or failed; every acknowledged one stored or lost; no stray id.
function assertAddsUp(d) {
  const w = d.writes;
  assert.equal(w.counted, true, JSON.stringify(w));
  assert.equal(w.store, 'postgres', "compose.postgres.yaml's database");
  assert.equal(w.sent, d.post.requests);
  assert.equal(w.acknowledged + w.ambiguous + w.failedNotStored, w.sent);
  assert.equal(w.stored + w.lost, w.acknowledged);
  assert.equal(w.unexpected, 0);
  assert.ok(w.acknowledged > 10, `writes were made (${w.acknowledged})`);
}

/** One drill cell on the deployment, its record checked. @param {any} state */
async function drillAddsUp(t, state, strategy, processes, cell) {
  const d = await runDrillCell({
    cell,
    runner,
    runDir: state.runDir,
    url: state.url,
    app: DOTNET,
    name: 'dotnet-api',
    // What is asserted is counts, not latency: a busy machine's late generator changes none.
    sendLagBoundMs: Infinity,
  });
  const { get, post, writes, backMs, outageMs, latencyMs } = d;
  t.diagnostic(JSON.stringify({ get, post, writes, back: backMs, outage: outageMs, latency: latencyMs }));
  assert.deepEqual([d.strategy, d.engine, d.processes], [strategy, 'docker', processes]);
  assertAddsUp(d);
  assert.equal(d.writes.lost, 0, `lost: ${d.writes.lostIds}`);
  assert.equal(d.writes.duplicated, 0, `duplicated: ${d.writes.duplicatedIds}`);
  // Nothing to fail over to: its clients fail, or wait for it (nginx retries a refused
  // connection to the same address) — counted either way.
  if (processes === 1)
    assert.ok(
      d.get.failed + d.post.failed > 0 || d.latencyMs.max > 1000,
      `requests failed or waited: ${JSON.stringify(d.latencyMs)}`,
    );
}

describe(
  `dotnet-api on PostgreSQL on Docker: every drill counts its writes in the database ${STAND_INS}`,
  { skip: skip || (DOTNET.writes ? false : 'dotnet-api has no x-bench.writes') },
  () => {
    const r = runFolder(runner, 'drills-dotnet');
    const state = { runDir: r.runDir, url: '' };

    before(async () => {
      if (failed) throw new Error(failed);
      const up = await runner.up({
        sample: 'dotnet-api',
        runDir: r.runDir,
        env: { REPLICAS: '2', CPUS: '1', HTTP_PORT: '0', COMPOSE_FILE: DOTNET.docker.compose_file },
        build: false,
      });
      state.url = up.url;
      await nginxRoutes(state.url, '/health/ready');
    });
    after(() => r.down());

    for (const [strategy, processes] of /** @type {[string, number][]} */ ([['replicas', 2], ['one-process', 1]])) {
      describe(`${strategy}: ${processes} container(s) ${STAND_INS}`, () => {
        before(async () => {
          const apps = async () => (await runner.ps({ runDir: r.runDir })).filter((row) => row.service === 'app');
          if ((await apps()).length !== processes) {
            await runner.scale({ runDir: r.runDir, service: 'app', replicas: processes });
          }
          assert.equal((await apps()).length, processes, `${processes} app container(s)`);
        });
        for (const cell of drillCells(DOTNET, strategy, processes, 1, SMALL)) {
          test(
            `${cell.kind} of ${strategy}: ${processes > 1 ? 'writes stored once' : 'its losses counted'} ${STAND_INS}`,
            { timeout: 600_000 },
            (t) => drillAddsUp(t, state, strategy, processes, cell),
          );
        }
      });
    }
  },
);
