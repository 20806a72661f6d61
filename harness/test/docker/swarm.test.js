// Every sample's stack on a single-node Swarm (ports published in host mode: no routing mesh
// without IPVS), deployed as the READMEs say: `docker stack deploy -c compose.yaml -c
// compose.swarm.yaml`; a start-first rolling update under load with no failed GET.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, freePort, waitFor, docker, dockerOk, Project, secretsReady, STAND_INS } from './helpers.js';
import { startLoad, describeStats } from './load.js';
import YAML from 'yaml';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { hardeningOf } from './hardened.js';

const { skip, failed } = await engine();
const SAMPLES = ['node-replicas', 'node-cluster', 'dotnet-api'];

// `docker stack config|deploy -c compose.yaml -c compose.swarm.yaml`, run in the sample's folder;
// `extra`: more files of the sample's on top.
function stack(sample, verb, name, { env = {}, extra = [], timeout = 240_000 } = {}) {
  const args = ['compose.yaml', 'compose.swarm.yaml', ...extra].flatMap((f) => ['-c', f]);
  // Detached: the tests wait for what answers (a one-shot migrator never "converges").
  const cmd = verb === 'config' ? ['stack', 'config', ...args] : ['stack', 'deploy', '--detach=true', ...args, name];
  const res = docker(cmd, { cwd: path.join(REPO_ROOT, sample), env, timeout });
  if (res.status !== 0) throw new Error(`docker stack ${verb} ${sample}: ${(res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  return res.stdout;
}

// A service's newest task state and error, and its last log line: what a failed step names.
function lastTaskError(service) {
  const ps = docker(['service', 'ps', '--no-trunc', '--format', '{{.CurrentState}} {{.Error}}', service]);
  const logs = docker(['service', 'logs', '--raw', '--tail', '1', service], { timeout: 15_000 });
  return `${ps.stdout.trim().split('\n')[0] ?? ''}; last log line: ${(logs.stdout + logs.stderr).trim().split('\n').at(-1) || '(none)'}`;
}

async function removeStack(name) {
  docker(['stack', 'rm', name]);
  await waitFor(() => docker(['ps', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]).stdout.trim() === '', { what: `stack ${name} removed`, timeoutMs: 60_000 });
  // The stack's networks go a moment after its containers.
  await waitFor(() => docker(['network', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]).stdout.trim() === '', { what: `stack ${name}'s networks removed`, timeoutMs: 30_000 });
}

describe(`the samples on a single-node Swarm ${STAND_INS}`, { skip }, () => {
  before(async () => {
    if (failed) throw new Error(failed);
    for (const sample of SAMPLES) {
      secretsReady(sample);
      // Swarm ignores build:, so the images come from the Compose build (cached after the Compose tests).
      new Project({ sample, name: `lab-build-${sample}` }).run(['build', '--quiet'], { timeout: 900_000 });
    }
    docker(['swarm', 'leave', '--force']);
    dockerOk(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  });

  after(() => {
    docker(['swarm', 'leave', '--force'], { timeout: 60_000 });
  });

  test(`docker stack config passes for every sample ${STAND_INS}`, () => {
    for (const sample of SAMPLES) {
      const merged = YAML.parse(stack(sample, 'config'));
      assert.equal(merged.services.nginx.ports[0].mode, 'host', `${sample}: nginx published in host mode`);
      assert.equal(merged.services.nginx.deploy.restart_policy.condition, 'any', `${sample}: compose.swarm.yaml merged in`);
    }
  });

  test(`node-replicas: deployed, then a start-first rolling update under load with no failed GET ${STAND_INS}`, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    try {
      stack('node-replicas', 'deploy', 'lab-nr', { env: { HTTP_PORT: String(port), REPLICAS: '2' } });
      const running = () => docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=lab-nr_app', '--filter', 'health=healthy']).stdout.trim().split('\n').filter(Boolean).length;
      await waitFor(() => running() === 2, { what: '2 healthy app tasks', timeoutMs: 90_000 });
      await waitFor(async () => (await fetch(`${base}/`)).status === 200, { what: 'GET / through nginx', timeoutMs: 60_000 });
      const load = startLoad(`${base}/`, { concurrency: 8, maxSeconds: 240, instances: true });
      const before = new Set(docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=lab-nr_app']).stdout.trim().split('\n'));
      await sleep(1000);
      const update = docker(['service', 'update', '--force', '--detach=false', 'lab-nr_app'], { timeout: 240_000 });
      await sleep(2000);
      const stats = await load.stop();
      console.log(`  Swarm rolling update under load ${STAND_INS}: ${describeStats(stats)}`);
      assert.equal(update.status, 0, `service update: ${update.stderr.trim().split('\n').at(-1)} (${lastTaskError('lab-nr_app')})`);
      const now = docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=lab-nr_app']).stdout.trim().split('\n');
      assert.equal(now.length, 2);
      assert.ok(now.every((id) => !before.has(id)), 'every task was replaced');
      assert.equal(stats.failed, 0, describeStats(stats));
    } finally {
      await removeStack('lab-nr');
    }
  });

  test(`node-cluster: deployed; app and nginx answer without MongoDB (no image of it here) ${STAND_INS}`, async () => {
    const port = await freePort();
    try {
      stack('node-cluster', 'deploy', 'lab-nc', { env: { HTTP_PORT: String(port), REPLICAS: '1' } });
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`)).status === 200,
        { what: 'GET /health through nginx', timeoutMs: 90_000 }).catch((err) => { throw new Error(`${err.message}; app: ${lastTaskError('lab-nc_app')}; nginx: ${lastTaskError('lab-nc_nginx')}`); });
      assert.equal((await fetch(`http://127.0.0.1:${port}/ready`)).status, 503);
    } finally {
      await removeStack('lab-nc');
    }
  });

  test(`dotnet-api: deployed with compose.swarm.postgres.yaml (sqlserver scaled to 0); the seed through nginx; tasks hardened ${STAND_INS}`, async () => {
    const port = await freePort();
    try {
      stack('dotnet-api', 'deploy', 'lab-dn', { env: { HTTP_PORT: String(port), REPLICAS: '1', CPUS: '1' }, extra: ['compose.swarm.postgres.yaml'] });
      // The body, not only the status: the seed is there, read through nginx by the app's login.
      const items = await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/products?pageSize=3`);
        return res.status === 200 ? (/** @type {any} */ (await res.json())).items : undefined;
      }, { what: 'GET /products through nginx', timeoutMs: 120_000 }).catch((err) => { throw new Error(`${err.message}; migrator: ${lastTaskError('lab-dn_migrator')}; app: ${lastTaskError('lab-dn_app')}`); });
      assert.deepEqual(items.map((i) => i.sku), ['SKU-0001', 'SKU-0002', 'SKU-0003']);
      // What Swarm keeps of compose.yaml's hardening (it drops security_opt), and the secrets' modes.
      for (const service of ['app', 'nginx', 'postgres']) {
        const id = docker(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=lab-dn_${service}`]).stdout.trim().split('\n')[0];
        const h = hardeningOf(id);
        assert.equal(h.readOnly, true, `${service}: read-only root`);
        assert.ok(h.capDrop.includes('ALL'), `${service}: cap_drop ALL`);
        assert.ok(h.nonRoot, `${service}: every process non-root (${h.uids})`);
      }
      const app = docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=lab-dn_app']).stdout.trim().split('\n')[0];
      assert.equal(dockerOk(['exec', app, 'stat', '-c', '%u %a', '/run/secrets/db_app_password']).trim(), '1654 400', 'the app\'s secret: its user\'s, mode 0400');
    } finally {
      await removeStack('lab-dn');
    }
  });
});
