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
import { listSamples, loadTopology, runnerFor } from '../runner/index.js';
import { tempRunDir, runProcesses, waitFor } from './helpers.js';

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

// The profile on the processes engine: Debian's prometheus and prometheus-nginx-exporter, the
// targets written from the instances' loopback ports and again after a scale.
const installed = ['prometheus', 'prometheus-nginx-exporter']
  .every((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0);
test('processes engine: a local Prometheus scrapes every replica and nginx, and follows a scale', {
  skip: installed ? false : 'no prometheus or prometheus-nginx-exporter here (apt-get install them)',
}, async (t) => {
  const { up, down, scale } = runnerFor('processes');
  const runDir = tempRunDir('metrics-profile');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
  });
  const state = await up({
    sample: 'node-replicas', runDir, env: { HTTP_PORT: '0', REPLICAS: '2', COMPOSE_PROFILES: 'metrics' },
  });
  const prom = `http://127.0.0.1:${state.services.prometheus.instances[0].port}`;
  const count = async (expr) => {
    const res = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(expr)}`);
    return Number((/** @type {any} */ (await res.json())).data.result[0]?.value[1] ?? 0);
  };
  const upTargets = (job, n) => waitFor(async () => (await count(`count(up{job="${job}"} == 1)`)) === n, {
    what: `${n} ${job} target(s) up`, timeoutMs: 30_000, everyMs: 500,
  });
  await upTargets('app', 2);
  await upTargets('nginx', 1);
  for (let i = 0; i < 20; i += 1) await (await fetch(state.url)).text();
  await waitFor(async () => (await count('sum(http_request_duration_seconds_count{route="/"})')) === 20, {
    what: 'the 20 GETs counted', timeoutMs: 30_000, everyMs: 500,
  });
  await scale({ runDir, service: 'app', replicas: 3 });
  await upTargets('app', 3);
});
