// `make scale` on the processes backend, on a real topology (the echo fixture behind the real
// nginx): instances added start on ports of their own and nginx sends to them once they are
// healthy; instances removed leave nginx first, then stop, their cgroups gone; no GET fails under a
// steady load either way; a new instance that never gets healthy is taken out again; bad input
// gets one line, from the API and from the command line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runnerFor } from '../runner/index.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { startLoad, failed } from '../bench/lib/drills/load.js';
import { FIXTURE, tempRunDir, getJson, runProcesses, waitFor, pattern } from './helpers.js';

const { up, down, scale, readState } = runnerFor('processes');

async function start(t, env) {
  const runDir = tempRunDir('scale');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
  });
  const state = await up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0', ...env } });
  return { runDir, state };
}

// The pids nginx sends to, from 30 GETs through it (round-robin or least_conn reach every one).
async function servedBy(url) {
  const pids = new Set();
  for (let i = 0; i < 30; i += 1) pids.add((await getJson(url)).body.pid);
  return [...pids].sort();
}

const GETS = { get: '/', postShare: 0 };
const appOf = async (runDir) => (await readState(runDir)).services.app.instances;

test('scale up and down behind nginx: nginx follows, no GET fails, removed instances leave nothing', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '2' });
  const load = await startLoad({ url: state.url, rate: 200, mix: GETS });
  await waitFor(() => load.now() > 500, { what: 'load under way' });

  const upTo3 = await scale({ runDir, service: 'app', replicas: 3 });
  assert.deepEqual([upTo3.from, upTo3.to, upTo3.added, upTo3.removed], [2, 3, ['echo-app-3'], []]);
  const three = await appOf(runDir);
  assert.deepEqual(three.map((i) => i.index), [1, 2, 3]);
  assert.equal(new Set(three.map((i) => i.port)).size, 3, 'each instance on a port of its own');
  assert.equal((await getJson(three[2].url)).body.pid, three[2].pid, 'the new instance answers on its port');
  assert.deepEqual(await servedBy(state.url), three.map((i) => i.pid).sort(), 'nginx sends to all three');

  const downTo1 = await scale({ runDir, service: 'app', replicas: 1 });
  const at = load.now();
  await waitFor(() => load.now() > at + 500, { what: 'load after scaling down' });
  const records = await load.stop();
  assert.deepEqual(
    [downTo1.from, downTo1.to, downTo1.added, downTo1.removed],
    [3, 1, [], ['echo-app-2', 'echo-app-3']],
  );
  const one = await appOf(runDir);
  assert.deepEqual(one.map((i) => i.pid), [three[0].pid], 'instance 1 kept its process');
  assert.deepEqual(await servedBy(state.url), [three[0].pid], 'nginx sends to instance 1 only');
  for (const gone of three.slice(1)) {
    assert.throws(() => process.kill(gone.pid, 0), `${gone.name}'s process is gone`);
    for (const dir of gone.cgroup ?? [])
      assert.equal(fs.existsSync(dir), false, `${gone.name}'s cgroup ${dir} is removed`);
  }
  assert.ok(records.length > 200, `load ran (${records.length} requests)`);
  assert.deepEqual(records.filter(failed), [], 'no GET failed while scaling');
  assert.equal((await readState(runDir)).reload, undefined, 'the claim is released');

  // Up again: the new instances take the next numbers, and the same count is a no-op.
  assert.deepEqual((await scale({ runDir, service: 'app', replicas: 2 })).added, ['echo-app-2']);
  assert.deepEqual(await scale({ runDir, service: 'app', replicas: 2 }).then((r) => [r.added, r.removed]), [[], []]);
});

test('a new instance that never gets healthy is taken out again; the others keep serving', async (t) => {
  const failFile = path.join(tempRunDir('scale-failfile'), 'broken');
  const { runDir, state } = await start(t, { REPLICAS: '1', FAIL_START_FILE: failFile });
  const before = runProcesses(runDir).sort();
  fs.writeFileSync(failFile, '');
  await assert.rejects(
    scale({ runDir, replicas: 2 }),
    pattern(
      String.raw`^Error: scale stopped: echo-app-2 \(log: .*\) exited before it was healthy \(exit code 3\b.*; `,
      String.raw`the 1 instance\(s\) before it keep serving$`,
    ),
  );
  assert.deepEqual((await appOf(runDir)).map((i) => i.pid), [state.services.app.instances[0].pid]);
  assert.deepEqual(await servedBy(state.url), [state.services.app.instances[0].pid]);
  assert.deepEqual(runProcesses(runDir).sort(), before, 'nothing of echo-app-2 left');
});

test('bad input: a count that is not 1 to 64, the proxy, an unknown service, nothing running', async (t) => {
  const empty = tempRunDir('scale-empty');
  await assert.rejects(scale({ runDir: empty, replicas: 2 }), /^Error: nothing running from .*: start it first/);
  const { runDir } = await start(t, { REPLICAS: '1' });
  for (const bad of ['0', 'x', '65', '1.5', -1])
    await assert.rejects(
      scale({ runDir, replicas: bad }),
      /^Error: REPLICAS=\S+ must be a whole number from 1 to 64$/,
      String(bad),
    );
  await assert.rejects(scale({ runDir }), /^Error: how many instances\? make scale SERVICE=<name> REPLICAS=<n>$/);
  await assert.rejects(
    scale({ runDir, service: 'nginx', replicas: 2 }),
    /^Error: nginx is the proxy: scale the service behind it$/,
  );
  await assert.rejects(
    scale({ runDir, service: 'db', replicas: 2 }),
    /^Error: echo has no running service 'db' \(running: app, nginx\)$/,
  );
  assert.equal((await appOf(runDir)).length, 1, 'nothing changed');

  // From the command line: one line, a non-zero exit.
  const res = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'harness/bin/lab.js'), '--engine', 'processes', 'scale', 'app', '0', '--run-dir', runDir],
    { encoding: 'utf8' },
  );
  assert.notEqual(res.status, 0);
  assert.equal(res.stderr.trim(), 'error: REPLICAS=0 must be a whole number from 1 to 64');
});
