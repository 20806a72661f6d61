// Rolling restarts (`make reload`), per strategy, on real topologies: replicas behind nginx are
// replaced start-first one at a time while nginx keeps answering; a release that never gets
// healthy stops the rollout with the old processes serving; the cluster primary replaces its
// workers on SIGHUP; without a proxy the runner restarts in place and says it isn't zero-downtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runnerFor } from '../runner/index.js';
import { childPids } from '../lib/processes.js';
import { startLoad, failed } from '../bench/lib/drills/load.js';
import { FIXTURE, tempRunDir, getJson, runProcesses, waitFor, pattern } from './helpers.js';

const { up, down, reload, readState } = runnerFor('processes');

async function start(t, env, opts = {}) {
  const runDir = tempRunDir('reload');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
  });
  const state = await up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0', ...env }, ...opts });
  return { runDir, state };
}

// Steady GETs through nginx at a fixed rate from a keep-alive client (it resends a GET that a
// connection closed under it lost, as HTTP/1.1 clients do); every answer, or the failure.
const GETS = { get: '/', postShare: 0 };
const failedOf = (records) => records.filter(failed);

test('replicas behind nginx: replaced one at a time, start-first, and nginx answers throughout', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '2' });
  const old = state.services.app.instances.map((i) => ({ pid: i.pid, port: i.port }));
  const load = await startLoad({ url: state.url, rate: 200, mix: GETS });
  await waitFor(() => load.now() > 500, { what: 'load under way' });
  const lines = [];
  const result = await reload({ runDir, sample: FIXTURE, log: (l) => lines.push(l) });
  const reloadedAt = load.now();
  await waitFor(() => load.now() > reloadedAt + 500, { what: 'load after the reload' });
  const records = await load.stop();

  assert.equal(result.strategy, 'proxy');
  assert.equal(result.zeroDowntime, true);
  assert.deepEqual(result.steps.map((s) => s.instance), ['echo-app-1', 'echo-app-2']);
  const now = (await readState(runDir)).services.app.instances;
  for (const [i, inst] of now.entries()) {
    assert.notEqual(inst.pid, old[i].pid, `${inst.name} has a new process`);
    assert.notEqual(inst.port, old[i].port, `${inst.name} moved to a new port (start-first)`);
    assert.equal((await getJson(inst.url)).body.pid, inst.pid);
    assert.equal(result.steps[i].from.pid, old[i].pid);
    assert.equal(result.steps[i].to.pid, inst.pid);
  }
  // One at a time: the second new process started after the first old one was stopped.
  assert.ok(
    lines.indexOf('echo-app-1: stopping its old process (pid ' + old[0].pid + `, port ${old[0].port})`) <
      lines.findIndex((l) => l.startsWith('echo-app-2: starting')),
    lines.join('\n'),
  );
  assert.ok(records.length > 200, `load ran (${records.length} requests)`);
  assert.deepEqual(failedOf(records), [], 'no GET failed during the rollout');
  const served = new Set();
  for (let i = 0; i < 20; i += 1) served.add((await getJson(state.url)).body.pid);
  assert.deepEqual([...served].sort(), now.map((i) => i.pid).sort(), 'nginx sends to the new processes only');
  for (const { pid } of old) assert.throws(() => process.kill(pid, 0), 'the old process is gone');
  assert.equal((await readState(runDir)).reload, undefined, 'the reload claim is released');
});

test('a single instance behind nginx is replaced start-first too', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '1' });
  const load = await startLoad({ url: state.url, rate: 200, mix: GETS });
  await waitFor(() => load.now() > 500, { what: 'load under way' });
  const result = await reload({ runDir });
  const reloadedAt = load.now();
  await waitFor(() => load.now() > reloadedAt + 500, { what: 'load after the reload' });
  const records = await load.stop();
  assert.equal(result.strategy, 'proxy');
  assert.deepEqual(failedOf(records), []);
  assert.notEqual((await readState(runDir)).services.app.instances[0].pid, state.services.app.instances[0].pid);
});

test('a release that never gets healthy stops the rollout at its first instance; the old ones keep ' +
  'serving', async (t) => {
  const failFile = path.join(tempRunDir('failfile'), 'broken-release');
  const { runDir, state } = await start(t, { REPLICAS: '2', FAIL_START_FILE: failFile });
  fs.writeFileSync(failFile, '');
  await assert.rejects(reload({ runDir }), (/** @type {Error} */ err) => {
    assert.match(
      err.message,
      pattern(
        String.raw`^reload stopped at echo-app-1: echo-app-1's new process \(port \d+, log: .*\) exited before `,
        String.raw`it was healthy \(exit code 3; last log line: \S+ exists: failing at start-up on purpose\); `,
        String.raw`the old instances keep serving$`,
      ),
    );
    return true;
  });
  const now = (await readState(runDir)).services.app.instances;
  assert.deepEqual(
    now.map((i) => i.pid),
    state.services.app.instances.map((i) => i.pid),
    'the old processes are still the instances',
  );
  const served = new Set();
  for (let i = 0; i < 20; i += 1) served.add((await getJson(state.url)).body.pid);
  assert.deepEqual([...served].sort(), now.map((i) => i.pid).sort(), 'nginx still sends to both old processes');
  assert.equal((await readState(runDir)).reload, undefined);
});

test('bad input: nothing running, another sample, unknown service, a second reload at once', async (t) => {
  const empty = tempRunDir('reload-empty');
  await assert.rejects(
    reload({ runDir: empty }),
    /^Error: nothing running from .*: start it first \(make up SAMPLE=<dir>\)$/,
  );
  await assert.rejects(
    reload({ runDir: empty, sample: 'no-such-sample' }),
    /^Error: unknown sample 'no-such-sample': expected one of /,
  );
  const { runDir } = await start(t, { REPLICAS: '1', START_DELAY_MS: '1000' });
  await assert.rejects(
    reload({ runDir, sample: 'node-replicas' }),
    /^Error: node-replicas is not running here \(echo is\)/,
  );
  await assert.rejects(
    reload({ runDir, service: 'db' }),
    /^Error: echo has no running service 'db' \(running: app, nginx\)$/,
  );
  const first = reload({ runDir });
  await waitFor(async () => (await readState(runDir)).reload, { what: 'the first reload under way' });
  await assert.rejects(reload({ runDir }), /^Error: a reload of app is already in progress \(pid \d+, since /);
  assert.equal((await first).steps.length, 1);
});

test('no proxy in front: restarted in place, one at a time, and said not to be zero-downtime', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '2' }, { services: ['app'] });
  const lines = [];
  const result = await reload({ runDir, log: (l) => lines.push(l) });
  assert.equal(result.strategy, 'restart');
  assert.equal(result.zeroDowntime, false);
  assert.match(
    lines[0],
    /app has no proxy in front: each instance refuses connections while it restarts \(not zero-downtime\)/,
  );
  const now = (await readState(runDir)).services.app.instances;
  for (const [i, inst] of now.entries()) {
    assert.equal(inst.port, state.services.app.instances[i].port, 'same port');
    assert.notEqual(inst.pid, state.services.app.instances[i].pid);
    assert.equal((await getJson(inst.url)).body.pid, inst.pid);
  }
});

test('nginx itself: nginx -s reload, new workers, same master', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '1' });
  const nginx = state.services.nginx.instances[0];
  const before = childPids(nginx.pid);
  const result = await reload({ runDir, service: 'nginx' });
  assert.equal(result.strategy, 'nginx');
  const after = childPids(nginx.pid);
  assert.ok(after.length > 0 && after.every((p) => !before.includes(p)), `${before} -> ${after}`);
  assert.equal((await getJson(state.url)).status, 200);
});

test('node-cluster: the primary replaces every worker on SIGHUP, the rollout waits for all of them', async (t) => {
  const runDir = tempRunDir('reload-cluster');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), []);
  });
  // Without MongoDB (nothing on port 9): / and /health don't need it.
  const state = await up({
    sample: 'node-cluster',
    runDir,
    env: { HTTP_PORT: '0', WORKERS: '2', MONGODB_URI_LOCAL: 'mongodb://127.0.0.1:9/items' },
    services: ['app'],
    noDeps: true,
  });
  const primary = state.services.app.instances[0];
  const before = await waitFor(() => (childPids(primary.pid).length === 2 ? childPids(primary.pid) : undefined), {
    what: 'two workers',
  });
  const result = await reload({ runDir, sample: 'node-cluster' });
  assert.equal(result.strategy, 'signal');
  const after = childPids(primary.pid);
  assert.equal(after.length, 2);
  assert.ok(after.every((p) => !before.includes(p)), `workers ${before} -> ${after}`);
  assert.deepEqual(result.steps[0].from.workers, before);
  assert.equal((await readState(runDir)).services.app.instances[0].pid, primary.pid, 'the primary stays');
  assert.equal((await getJson(`${primary.url}/health`)).status, 200);
});
