// Settings read at start-up: the MongoDB password comes from a file (compose secrets), and a
// missing file stops the process with one line naming it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { isAlive, startPrimary } from './helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-cluster-config-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('MONGODB_PASSWORD_FILE is read, without its trailing newline; it wins over MONGODB_PASSWORD', () => {
  const file = path.join(dir, 'pw.txt');
  fs.writeFileSync(file, 'from-the-file\n');
  const config = loadConfig({ MONGODB_USERNAME: 'items_app', MONGODB_PASSWORD_FILE: file, MONGODB_PASSWORD: 'from-env' });
  assert.deepEqual([config.mongodbUsername, config.mongodbPassword], ['items_app', 'from-the-file']);
  assert.equal(loadConfig({ MONGODB_USERNAME: 'u', MONGODB_PASSWORD: 'from-env' }).mongodbPassword, 'from-env');
});

test('without MONGODB_USERNAME there are no credentials, and the password file is not read', () => {
  const config = loadConfig({ MONGODB_PASSWORD_FILE: path.join(dir, 'missing.txt') });
  assert.deepEqual([config.mongodbUsername, config.mongodbPassword], [undefined, undefined]);
});

test('a missing password file stops the primary at start-up with one line naming it', async () => {
  const missing = path.join(dir, 'missing.txt');
  const p = await startPrimary({ MONGODB_USERNAME: 'items_app', MONGODB_PASSWORD_FILE: missing }, { waitReady: false });
  const { code } = await p.exited;
  assert.equal(code, 2);
  assert.equal(p.stderr, `MONGODB_PASSWORD_FILE=${missing} cannot be read (ENOENT)\n`);
  assert.ok(!isAlive(p.child.pid));
});

test('DRAIN_TIMEOUT_MS bounds the whole drain: a delay as long as it is refused with one line', () => {
  assert.throws(() => loadConfig({ DRAIN_DELAY_MS: '8000', DRAIN_TIMEOUT_MS: '8000' }), /DRAIN_TIMEOUT_MS \(8000\) .* must be above DRAIN_DELAY_MS \(8000\)/);
  assert.throws(() => loadConfig({ DRAIN_TIMEOUT_MS: '0' }), /DRAIN_TIMEOUT_MS must be an integer in \[1, 600000\]/);
  const ok = loadConfig({ DRAIN_DELAY_MS: '7999', DRAIN_TIMEOUT_MS: '8000' });
  assert.deepEqual([ok.drainDelayMs, ok.drainMs], [7999, 8000]);
});
