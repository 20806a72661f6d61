// The override the docker backend adds to a sample's compose files (runner/docker/override.js),
// from a real sample's `docker compose config` shape: published ports bound to loopback, the app's
// own port published from the run's range (one host port per container, so a restarted container
// finds its own again), and the run's CPU placement. No engine needed: the file is checked as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ownPortServices, writeOverride } from '../docker/override.js';
import { tempRunDir } from '../../test/helpers.js';

// What `docker compose config --format json` gives for node-replicas with REPLICAS=3.
const config = {
  services: {
    app: {
      environment: { PORT: '3000' },
      deploy: { replicas: 3 },
      healthcheck: { test: ['CMD', 'node', 'healthcheck.js'] },
    },
    nginx: {
      ports: [{ target: 80, published: '8080', protocol: 'tcp' }],
      healthcheck: { test: ['CMD-SHELL', 'curl -fsS http://127.0.0.1:80/nginx-health'] },
    },
    worker: { command: ['node', 'job.js'] },
  },
};

test('the services whose own port only the override publishes, with their container counts', () => {
  assert.deepEqual(ownPortServices(config), { app: 3 }, 'nginx publishes its own; the worker has no port');
  assert.deepEqual(ownPortServices({ services: { db: { healthcheck: { test: 'pg_isready -h 127.0.0.1:5432' } } } }), {
    db: 1,
  });
});

test('the override: loopback everywhere, the app from its range, cpuset and cgroup_parent on every service', () => {
  const runDir = tempRunDir('override');
  const file = writeOverride(runDir, config, {
    cpuset: '1',
    cgroupParent: '/scaling-lab/run1',
    ranges: { app: [24000, 24003] },
  });
  assert.equal(path.dirname(file), runDir);
  const text = fs.readFileSync(file, 'utf8');
  const doc = YAML.parse(text, { customTags: [{ tag: '!override', collection: 'seq', resolve: (v) => v }] });
  assert.deepEqual(doc.services.app.ports, [
    { target: 3000, published: '24000-24003', host_ip: '127.0.0.1', protocol: 'tcp' },
  ]);
  assert.deepEqual(doc.services.nginx.ports, [
    { target: 80, published: '8080', host_ip: '127.0.0.1', protocol: 'tcp' },
  ]);
  assert.equal(doc.services.worker.ports, undefined, 'nothing to publish for a service without a port');
  for (const svc of Object.values(doc.services))
    assert.deepEqual([svc.cpuset, svc.cgroup_parent], ['1', '/scaling-lab/run1']);
  assert.equal(text.match(/ports: !override/g)?.length, 2, 'the sample\'s own port lists are replaced, not merged');
  // A range of one port is that port.
  const one = YAML.parse(fs.readFileSync(writeOverride(runDir, config, { ranges: { app: [24000, 24000] } }), 'utf8'), {
    customTags: [{ tag: '!override', collection: 'seq', resolve: (v) => v }],
  });
  assert.equal(one.services.app.ports[0].published, '24000');
  // Without a range the engine picks a port per container.
  const plain = YAML.parse(fs.readFileSync(writeOverride(runDir, config), 'utf8'), {
    customTags: [{ tag: '!override', collection: 'seq', resolve: (v) => v }],
  });
  assert.deepEqual(plain.services.app.ports, [{ target: 3000, host_ip: '127.0.0.1', protocol: 'tcp' }]);
  assert.equal(plain.services.app.cpuset, undefined);
});
