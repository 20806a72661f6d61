// The commit-msg hook (.githooks/commit-msg) that `make setup` installs: it must refuse a subject
// over 72 characters and accept a short one with figures in the body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

const HOOK = path.join(REPO_ROOT, '.githooks', 'commit-msg');

function check(message) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commit-msg-'));
  try {
    const file = path.join(dir, 'COMMIT_EDITMSG');
    fs.writeFileSync(file, message);
    return spawnSync(HOOK, [file], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a subject of at most 72 characters with a body passes', () => {
  const r = check(`${'a'.repeat(72)}\n\nbench: x1.78 at 2 cores (hand run)\n`);
  assert.equal(r.status, 0, r.stderr);
});

test('a subject of 73 characters is refused with one line naming the limit', () => {
  const r = check(`${'a'.repeat(73)}\n`);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /73 characters; keep it to 72/);
});

test('comment lines are not the subject; an empty message is refused', () => {
  assert.equal(check(`# ${'x'.repeat(100)}\nshort subject\n`).status, 0);
  assert.equal(check('# only a comment\n\n').status, 1);
});

test('a body glued to the subject is refused', () => {
  assert.equal(check('subject\nbody on line two\n').status, 1);
});
