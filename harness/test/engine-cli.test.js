// ENGINE=docker|processes on the command lines (make, lab.js, the bench's cli.js): a bad value, or
// docker where no engine can be started, is one line and exit 2, before anything starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runnerFor, selectEngine } from '../runner/index.js';

const { readState } = runnerFor('processes');

const HARNESS = path.resolve(import.meta.dirname, '..');
const LAB = path.join(HARNESS, 'bin', 'lab.js');
const BENCH = path.join(HARNESS, 'bench', 'cli.js');

async function run(script, args, env = {}) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-engine-cli-'));
  const res = spawnSync(process.execPath, [script, ...args, '--run-dir', runDir], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  const leftState = await readState(runDir);
  fs.rmSync(runDir, { recursive: true, force: true });
  return { ...res, leftState };
}

function assertUsageError(res, pattern) {
  assert.equal(res.status, 2, `exit code (stdout: ${res.stdout}, stderr: ${res.stderr})`);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${res.stderr}`);
  assert.match(lines[0], pattern);
  assert.equal(res.leftState, undefined, 'nothing started');
}

test('lab --engine foo: one line naming the engines, exit 2', async () => {
  assertUsageError(
    await run(LAB, ['--engine', 'foo', 'up', 'node-replicas']),
    /^error: ENGINE=foo is not an engine: use one of docker, processes$/,
  );
});

test('ENGINE=foo in the environment: the same line, for ps too', async () => {
  assertUsageError(await run(LAB, ['ps'], { ENGINE: 'foo' }), /ENGINE=foo is not an engine/);
});

test('bench --engine foo: one line, exit 2, nothing measured', async () => {
  assertUsageError(
    await run(BENCH, ['--engine', 'foo', '--scenario', 'verdicts', '--list']),
    /^bench: error: ENGINE=foo is not an engine/,
  );
});

test('make … ENGINE=foo stops before anything is installed: one line, exit 2', () => {
  const res = spawnSync('make', ['-s', 'ps', 'ENGINE=foo'], {
    cwd: path.dirname(HARNESS),
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(res.status, 2);
  assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
  assert.match(res.stderr, /ENGINE=foo is not an engine: use docker or processes/);
});

test('ENGINE=docker where no engine answers and none can start (no dockerd): one line naming why, exit 2', async () => {
  // Only node on PATH: no docker CLI, no dockerd; no DOCKER_HOST.
  const env = { PATH: path.dirname(process.execPath), DOCKER_HOST: '' };
  const res = await run(LAB, ['--engine', 'docker', 'up', 'node-replicas', '--port', '0'], env);
  assertUsageError(
    res,
    /^error: ENGINE=docker: no Docker engine answers and none can be started here: (no dockerd|not root)/,
  );
});

test('bench --engine docker where none can start: one line naming why, exit 2, nothing measured', async () => {
  const env = { PATH: path.dirname(process.execPath), DOCKER_HOST: '' };
  const res = await run(
    BENCH,
    ['--engine', 'docker', '--scenario', 'verdicts', '--sample', 'node-replicas', '--budgets', '1'],
    env,
  );
  assertUsageError(
    res,
    /^bench: error: ENGINE=docker: no Docker engine answers and none can be started here: (no dockerd|not root)/,
  );
});

test('the default is processes where no engine answers, and says so', () => {
  const env = { PATH: path.dirname(process.execPath), DOCKER_HOST: '' };
  const saved = { PATH: process.env.PATH, DOCKER_HOST: process.env.DOCKER_HOST };
  Object.assign(process.env, env);
  try {
    if (fs.existsSync('/var/run/docker.sock')) return; // a system engine here: docker would be right
    assert.deepEqual(selectEngine(undefined), { engine: 'processes', why: 'default: no Docker engine answers' });
    assert.deepEqual(selectEngine('docker'), { engine: 'docker', why: 'asked for' });
  } finally {
    for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  }
});

test('without ENGINE, a command on a run folder takes the engine that run was started on', () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-engine-of-run-'));
  const env = { PATH: path.dirname(process.execPath), DOCKER_HOST: '' };
  const saved = { PATH: process.env.PATH, DOCKER_HOST: process.env.DOCKER_HOST };
  Object.assign(process.env, env);
  try {
    // A processes run whose supervisor lives (this test's own pid stands for it), then one whose
    // supervisor is gone: the default again.
    fs.writeFileSync(path.join(runDir, 'state.json'), JSON.stringify({ supervisor: { pid: process.pid } }));
    assert.equal(selectEngine(undefined, { runDir }).engine, 'processes');
    assert.match(selectEngine(undefined, { runDir }).why, /the run in .* is on it/);
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(runDir, 'state.json'), JSON.stringify({ supervisor: { pid: Number(gone.stdout) } }));
    if (!fs.existsSync('/var/run/docker.sock'))
      assert.equal(selectEngine(undefined, { runDir }).why, 'default: no Docker engine answers');
    // A Docker run's record (down removes it) wins, and ENGINE= still overrides it.
    fs.writeFileSync(path.join(runDir, 'docker.json'), JSON.stringify({ project: 'lab-x', runDir }));
    assert.deepEqual(selectEngine(undefined, { runDir }), { engine: 'docker', why: `the run in ${runDir} is on it` });
    assert.deepEqual(selectEngine('processes', { runDir }), { engine: 'processes', why: 'asked for' });
  } finally {
    for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
    fs.rmSync(runDir, { recursive: true, force: true });
  }
});
