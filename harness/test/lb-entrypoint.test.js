// proxy/docker-entrypoint.d/05-check-lb.sh, which the nginx image runs before rendering the
// templates: run with sh against the real lb/ folder. (configs.test.js keeps the samples' copies
// byte-identical to it.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';
import { listSamples } from '../runner/index.js';

const SCRIPT = path.join(REPO_ROOT, 'proxy', 'docker-entrypoint.d', '05-check-lb.sh');
const LB_DIR = path.join(REPO_ROOT, 'proxy', 'lb');
const methods = fs.readdirSync(LB_DIR).filter((f) => f.endsWith('.conf')).map((f) => f.replace(/\.conf$/, '')).sort();

function check(lb) {
  const env = { PATH: process.env.PATH, NGINX_LB_DIR: LB_DIR, ...(lb === undefined ? {} : { NGINX_LB: lb }) };
  return spawnSync('sh', [SCRIPT], { env, encoding: 'utf8', timeout: 10_000 });
}

test('every method in lb/ passes silently', () => {
  assert.ok(methods.length >= 3, `lb/ holds ${methods.join(', ')}`);
  for (const lb of methods) {
    const res = check(lb);
    assert.deepEqual([res.status, res.stdout, res.stderr], [0, '', ''], lb);
  }
});

test('anything else stops the container with one line naming the accepted values', () => {
  for (const lb of ['round-robin', 'leastconn', '', undefined, '../lb/hash', 'hash.conf', '*']) {
    const res = check(lb);
    assert.equal(res.status, 1, `LB=${lb}`);
    assert.equal(res.stdout, '');
    assert.equal(
      res.stderr,
      `05-check-lb.sh: LB=${lb ?? ''} is not a balancing method; use one of: ${methods.join(', ')}\n`,
    );
  }
});

test('the script and each sample\'s copy are executable (the image skips *.sh files that are not)', () => {
  const copies = listSamples().filter((s) => fs.existsSync(path.join(REPO_ROOT, s, 'nginx')))
    .map((s) => path.join(REPO_ROOT, s, 'nginx', 'docker-entrypoint.d', '05-check-lb.sh'));
  assert.ok(copies.length > 0, 'no sample has a copy of the script');
  for (const file of [SCRIPT, ...copies]) {
    assert.ok(fs.statSync(file).mode & 0o111, `${path.relative(REPO_ROOT, file)} is not executable`);
  }
});
