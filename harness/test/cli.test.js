// The lab CLI (make up/ps/kill/reload/down): bad input gets one line saying what to do, a non-zero
// exit, nothing left running; a run's restart policy outlives the command that started it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { runnerFor } from '../runner/index.js';
import { FIXTURE, tempRunDir, runProcesses, waitFor, getJson, pattern } from './helpers.js';

const { readState } = runnerFor('processes');

const LAB = path.join(import.meta.dirname, '..', 'bin', 'lab.js');

function lab(args, env = {}) {
  const runDir = tempRunDir('cli');
  const res = spawnSync(process.execPath, [LAB, ...args, '--run-dir', runDir], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { ...res, runDir };
}

async function assertCleanFailure(res, pattern) {
  assert.equal(res.status, 1, `exit code (stderr: ${res.stderr})`);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${res.stderr}`);
  assert.match(lines[0], pattern);
  assert.equal(await readState(res.runDir), undefined, 'no topology left running');
}

test('unknown sample', () =>
  assertCleanFailure(lab(['up', 'no-such-sample']), /^error: unknown sample 'no-such-sample': expected one of /));
test('replica count 0', () =>
  assertCleanFailure(
    lab(['up', FIXTURE, '--replicas', '0']),
    /^error: REPLICAS=0 must be a whole number from 1 to 64$/,
  ));
test('replica count 500', () => assertCleanFailure(lab(['up', FIXTURE, '--replicas', '500']), /REPLICAS=500/));
test('CPUS=abc', () =>
  assertCleanFailure(lab(['up', FIXTURE, '--cpus', 'abc']), /^error: CPUS=abc must be a number of CPUs/));
test('unknown balancing method', () =>
  assertCleanFailure(lab(['up', FIXTURE, '--lb', 'random']), /LB=random must be one of/));
test('missing nginx binary', () =>
  assertCleanFailure(
    lab(['up', FIXTURE, '--port', '0'], { NGINX_BIN: '/nonexistent/nginx' }),
    /NGINX_BIN=\/nonexistent\/nginx does not exist/,
  ));

test('a published port already taken', async () => {
  const holder = net.createServer();
  await new Promise((r) => { holder.listen(0, '127.0.0.1', () => r(undefined)); });
  try {
    const { port } = /** @type {import('node:net').AddressInfo} */ (holder.address());
    const res = lab(['up', FIXTURE, '--port', String(port)]);
    await assertCleanFailure(res, new RegExp(`^error: port ${port} is already in use: pick another with HTTP_PORT=`));
  } finally {
    holder.close();
  }
});

test('ps and down with nothing running say so and succeed', () => {
  assert.match(lab(['ps']).stdout, /nothing running/);
  const res = lab(['down']);
  assert.equal(res.status, 0);
  assert.match(res.stdout, /nothing running/);
});

// ---- restart policies and reload through the CLI --------------------------------------------

function sampleWith(compose) {
  const dir = tempRunDir('sample');
  fs.writeFileSync(path.join(dir, 'compose.yaml'), compose);
  fs.copyFileSync(path.join(FIXTURE, 'server.js'), path.join(dir, 'server.js'));
  return dir;
}

test('a restart value compose does not accept', async () => {
  const dir = sampleWith(
    'services:\n  app:\n    restart: sometimes\n    x-local:\n      command: ["node", "server.js"]\n',
  );
  await assertCleanFailure(
    lab(['up', dir, '--port', '0']),
    pattern(
      String.raw`^error: app: restart: "sometimes" is not a restart policy compose accepts `,
      String.raw`\(no, always, on-failure\[:max-retries\], unless-stopped\)$`,
    ),
  );
  const dir2 = sampleWith(
    'services:\n  app:\n    restart: "always:3"\n    x-local:\n      command: ["node", "server.js"]\n',
  );
  await assertCleanFailure(
    lab(['up', dir2, '--port', '0']),
    /^error: app: restart: "always:3": only on-failure takes a maximum retry count$/,
  );
});

test('reload with nothing running, or an unknown sample: one line, exit 1', async () => {
  await assertCleanFailure(
    lab(['reload', 'node-replicas']),
    /^error: nothing running from .*: start it first \(make up SAMPLE=node-replicas\)$/,
  );
  await assertCleanFailure(
    lab(['reload', 'no-such-sample']),
    /^error: unknown sample 'no-such-sample': expected one of /,
  );
});

// A `lab` command running in the background, its output collected.
function labAsync(args, runDir, env = {}) {
  const child = spawn(process.execPath, [LAB, ...args, '--run-dir', runDir], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, sig, stdout, stderr })));
  return { child, done };
}

const labIn = (runDir, args, env = {}) =>
  spawnSync(process.execPath, [LAB, ...args, '--run-dir', runDir], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });

test('the restart policy outlives `lab up`: a kill after it returned comes back, ps counts it', async (t) => {
  const runDir = tempRunDir('cli-policy');
  t.after(() => { labIn(runDir, ['down']); assert.deepEqual(runProcesses(runDir), []); });
  const started = labIn(runDir, ['up', FIXTURE, '--port', '0', '--replicas', '1']);
  assert.equal(started.status, 0, started.stderr);
  const { pid } = (await readState(runDir)).services.app.instances[0];
  const killed = labIn(runDir, ['kill', 'app', '1']);
  assert.equal(killed.status, 0, killed.stderr);
  assert.match(
    killed.stdout,
    /^SIGKILL -> echo-app-1 \(pid \d+\); restart: on-failure — the runner decides from its exit code \(make ps\)$/m,
  );
  await waitFor(
    async () => {
      const i = (await readState(runDir)).services.app.instances[0];
      return i.pid !== pid && !i.restarting;
    },
    { what: 'a new process' },
  );
  const listed = labIn(runDir, ['ps']);
  assert.match(listed.stdout, /restarts/);
  assert.match(listed.stdout, /│ app\s+│ 1\s+│ \d+\s+│ http:\/\/127\.0\.0\.1:\d+\s+│ running\s+│ 1\s+│/);
});

test('reload: an unknown service, one already in progress, a release that never gets healthy', async (t) => {
  const runDir = tempRunDir('cli-reload');
  const failFile = path.join(runDir, 'broken');
  t.after(() => { labIn(runDir, ['down']); assert.deepEqual(runProcesses(runDir), []); });
  const started = labIn(runDir, ['up', FIXTURE, '--port', '0', '--replicas', '2'], {
    START_DELAY_MS: '1500',
    FAIL_START_FILE: failFile,
  });
  assert.equal(started.status, 0, started.stderr);
  const one = (res, pattern) => {
    assert.equal(res.status, 1, res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr.trim(), pattern);
  };
  one(
    labIn(runDir, ['reload', FIXTURE, '--service', 'db']),
    /^error: echo has no running service 'db' \(running: app, nginx\)$/,
  );
  one(labIn(runDir, ['reload', 'node-cluster']), /^error: node-cluster is not running here \(echo is\)/);
  const first = labAsync(['reload'], runDir);
  await waitFor(async () => (await readState(runDir)).reload, { what: 'the first reload under way' });
  one(labIn(runDir, ['reload']), /^error: a reload of app is already in progress \(pid \d+, since .*\)$/);
  const done = await first.done;
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stdout, /echo app: 2 instance\(s\) replaced in [\d.]+ s \(start-first behind nginx\)/);
  const pids = (await readState(runDir)).services.app.instances.map((i) => i.pid);
  fs.writeFileSync(failFile, '');
  one(
    labIn(runDir, ['reload']),
    pattern(
      String.raw`^error: reload stopped at echo-app-1: echo-app-1's new process \(port \d+, log: .*\) exited before `,
      String.raw`it was healthy \(exit code 3; last log line: \S+ exists: failing at start-up on purpose\); `,
      String.raw`the old instances keep serving$`,
    ),
  );
  assert.deepEqual(
    (await readState(runDir)).services.app.instances.map((i) => i.pid),
    pids,
    'the old processes still serve',
  );
  assert.equal((await getJson((await readState(runDir)).url)).status, 200);
});

test('`lab down` while `lab up` is still starting: the up stops, nothing is left', async () => {
  const runDir = tempRunDir('cli-cancel');
  const starting = labAsync(['up', FIXTURE, '--port', '0', '--replicas', '2'], runDir, { START_DELAY_MS: '4000' });
  await waitFor(async () => (await readState(runDir))?.services?.app?.instances?.filter((i) => i.pid).length === 2, {
    what: 'both app processes started',
  });
  const stopped = labIn(runDir, ['down']);
  assert.equal(stopped.status, 0, stopped.stderr);
  const up = await starting.done;
  assert.equal(up.code, 1);
  assert.match(up.stderr.trim(), /^error: starting echo was cancelled: down\(\) was called meanwhile$/);
  assert.deepEqual(runProcesses(runDir), []);
  assert.equal(await readState(runDir), undefined);
});

test('Ctrl-C while `lab up` is starting: exit 130, nothing left running', async () => {
  const runDir = tempRunDir('cli-sigint');
  const starting = labAsync(['up', FIXTURE, '--port', '0', '--replicas', '2'], runDir, { START_DELAY_MS: '4000' });
  await waitFor(async () => (await readState(runDir))?.services?.app?.instances?.filter((i) => i.pid).length === 2, {
    what: 'both app processes started',
  });
  starting.child.kill('SIGINT');
  const up = await starting.done;
  assert.equal(up.code, 130, up.stderr);
  assert.match(up.stderr, /SIGINT: stopping what was started/);
  assert.deepEqual(runProcesses(runDir), []);
  assert.equal(await readState(runDir), undefined);
});
