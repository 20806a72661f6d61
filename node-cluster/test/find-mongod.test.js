// Where the local mongod comes from (scripts/find-mongod.js): MONGOD_BIN, then PATH, then
// mongodb-memory-server's download. The files here are only resolved, never run.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findMongod, MONGODB_VERSION } from '../scripts/find-mongod.js';
import { SAMPLE_DIR } from './helpers.js';

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

function file(dir, name, mode) {
  const p = path.join(dir, name);
  fs.writeFileSync(p, '#!/bin/sh\nexit 0\n');
  fs.chmodSync(p, mode);
  return p;
}

test('MONGOD_BIN wins over PATH', async () => {
  const dir = tempDir();
  const bin = file(dir, 'my-mongod', 0o755);
  const onPath = subdir(dir, 'bin');
  file(onPath, 'mongod', 0o755);
  assert.deepEqual(await findMongod({ MONGOD_BIN: bin, PATH: onPath }), { path: bin, source: 'MONGOD_BIN' });
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
  assert.deepEqual(await findMongod({ PATH: `${first}:${second}` }), { path: found, source: 'PATH' });
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
