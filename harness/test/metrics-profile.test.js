// Every sample's `metrics` profile, read without a daemon: Prometheus scrapes the port the app's
// METRICS_PORT names, on the service nginx balances over (found by DNS), and nginx's stub_status
// port is exposed on the service network, never published; the profile's services are hardened as
// the others; the runner starts them only when the profile is asked for (COMPOSE_PROFILES).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { REPO_ROOT } from '../lib/repo-root.js';
import { listSamples, loadTopology } from '../runner/index.js';

const PROFILE = ['prometheus', 'nginx-exporter'];

for (const sample of listSamples()) {
  const dir = path.join(REPO_ROOT, sample);
  test(`${sample}: the metrics profile scrapes every app instance's METRICS_PORT and nginx's stub_status`, () => {
    const res = spawnSync('docker', ['compose', '--profile', 'metrics', 'config', '--format', 'json'], {
      cwd: dir, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(res.status, 0, res.stderr);
    const { services } = JSON.parse(res.stdout);
    const nginx = services.nginx;
    const upstream = /^([\w-]+):\d+$/.exec(nginx.environment.NGINX_UPSTREAM)?.[1];
    const metricsPort = Number(services[upstream].environment.METRICS_PORT);
    assert.ok(metricsPort > 0, `${upstream} sets METRICS_PORT`);

    const prom = YAML.parse(fs.readFileSync(path.join(dir, 'prometheus', 'prometheus.yml'), 'utf8'));
    const app = prom.scrape_configs.find((j) => j.job_name === 'app');
    const discovered = app.dns_sd_configs.map((d) => [d.names, d.type, d.port]);
    assert.deepEqual(discovered, [[[upstream], 'A', metricsPort]]);
    for (const file of prom.rule_files) {
      assert.ok(fs.existsSync(path.join(dir, 'prometheus', file)), `${file} is there`);
    }
    const exporter = prom.scrape_configs.find((j) => j.job_name === 'nginx').static_configs[0].targets[0];
    assert.equal(exporter, 'nginx-exporter:9113');

    const uri = new URL(/--nginx\.scrape-uri=(\S+)/.exec(services['nginx-exporter'].command.join(' '))[1]);
    assert.equal(uri.hostname, 'nginx');
    assert.ok(nginx.expose.includes(uri.port), `nginx exposes ${uri.port}`);
    assert.ok(!(nginx.ports ?? []).some((p) => String(p.target) === uri.port), 'stub_status is not published');
    const template = fs.readFileSync(path.join(dir, 'nginx', 'templates', 'default.conf.template'), 'utf8');
    assert.match(template, new RegExp(`listen ${uri.port};[\\s\\S]*?location = ${uri.pathname} \\{\\s*stub_status;`));

    for (const name of PROFILE) {
      const svc = services[name];
      assert.deepEqual(svc.profiles, ['metrics'], `${name} runs only with the profile`);
      assert.equal(svc.read_only, true, `${name}: read_only`);
      assert.deepEqual(svc.cap_drop, ['ALL'], `${name}: cap_drop`);
      assert.ok(svc.security_opt.includes('no-new-privileges:true'), `${name}: no-new-privileges`);
      assert.ok(svc.user && !/^(root|0)(:|$)/.test(svc.user), `${name}: not root`);
      assert.deepEqual(svc.ports ?? [], [], `${name} publishes no port`);
    }
  });

  test(`${sample}: the runner starts the metrics profile only when asked; a metrics port per instance`, () => {
    const plain = loadTopology(sample, {});
    for (const name of PROFILE) assert.equal(plain.services[name], undefined, `${name} not without the profile`);
    const withProfile = loadTopology(sample, { COMPOSE_PROFILES: 'metrics' });
    for (const name of PROFILE) assert.ok(withProfile.services[name], `${name} with COMPOSE_PROFILES=metrics`);
    const upstream = /^([\w-]+):/.exec(plain.services.nginx.environment.NGINX_UPSTREAM)[1];
    assert.deepEqual(plain.services[upstream].local.extra_ports_env, ['METRICS_PORT']);
  });
}
