// The runner's compose notations: interpolation, durations and sizes, nginx's envsubst, the knobs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolateString } from '../common/interpolate.js';
import { durationMs, sizeBytes } from '../common/units.js';
import { envsubst } from '../processes/nginx.js';
import { validateKnobs } from '../common/options.js';
import { reResolveMs, readmissionMs } from '../docker/proxy.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

test('compose interpolation follows the compose spec forms', () => {
  const vars = { SET: 'x', EMPTY: '' };
  assert.equal(interpolateString('${SET:-d}/${EMPTY:-d}/${MISSING:-d}', vars), 'x/d/d');
  assert.equal(interpolateString('${EMPTY-d}/${MISSING-d}', vars), '/d');
  assert.equal(interpolateString('$SET ${SET} $$SET', vars), 'x x $SET');
  assert.equal(interpolateString('${SET:+alt}/${EMPTY:+alt}', vars), 'alt/');
  assert.equal(interpolateString('${MISSING:-${SET}}', vars), 'x');
  assert.throws(() => interpolateString('${MISSING:?set it in .env}', vars), /MISSING must be set: set it in .env/);
});

test('durations and sizes use compose notation', () => {
  assert.equal(durationMs('1m30s'), 90_000);
  assert.equal(durationMs('500ms'), 500);
  assert.equal(durationMs(undefined, 7), 7);
  assert.throws(() => durationMs('ten seconds'), /invalid duration/);
  assert.equal(sizeBytes('256M'), 256 * 1024 * 1024);
  assert.equal(sizeBytes('1g'), 1024 ** 3);
  assert.throws(() => sizeBytes('lots'), /invalid memory size/);
});

test('envsubst replaces only defined variables, like the nginx image', () => {
  assert.equal(envsubst('server ${NGINX_UPSTREAM}; proxy_set_header Host $host;', { NGINX_UPSTREAM: 'app:3000' }),
    'server app:3000; proxy_set_header Host $host;');
});

test('knob validation names the bad knob and what it accepts', () => {
  assert.throws(() => validateKnobs({ REPLICAS: '0' }), /^Error: REPLICAS=0 must be a whole number from 1 to 64$/);
  assert.throws(() => validateKnobs({ REPLICAS: '500' }), /REPLICAS=500/);
  assert.throws(() => validateKnobs({ CPUS: 'abc' }), /CPUS=abc must be a number of CPUs/);
  assert.throws(() => validateKnobs({ LB: 'random' }), /LB=random must be one of least_conn, round_robin, hash/);
  assert.doesNotThrow(() => validateKnobs({ REPLICAS: '4', CPUS: '0.5', LB: 'hash', WORKERS: '2', HTTP_PORT: '0' }));
});

test("nginx's timings on Docker from a sample's templates: re-resolution and readmission", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxy-timings-'));
  try {
    fs.mkdirSync(path.join(dir, 'nginx', 'templates'), { recursive: true });
    const template = (server) => [
      '# server commented;',
      'resolver ${NGINX_LOCAL_RESOLVERS} valid=3s ipv6=off;',
      'server {\n    listen 80;\n}',
      `upstream app {\n    ${server}\n}`,
    ].join('\n');
    const file = path.join(dir, 'nginx', 'templates', 'default.conf.template');
    const write = (server) => fs.writeFileSync(file, template(server));
    write('server ${NGINX_UPSTREAM} resolve max_fails=2 fail_timeout=4s;');
    assert.equal(reResolveMs(dir), 4000, 'valid= + 1 s');
    assert.equal(readmissionMs(dir), 5000, "the upstream server's fail_timeout + 1 s, its address a variable");
    write('server ${NGINX_UPSTREAM} resolve;');
    assert.equal(readmissionMs(dir), 11_000, "nginx's default fail_timeout, 10 s");
    write('server ${NGINX_UPSTREAM} resolve max_fails=0;');
    assert.equal(readmissionMs(dir), 4000, 'never out: the re-resolution alone');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
