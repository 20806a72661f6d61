// Bad input to `make up` (the lab CLI): one line saying what to do, a non-zero exit, nothing left running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { readState } from '../runner/index.js';
import { FIXTURE, tempRunDir } from './helpers.js';

const LAB = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bin', 'lab.js');

function lab(args, env = {}) {
  const runDir = tempRunDir('cli');
  const res = spawnSync(process.execPath, [LAB, ...args, '--run-dir', runDir], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { ...res, runDir };
}

function assertCleanFailure(res, pattern) {
  assert.equal(res.status, 1, `exit code (stderr: ${res.stderr})`);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${res.stderr}`);
  assert.match(lines[0], pattern);
  assert.equal(readState(res.runDir), undefined, 'no topology left running');
}

test('unknown sample', () => assertCleanFailure(lab(['up', 'no-such-sample']), /^error: unknown sample 'no-such-sample': expected one of /));
test('replica count 0', () => assertCleanFailure(lab(['up', FIXTURE, '--replicas', '0']), /^error: REPLICAS=0 must be a whole number from 1 to 64$/));
test('replica count 500', () => assertCleanFailure(lab(['up', FIXTURE, '--replicas', '500']), /REPLICAS=500/));
test('CPUS=abc', () => assertCleanFailure(lab(['up', FIXTURE, '--cpus', 'abc']), /^error: CPUS=abc must be a number of CPUs/));
test('unknown balancing method', () => assertCleanFailure(lab(['up', FIXTURE, '--lb', 'random']), /LB=random must be one of/));
test('missing nginx binary', () => assertCleanFailure(lab(['up', FIXTURE, '--port', '0'], { NGINX_BIN: '/nonexistent/nginx' }), /NGINX_BIN=\/nonexistent\/nginx does not exist/));

test('a published port already taken', async () => {
  const holder = net.createServer();
  await new Promise((r) => holder.listen(0, '127.0.0.1', r));
  try {
    const { port } = holder.address();
    const res = lab(['up', FIXTURE, '--port', String(port)]);
    assertCleanFailure(res, new RegExp(`^error: port ${port} is already in use: pick another with HTTP_PORT=`));
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
