// Where the local mongod comes from (scripts/find-mongod.js): MONGOD_BIN, then PATH, then
// mongodb-memory-server's download; and what is found must answer `--version` as mongod does. The
// stand-ins here only answer `--version`; a program that is not mongod (/bin/true, /bin/sh) is
// bad input, refused with one line, and then the gated suite (mongo.test.js) is skipped with it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findMongod, MONGODB_VERSION } from '../scripts/find-mongod.js';
import { SAMPLE_DIR, isAlive, waitFor } from './helpers.js';

const FIND = path.join(SAMPLE_DIR, 'scripts', 'find-mongod.js');

const dirs = [];
after(() => { for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true }); });

function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'find-mongod-'));
  dirs.push(dir);
  return dir;
}

function subdir(dir, name) {
  const p = path.join(dir, name);
  fs.mkdirSync(p);
  return p;
}

// A file that answers `--version` with `answer` (mongod 8.0's first line by default).
function file(dir, name, mode, answer = 'db version v8.0.30') {
  const p = path.join(dir, name);
  fs.writeFileSync(p, `#!/bin/sh\necho '${answer}'\n`);
  fs.chmodSync(p, mode);
  return p;
}

const NOT_MONGOD = (what) => new RegExp(`^${what} is not mongod: \`--version\` (answered ".+"|printed nothing) \\(exit \\d+\\), not "db version v…"; `);

test('MONGOD_BIN wins over PATH', async () => {
  const dir = tempDir();
  const bin = file(dir, 'my-mongod', 0o755);
  const onPath = subdir(dir, 'bin');
  file(onPath, 'mongod', 0o755);
  assert.deepEqual(await findMongod({ MONGOD_BIN: bin, PATH: onPath }), { path: bin, source: 'MONGOD_BIN', version: '8.0.30' });
});

test('MONGOD_BIN naming a missing file is an error naming it', async () => {
  const missing = path.join(tempDir(), 'nope', 'mongod');
  await assert.rejects(findMongod({ MONGOD_BIN: missing, PATH: '' }), { message: `MONGOD_BIN=${missing} does not exist` });
});

test('MONGOD_BIN naming a file that is not executable, or a folder, is an error naming it', async () => {
  const dir = tempDir();
  const plain = file(dir, 'mongod', 0o644);
  await assert.rejects(findMongod({ MONGOD_BIN: plain, PATH: '' }), { message: `MONGOD_BIN=${plain} is not an executable file` });
  await assert.rejects(findMongod({ MONGOD_BIN: dir, PATH: '' }), { message: `MONGOD_BIN=${dir} is not an executable file` });
});

test('without MONGOD_BIN, the first executable mongod on PATH', async () => {
  const dir = tempDir();
  const first = subdir(dir, 'a');
  const second = subdir(dir, 'b');
  file(first, 'mongod', 0o644); // not executable: skipped
  const found = file(second, 'mongod', 0o755);
  assert.deepEqual(await findMongod({ PATH: `${first}:${second}` }), { path: found, source: 'PATH', version: '8.0.30' });
});

test('MONGOD_BIN naming a program that is not mongod (/bin/true, /bin/sh): an error naming what it answered', async () => {
  for (const bin of ['/bin/true', '/bin/sh']) {
    await assert.rejects(findMongod({ MONGOD_BIN: bin, PATH: '' }), (/** @type {Error} */ err) => {
      assert.match(err.message, NOT_MONGOD(`MONGOD_BIN=${bin}`));
      assert.match(err.message, /point MONGOD_BIN at a mongod \(node-cluster\/README\.md, "Where mongod comes from"\)$/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  }
});

test('a mongod on PATH that is not mongod is refused, not passed over', async () => {
  const dir = tempDir();
  const bad = file(subdir(dir, 'a'), 'mongod', 0o755, 'mongod-shim 0.1');
  file(subdir(dir, 'b'), 'mongod', 0o755);
  await assert.rejects(findMongod({ PATH: `${path.dirname(bad)}:${dir}/b` }), {
    message: `mongod on PATH (${bad}) is not mongod: \`--version\` answered "mongod-shim 0.1" (exit 0), not "db version v…"; set MONGOD_BIN or put mongod on PATH (node-cluster/README.md, "Where mongod comes from")`,
  });
});

test('a MongoDB older than the driver supports is refused with its version', async () => {
  const old = file(tempDir(), 'mongod', 0o755, 'db version v4.2.24');
  await assert.rejects(findMongod({ MONGOD_BIN: old, PATH: '' }), { message: /^MONGOD_BIN=.* is MongoDB 4\.2\.24, older than the 4\.4 mongoose's driver needs; / });
  const newer = file(tempDir(), 'mongod', 0o755, 'db version v4.10.1');
  assert.equal((await findMongod({ MONGOD_BIN: newer, PATH: '' })).version, '4.10.1');
});

test('a program that never answers --version is stopped with whatever it started, and named', async () => {
  const dir = tempDir();
  const hangs = path.join(dir, 'mongod');
  fs.writeFileSync(hangs, `#!/bin/sh\necho $$ > '${dir}/pids'\nsleep 600 &\necho $! >> '${dir}/pids'\nwait\n`);
  fs.chmodSync(hangs, 0o755);
  await assert.rejects(findMongod({ MONGOD_BIN: hangs, PATH: '' }, { timeoutMs: 1_000 }), {
    message: `MONGOD_BIN=${hangs} is not mongod: \`--version\` did not answer within 1 s (stopped); point MONGOD_BIN at a mongod (node-cluster/README.md, "Where mongod comes from")`,
  });
  const pids = fs.readFileSync(path.join(dir, 'pids'), 'utf8').trim().split('\n').map(Number);
  assert.equal(pids.length, 2);
  await waitFor(() => pids.every((pid) => !isAlive(pid)), { timeoutMs: 5_000, what: 'the program and its child to be gone' });
});

// The gate of mongo.test.js, run as make test runs it: a bad MONGOD_BIN skips the suite with the line.
test('MONGOD_BIN=/bin/true: the MongoDB suite is one skipped test giving that reason', () => {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, MONGOD_BIN: '/bin/true' };
  delete env.NODE_TEST_CONTEXT; // a test run of its own, not a child of this one
  const res = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'test/mongo.test.js'], { cwd: SAMPLE_DIR, encoding: 'utf8', timeout: 60_000, env });
  assert.equal(res.status, 0, res.stdout + res.stderr);
  const skips = res.stdout.split('\n').filter((l) => /^ok \d+ .*# SKIP/.test(l));
  assert.equal(skips.length, 1, res.stdout);
  assert.match(skips[0], /# SKIP MONGOD_BIN=\/bin\/true is not mongod: `--version` /);
  assert.match(res.stdout, /^# pass 0$/m);
  assert.match(res.stdout, /^# fail 0$/m);
});

test('none anywhere and no download: exit 1 with one line saying how to get one', () => {
  const dir = tempDir();
  const res = spawnSync(process.execPath, [FIND], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: path.dirname(process.execPath),
      // An empty cache and a download address nobody answers on, so this holds on any machine.
      MONGOMS_DOWNLOAD_DIR: dir,
      MONGOMS_DOWNLOAD_MIRROR: 'https://127.0.0.1:9',
      MONGOMS_MAX_RETRIES: '1',
    },
  });
  assert.equal(res.status, 1, res.stderr);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, res.stderr);
  assert.match(lines[0], new RegExp(`^no mongod: .*MongoDB ${MONGODB_VERSION.replaceAll('.', '\\.')} could not be downloaded \\(connect ECONNREFUSED 127\\.0\\.0\\.1:9\\); set MONGOD_BIN or put mongod on PATH`));
  assert.deepEqual(fs.readdirSync(dir).filter((f) => !f.endsWith('.lock')), [], 'nothing half-downloaded left behind');
});

test('the downloaded MongoDB is the release the compose file runs', () => {
  const compose = fs.readFileSync(path.join(SAMPLE_DIR, 'compose.yaml'), 'utf8');
  assert.deepEqual([...compose.matchAll(/image:\s*mongo:(\S+)/g)].map((m) => m[1]), [MONGODB_VERSION]);
});
