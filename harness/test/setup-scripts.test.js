// The set-up's shell scripts (make setup, the stand-in builder, CI) parse, and every script they call
// is where they look for it. A machine that already has what a branch installs never runs that
// branch, so a call into a moved script only failed on a new machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

const SCRIPT_DIRS = ['harness/setup', 'harness/docker-engine', '.ci'];

const scripts = () =>
  SCRIPT_DIRS.flatMap((dir) =>
    fs
      .readdirSync(path.join(REPO_ROOT, dir))
      .filter((f) => f.endsWith('.sh') || (dir === '.ci' && f === 'run'))
      .map((f) => path.join(dir, f)),
  );

/** The scripts one script calls, as repository paths: by its own folder, or from the root. */
function calledScripts(script, text) {
  const own = path.dirname(script);
  const calls = [];
  for (const m of text.matchAll(/(?:\$\(dirname "\$0"\)|\$here)\/([\w./-]+\.sh)/g)) calls.push(path.join(own, m[1]));
  for (const m of text.matchAll(/(?<![\w/$.-])(harness\/[\w./-]+\.sh)/g)) calls.push(path.normalize(m[1]));
  return [...new Set(calls)];
}

test('every set-up script parses and every script it calls is there', () => {
  const all = scripts();
  assert.ok(all.length >= 5, `found the set-up scripts: ${all.join(', ')}`);
  const missing = [];
  let calls = 0;
  for (const script of all) {
    const parse = spawnSync('bash', ['-n', path.join(REPO_ROOT, script)], { encoding: 'utf8' });
    assert.equal(parse.status, 0, `${script}: ${parse.stderr}`);
    for (const called of calledScripts(script, fs.readFileSync(path.join(REPO_ROOT, script), 'utf8'))) {
      calls += 1;
      if (!fs.existsSync(path.join(REPO_ROOT, called))) missing.push(`${script} calls ${called}`);
    }
  }
  assert.ok(calls >= 3, `the scripts' calls were read (${calls})`);
  assert.deepEqual(missing, []);
});

test('a call into a moved script is caught', () => {
  const old = 'archive=$("$(dirname "$0")/../docker/debian-archive.sh")';
  assert.deepEqual(calledScripts('harness/setup/docker-engine.sh', old), ['harness/docker/debian-archive.sh']);
  assert.deepEqual(calledScripts('harness/docker-engine/build-stand-ins.sh', 'x=$(harness/setup/debian-archive.sh)'), [
    'harness/setup/debian-archive.sh',
  ]);
  assert.deepEqual(calledScripts('harness/setup/system-packages.sh', '"$here/docker-engine.sh"'), [
    'harness/setup/docker-engine.sh',
  ]);
});
