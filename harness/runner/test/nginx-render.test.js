// Every sample's nginx config, and the runner's fixture's (it mounts proxy/, so this checks the
// reference config too), rendered for loopback (nginx.js) passes `nginx -t`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { listSamples, loadTopology } from '../common/compose.js';
import { renderNginx, testConfig } from '../processes/nginx.js';
import { tempRunDir, FIXTURE } from '../../test/helpers.js';

for (const sample of [...listSamples(), path.relative(REPO_ROOT, FIXTURE)]) {
  const topology = loadTopology(sample, {});
  for (const svc of Object.values(topology.services).filter((s) => s.local.nginx)) {
    test(`${sample}: ${svc.name} config rendered for loopback passes nginx -t`, () => {
      const runDir = tempRunDir('nginx-t');
      let port = 20000;
      const upstreamPorts = Object.fromEntries(
        Object.values(topology.services).map((s) => [s.name, Array.from({ length: s.replicas }, () => (port += 1))]),
      );
      const listened = [...svc.ports.map((p) => p.container), ...svc.expose];
      const listenPorts = Object.fromEntries(listened.map((p) => [p, (port += 1)]));
      const rendered = renderNginx({ svc, runDir, upstreamPorts, listenPorts });
      testConfig(rendered, runDir); // throws with nginx's message on failure
      const conf = fs.readFileSync(path.join(rendered.prefix, 'conf.d', 'default.conf'), 'utf8');
      assert.match(conf, /server 127\.0\.0\.1:\d+/, 'upstream servers point at loopback instances');
      assert.doesNotMatch(conf, /\$\{NGINX_/, 'template variables substituted');
    });
  }
}
