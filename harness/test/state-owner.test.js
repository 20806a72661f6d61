// The run's state has one owner, its supervisor: changes from several clients at once all land
// and none is lost, ps is answered while the supervisor is busy, and where the supervisor is gone
// ps shows its last snapshot, marked stale, and down still takes everything down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { runnerFor } from '../runner/index.js';
import { childPids } from '../lib/processes.js';
import { FIXTURE, tempRunDir, getJson, waitFor, runProcesses, alivePids } from './helpers.js';

const { up, down, ps, signal, restart, readState } = runnerFor('processes');

const LAB = path.join(import.meta.dirname, '..', 'bin', 'lab.js');

/** `lab <args>` as a process of its own, one more client of the run's supervisor. */
function lab(runDir, args) {
  const child = spawn(process.execPath, [LAB, ...args, '--run-dir', runDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve) => { child.on('exit', (code) => resolve({ code, out })); });
}

async function start(t, env) {
  const runDir = tempRunDir('owner');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
    fs.rmSync(runDir, { recursive: true, force: true });
  });
  const state = await up({
    sample: FIXTURE,
    runDir,
    env: { HTTP_PORT: '0', APP_RESTART: 'on-failure', ...env },
    services: ['app'],
  });
  return { runDir, state };
}

const appOf = async (runDir) => (await readState(runDir)).services.app.instances;

test('kills and restarts from several clients at once, ps read meanwhile: every change lands, nothing is ' +
  'lost', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '4' });
  const before = state.services.app.instances.map((i) => i.pid);
  const clients = Promise.all([
    lab(runDir, ['restart', 'app', '1']),
    lab(runDir, ['restart', 'app', '1']),
    lab(runDir, ['restart', 'app', '2']),
    lab(runDir, ['kill', 'app', '3']),
    lab(runDir, ['kill', 'app', '4']),
  ]);
  let done = false;
  clients.finally(() => {
    done = true;
  });
  let reads = 0;
  while (!done) {
    const rows = await ps({ runDir });
    assert.deepEqual(
      rows.map((r) => r.index),
      [1, 2, 3, 4],
      'ps lists every instance while they change',
    );
    reads += 1;
    await new Promise((r) => setTimeout(r, 20));
  }
  const results = await clients;
  for (const r of results) assert.equal(r.code, 0, r.out);
  t.diagnostic(`${reads} ps reads while 5 clients changed the run`);

  // Both restarts of app-1 happened, one after the other, each with a process of its own.
  const restartedTo = results.slice(0, 2).map((r) => Number(/pid (\d+)/.exec(r.out)[1]));
  assert.notEqual(restartedTo[0], restartedTo[1]);
  const supervisorLog = fs.readFileSync(path.join(runDir, 'logs', 'supervisor.log'), 'utf8');
  assert.equal(supervisorLog.match(/ app\/1 pid \d+ .*: stopped on purpose$/gm)?.length, 2, supervisorLog);

  // The killed ones came back by their restart policy, and it counted them.
  await waitFor(
    async () => (await ps({ runDir })).every((r) => r.status === 'running' && r.restarts === (r.index >= 3 ? 1 : 0)),
    { what: 'app-3 and app-4 back, counted' },
  );
  const now = await appOf(runDir);
  assert.ok(
    restartedTo.includes(now[0].pid),
    `app-1 runs the process of its last restart (${now[0].pid} of ${restartedTo})`,
  );
  now.forEach((inst, i) => assert.notEqual(inst.pid, before[i], `${inst.name} was replaced`));
  for (const inst of now)
    assert.equal(
      (await getJson(inst.url)).body.pid,
      inst.pid,
      `${inst.name}: the state names the process that answers`,
    );
  // No process lost track of: the supervisor's children are exactly the instances.
  const { supervisor } = await readState(runDir);
  assert.deepEqual(childPids(supervisor.pid).sort(), now.map((i) => i.pid).sort());
  assert.deepEqual(
    alivePids([...before, ...restartedTo].filter((p) => !now.some((i) => i.pid === p))),
    [],
    'every replaced process is gone',
  );
  // The snapshot says the same as the supervisor.
  const snapshot = JSON.parse(fs.readFileSync(path.join(runDir, 'state.json'), 'utf8'));
  assert.deepEqual(
    snapshot.services.app.instances.map((i) => [i.pid, i.restarts]),
    now.map((i) => [i.pid, i.restarts]),
  );
});

test('ps is answered while the supervisor waits out a stop grace period', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '1', IGNORE_SIGTERM: '1' });
  const old = state.services.app.instances[0];
  let settled = false;
  const restarting = restart({ runDir, service: 'app', index: 1 }).finally(() => { settled = true; });
  // The instance ignores SIGTERM: the supervisor is in its 3 s stop_grace_period now.
  await waitFor(() => fs.readFileSync(old.log, 'utf8').includes('SIGTERM: ignoring it'), {
    what: 'the stop under way',
  });
  const rows = await ps({ runDir });
  assert.equal(settled, false, 'ps answered before the stop ended');
  assert.deepEqual([rows[0].pid, rows[0].status], [old.pid, 'running']);
  assert.equal((await readState(runDir)).phase, 'up');
  const now = await restarting;
  assert.notEqual(now.pid, old.pid);
  const rec = (await appOf(runDir))[0];
  assert.deepEqual(
    [rec.pid, rec.lastExit.pid, rec.lastExit.signal],
    [now.pid, old.pid, 'SIGKILL'],
    'killed once its grace period was over',
  );
});

test('the supervisor died: ps shows its last snapshot marked stale, down still takes everything down', async (t) => {
  const { runDir, state } = await start(t, { REPLICAS: '2' });
  const supervisor = state.supervisor.pid;
  process.kill(supervisor, 'SIGKILL');
  await waitFor(() => alivePids([supervisor]).length === 0, { what: 'the supervisor gone' });

  const rows = await ps({ runDir });
  assert.deepEqual(
    rows.map((r) => [r.index, r.pid, r.status, r.stale]),
    state.services.app.instances.map((i) => [i.index, i.pid, 'running', true]),
  );
  const stale = await readState(runDir);
  assert.match(
    stale.stale.reason,
    new RegExp(`^the run's supervisor \\(pid ${supervisor}\\) is not running: this is the snapshot it wrote at \\S+$`),
  );
  const listed = spawnSync(process.execPath, [LAB, 'ps', '--run-dir', runDir], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(
    listed.stdout,
    /^STALE: the run's supervisor \(pid \d+\) is not running: .*; nothing restarts — `make down` cleans up$/m,
  );
  await assert.rejects(signal({ runDir, service: 'app', index: 1 }), /the run's supervisor is not running/);

  const { stopped } = await down({ runDir });
  assert.equal(stopped, 2);
  assert.deepEqual(runProcesses(runDir), []);
  assert.equal(await readState(runDir), undefined);
  assert.equal(fs.existsSync(path.join(runDir, 'state.json')), false, 'no snapshot left');
});
