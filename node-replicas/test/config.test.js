import test from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { ConfigError, loadConfig } from '../src/config.js';

test('defaults: port 3000 on all interfaces, keep-alive above the proxy\'s 30 s, no delay', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.instance, os.hostname());
  assert.ok(c.keepAliveTimeoutMs > 30_000);
  assert.ok(c.headersTimeoutMs > c.keepAliveTimeoutMs);
  assert.equal(c.homeDelayMs, 0);
  assert.ok(c.piDefaultSamples <= c.piMaxSamples);
});

test('INSTANCE_NAME, when set, names the instance', () => {
  assert.equal(loadConfig({ INSTANCE_NAME: 'node-replicas-app-3' }).instance, 'node-replicas-app-3');
});

test('the GET / delay is fixed + a random part chosen once + the slow instance\'s extra', () => {
  const env = { DELAY_MS: '10', DELAY_RANDOM_MAX_MS: '100', SLOW_DELAY_MS: '500', SLOW_INSTANCE: '2' };
  assert.equal(loadConfig({ ...env, INSTANCE_NAME: 'x-app-1' }, () => 0).homeDelayMs, 10);
  assert.equal(loadConfig({ ...env, INSTANCE_NAME: 'x-app-1' }, () => 0.999).homeDelayMs, 110);
  assert.equal(loadConfig({ ...env, INSTANCE_NAME: 'x-app-2' }, () => 0).homeDelayMs, 510);
  // Suffix match on a whole index: instance 12 is not instance 2.
  assert.equal(loadConfig({ ...env, INSTANCE_NAME: 'x-app-12' }, () => 0).homeDelayMs, 10);
  assert.equal(loadConfig({ ...env, SLOW_INSTANCE: '', INSTANCE_NAME: 'x-app-2' }, () => 0).homeDelayMs, 10);
});

for (const [name, value] of [
  ['PORT', 'eighty'], ['PORT', '70000'], ['PORT', '-1'], ['DELAY_MS', '1.5'], ['PI_MAX_SAMPLES', '0'],
  ['DRAIN_TIMEOUT_MS', '0'], ['SLOW_DELAY_MS', 'lots'], ['DELAY_RANDOM_MAX_MS', '1e3'],
]) {
  test(`rejects ${name}=${value} with a message naming it`, () => {
    assert.throws(() => loadConfig({ [name]: value }), (err) => err instanceof ConfigError && err.message.startsWith(name));
  });
}

test('rejects a default above the maximum and a headers timeout not above keep-alive', () => {
  assert.throws(() => loadConfig({ PI_DEFAULT_SAMPLES: '20', PI_MAX_SAMPLES: '10' }), ConfigError);
  assert.throws(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5000' }), ConfigError);
  // The timeout bounds the whole drain, the delay included.
  assert.throws(() => loadConfig({ DRAIN_DELAY_MS: '8000', DRAIN_TIMEOUT_MS: '8000' }), /DRAIN_TIMEOUT_MS .* must be above DRAIN_DELAY_MS/);
});

test('DELAY_CHOICES_MS draws one value per instance; with DELAY_SEED the draw repeats and is recorded on GET /', () => {
  const env = { DELAY_CHOICES_MS: '0,500,1000,1500,2000', DELAY_SEED: '42' };
  const draw = (seed) => Array.from({ length: 10 }, (_, i) => loadConfig({ ...env, DELAY_SEED: seed, INSTANCE_NAME: `node-replicas-app-${i + 1}` }).homeDelayMs);
  const first = draw('42');
  assert.deepEqual(draw('42'), first, 'the same seed, the same delays');
  assert.ok(first.every((d) => [0, 500, 1000, 1500, 2000].includes(d)), String(first));
  assert.ok(new Set(first).size > 1, `ten replicas do not all draw the same delay (${first})`);
  assert.notDeepEqual(draw('43'), first, 'another seed, another draw');
  // Without a seed, the draw comes from the random source (as each container drew in the article).
  assert.equal(loadConfig({ DELAY_CHOICES_MS: '0,500,1000,1500,2000' }, () => 0.99).homeDelayMs, 2000);
  assert.equal(loadConfig({ DELAY_CHOICES_MS: '7', DELAY_MS: '3' }, () => 0).homeDelayMs, 10, 'added to the fixed delay');
});

test('bad delay choices or seed are refused at start-up', () => {
  assert.throws(() => loadConfig({ DELAY_CHOICES_MS: '0,half' }), /DELAY_CHOICES_MS must be a comma-separated list/);
  assert.throws(() => loadConfig({ DELAY_CHOICES_MS: '0,500', DELAY_SEED: 'x' }), /DELAY_SEED must be a whole number/);
});

test('METRICS_PORT: unset means no metrics server; it must be a port other than PORT', () => {
  assert.equal(loadConfig({}).metricsPort, null);
  assert.equal(loadConfig({ METRICS_PORT: '9464' }).metricsPort, 9464);
  assert.equal(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metricsPort, 0, 'both free ports (tests)');
  assert.throws(() => loadConfig({ PORT: '9464', METRICS_PORT: '9464' }), /METRICS_PORT \(9464\) must differ from PORT/);
  assert.throws(() => loadConfig({ METRICS_PORT: 'http' }), ConfigError);
});
