// Restart policies, as Docker applies compose's `restart:`: the run's supervisor sees an instance
// exit and decides from the policy and the exit code; the delay between restarts of an instance
// that keeps dying doubles; nothing stopped on purpose (down, restart) comes back. The policy's
// parsing and decisions alone: runner/test/restart-policy.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runnerFor } from '../runner/index.js';
import { FIXTURE, tempRunDir, getJson, waitFor, runProcesses } from './helpers.js';

const { up, down, ps, signal, killHeld, restart, readState } = runnerFor('processes');

const row = async (runDir, index) => (await ps({ runDir })).find((r) => r.service === 'app' && r.index === index);
const record = async (runDir, index) => (await readState(runDir)).services.app.instances.find((i) => i.index === index);

async function start(t, policy, extra = {}) {
  const runDir = tempRunDir('restart');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
  });
  const state = await up({
    sample: FIXTURE,
    runDir,
    env: { HTTP_PORT: '0', REPLICAS: '1', APP_RESTART: policy, ...extra },
    services: ['app'],
  });
  return { runDir, state, inst: state.services.app.instances[0] };
}

// The supervisor has handled the exit of `pid` once the record says so: restarted, or not.
const handled = (runDir, pid) => async () => {
  const rec = await record(runDir, 1);
  return rec.pid !== pid || rec.lastExit?.pid === pid ? rec : undefined;
};
const backUp = (runDir, pid) => async () => {
  const rec = await record(runDir, 1);
  if (rec.pid === pid || rec.restarting) return undefined;
  try { return (await getJson(rec.url)).body.pid === rec.pid ? rec : undefined; } catch { return undefined; }
};

test('on-failure: a killed instance comes back on its own, ps counts the restart', async (t) => {
  const { runDir, inst } = await start(t, 'on-failure');
  await signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' });
  const rec = await waitFor(backUp(runDir, inst.pid), { what: 'the instance back after SIGKILL' });
  assert.equal(rec.port, inst.port, 'same port, as a restarted container keeps its address');
  assert.deepEqual(rec.lastExit.signal, 'SIGKILL');
  assert.equal((await row(runDir, 1)).restarts, 1);
  assert.equal((await row(runDir, 1)).status, 'running');
  assert.match(
    fs.readFileSync(path.join(runDir, 'logs', 'supervisor.log'), 'utf8'),
    /app\/1 pid \d+ killed by SIGKILL: restart: on-failure -> restarting in 100 ms/,
  );
});

test('on-failure: a clean exit (code 0) stays down, a failing one (code 3) comes back', async (t) => {
  const { runDir, inst } = await start(t, 'on-failure');
  await getJson(`${inst.url}/exit?code=3`);
  const back = await waitFor(backUp(runDir, inst.pid), { what: 'the instance back after exit code 3' });
  assert.equal(back.lastExit.code, 3);
  await getJson(`${back.url}/exit?code=0`);
  const after = await waitFor(handled(runDir, back.pid), { what: 'the supervisor to handle exit code 0' });
  assert.equal(after.pid, back.pid, 'not restarted');
  assert.equal(after.restarting, undefined);
  assert.deepEqual([(await row(runDir, 1)).status, (await row(runDir, 1)).exit], ['exited', '0']);
  assert.equal((await row(runDir, 1)).restarts, 1);
});

test('restart: no — an explicit kill leaves the instance dead', async (t) => {
  const { runDir, inst } = await start(t, 'no');
  await signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' });
  const after = await waitFor(handled(runDir, inst.pid), { what: 'the supervisor to handle the kill' });
  assert.equal(after.pid, inst.pid);
  assert.equal(after.restarting, undefined);
  assert.deepEqual([(await row(runDir, 1)).status, (await row(runDir, 1)).exit], ['exited', 'SIGKILL']);
  assert.equal((await row(runDir, 1)).restarts, 0);
  await assert.rejects(
    signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' }),
    /echo-app-1 \(pid \d+\) is not running$/,
  );
  // make restart still brings it back.
  const again = await restart({ runDir, service: 'app', index: 1 });
  assert.equal((await getJson(again.url)).body.pid, again.pid);
});

// The experiments' "one instance killed" variants: down for good, as after `docker kill`.
test('killHeld (as docker kill): on-failure does not bring the instance back', async (t) => {
  const { runDir, inst } = await start(t, 'on-failure');
  await killHeld({ runDir, service: 'app', index: 1 });
  const after = await waitFor(handled(runDir, inst.pid), { what: 'the supervisor to handle the kill' });
  assert.equal(after.pid, inst.pid, 'not restarted');
  assert.equal(after.restarting, undefined, 'no restart pending');
  assert.deepEqual([(await row(runDir, 1)).status, (await row(runDir, 1)).restarts], ['exited', 0]);
});

test('on-failure:2 gives up after two restarts; the delay doubles between them', async (t) => {
  const { runDir, inst } = await start(t, 'on-failure:2');
  let pid = inst.pid;
  for (let i = 1; i <= 2; i += 1) {
    await signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' });
    pid = (await waitFor(backUp(runDir, pid), { what: `restart ${i}` })).pid;
  }
  await signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' });
  const last = await waitFor(handled(runDir, pid), { what: 'the third exit handled' });
  assert.equal(last.pid, pid, 'no third restart');
  assert.equal((await row(runDir, 1)).restarts, 2);
  const delays = [
    ...fs.readFileSync(path.join(runDir, 'logs', 'supervisor.log'), 'utf8').matchAll(/restarting in (\d+) ms/g),
  ].map((m) => Number(m[1]));
  assert.deepEqual(delays, [100, 200]);
});

test('always: even a clean exit comes back', async (t) => {
  const { runDir, inst } = await start(t, 'always');
  await getJson(`${inst.url}/exit?code=0`);
  const back = await waitFor(backUp(runDir, inst.pid), { what: 'the instance back after exit code 0' });
  assert.equal(back.lastExit.code, 0);
  assert.equal((await row(runDir, 1)).restarts, 1);
});

test('restart (on purpose) is not a crash: no policy restart on top of it', async (t) => {
  const { runDir, inst } = await start(t, 'always');
  const again = await restart({ runDir, service: 'app', index: 1 });
  assert.notEqual(again.pid, inst.pid);
  assert.equal((await row(runDir, 1)).restarts, 0);
  assert.equal((await record(runDir, 1)).pid, again.pid);
  assert.match(
    fs.readFileSync(path.join(runDir, 'logs', 'supervisor.log'), 'utf8'),
    new RegExp(`pid ${inst.pid} killed by SIGTERM: stopped on purpose|pid ${inst.pid} exit code 0: stopped on purpose`),
  );
});

test('down right after a kill: the supervisor restarts nothing during down, nothing is left', async () => {
  for (let round = 0; round < 3; round += 1) {
    const runDir = tempRunDir('downrace');
    await up({ sample: FIXTURE, runDir, env: { HTTP_PORT: '0', REPLICAS: '2', APP_RESTART: 'always' } });
    await signal({ runDir, service: 'app', index: 1 + (round % 2), signal: 'SIGKILL' });
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], `round ${round}: processes of the run left behind`);
    assert.equal(await readState(runDir), undefined);
  }
});
