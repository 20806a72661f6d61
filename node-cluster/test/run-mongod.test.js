// The mongo service's local command (scripts/run-mongod.js): whatever stops mongod from starting
// ends in one line naming the cause and a non-zero exit, and signals reach mongod. The "mongod"
// here is a stand-in shell script that exercises the wrapper's handling only; the database itself
// is tested against a real mongod in mongo.test.js.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE_DIR, freePort, isAlive, waitFor } from './helpers.js';

const RUN = path.join(SAMPLE_DIR, 'scripts', 'run-mongod.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'run-mongod-'));
const children = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
});

// A stand-in for mongod: answers `--version` as mongod 8.0 does (find-mongod.js asks); otherwise
// records that it ran, then runs `body`.
function fakeMongod(name, body) {
  const file = path.join(root, name);
  fs.writeFileSync(file, `#!/bin/sh\n[ "$1" = --version ] && { echo "db version v8.0.30"; exit 0; }\necho "$$" > "${file}.ran"\n${body}\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

function run(args, env) {
  const child = spawn(process.execPath, [RUN, ...args], { env: { PATH: '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => { out.stdout += c; });
  child.stderr.on('data', (c) => { out.stderr += c; });
  out.exited = new Promise((resolve) => { child.once('close', (code, signal) => resolve({ code, signal })); });
  out.child = child;
  return out;
}

async function failsWithOneLine(res, pattern) {
  const { code } = await res.exited;
  assert.notEqual(code, 0);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, res.stderr);
  assert.match(lines[0], pattern);
}

const dbpath = (name) => path.join(root, name);

test('MONGOD_BIN naming a missing file: one line, exit 1', async () => {
  const res = run(['--port', String(await freePort()), '--dbpath', dbpath('d1')], { MONGOD_BIN: path.join(root, 'missing') });
  await failsWithOneLine(res, /^run-mongod: MONGOD_BIN=.*missing does not exist$/);
});

test('MONGOD_BIN naming a file that is not executable: one line, exit 1', async () => {
  const plain = path.join(root, 'plain');
  fs.writeFileSync(plain, '');
  const res = run(['--port', String(await freePort()), '--dbpath', dbpath('d2')], { MONGOD_BIN: plain });
  await failsWithOneLine(res, /^run-mongod: MONGOD_BIN=.*plain is not an executable file$/);
});

test('MONGOD_BIN naming a program that is not mongod: one line naming what it answered, exit 1, nothing run', async () => {
  const notMongod = path.join(root, 'not-mongod');
  fs.writeFileSync(notMongod, `#!/bin/sh\n[ "$1" = --version ] && { echo "sh 1.0"; exit 0; }\necho "$$" > "${notMongod}.ran"\n`);
  fs.chmodSync(notMongod, 0o755);
  const res = run(['--port', String(await freePort()), '--dbpath', dbpath('d6')], { MONGOD_BIN: notMongod });
  await failsWithOneLine(res, /^run-mongod: MONGOD_BIN=.*not-mongod is not mongod: `--version` answered "sh 1\.0" \(exit 0\), not "db version v…"; point MONGOD_BIN at a mongod /);
  assert.equal(fs.existsSync(`${notMongod}.ran`), false, 'started only with --version');
});

test('port already taken: one line naming it, and mongod is not started', async () => {
  const mongod = fakeMongod('mongod-port', 'exit 0');
  const holder = net.createServer();
  await new Promise((resolve) => { holder.listen(0, '127.0.0.1', () => resolve(undefined)); });
  const { port } = /** @type {import('node:net').AddressInfo} */ (holder.address());
  try {
    const res = run(['--bind_ip', '127.0.0.1', '--port', String(port), '--dbpath', dbpath('d3')], { MONGOD_BIN: mongod });
    await failsWithOneLine(res, new RegExp(`^run-mongod: port ${port} on 127\\.0\\.0\\.1 is already in use$`));
    assert.equal(fs.existsSync(`${mongod}.ran`), false);
  } finally {
    holder.close();
  }
});

test('data folder that cannot be written: one line naming it, and mongod is not started', async () => {
  const mongod = fakeMongod('mongod-dbpath', 'exit 0');
  const notAFolder = path.join(root, 'a-file');
  fs.writeFileSync(notAFolder, '');
  const res = run(['--port', String(await freePort()), '--dbpath', path.join(notAFolder, 'db')], { MONGOD_BIN: mongod });
  await failsWithOneLine(res, /^run-mongod: data folder .*a-file\/db is not writable \((ENOTDIR|EEXIST)\)$/);
  assert.equal(fs.existsSync(`${mongod}.ran`), false);
});

test('mongod failing at start: its exit code and its own first error, on one line', async () => {
  // What mongod 8 logs when its port is taken between the check and its own bind.
  const line = JSON.stringify({ t: { $date: '2026-11-21T00:00:00.000Z' }, s: 'E', c: 'CONTROL', id: 20568, ctx: 'initandlisten', msg: 'Error setting up listener', attr: { error: { code: 9001, codeName: 'SocketException', errmsg: 'Address already in use' } } });
  const mongod = fakeMongod('mongod-fails', `echo '{"s":"I","msg":"MongoDB starting"}'\necho '${line}'\nexit 48`);
  const res = run(['--port', String(await freePort()), '--dbpath', dbpath('d4')], { MONGOD_BIN: mongod });
  await failsWithOneLine(res, /^run-mongod: mongod exited with code 48: Error setting up listener: Address already in use$/);
  assert.equal((await res.exited).code, 48);
  assert.match(res.stdout, /"MongoDB starting"/, "mongod's own log passes through");
});

test('SIGTERM reaches mongod; the wrapper exits with its code and leaves nothing running', async () => {
  const mongod = fakeMongod('mongod-runs', "trap 'echo stopping; exit 0' TERM\necho started\nwhile :; do sleep 0.1; done");
  const res = run(['--port', String(await freePort()), '--dbpath', dbpath('d5')], { MONGOD_BIN: mongod });
  await waitFor(() => res.stdout.includes('started'), { what: 'the stand-in to start' });
  const pid = Number(fs.readFileSync(`${mongod}.ran`, 'utf8'));
  res.child.kill('SIGTERM');
  assert.deepEqual(await res.exited, { code: 0, signal: null });
  assert.match(res.stdout, /stopping/);
  await waitFor(() => !isAlive(pid), { what: 'the stand-in to be gone' });
});
