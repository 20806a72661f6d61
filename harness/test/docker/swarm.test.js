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

const { skip, failed } = await engine();
const SAMPLES = ['node-replicas', 'node-cluster', 'dotnet-api'];

// A third file on top of dotnet-api's two: PostgreSQL 18 beside its sqlserver service, which is
// scaled to 0 (no SQL Server image can be built here). Swarm's loader appends a healthcheck's test
// list instead of replacing it, and takes neither compose.postgres.yaml's profiles nor its !override,
// hence a service of its own.
const POSTGRES_FOR_SQLSERVER = YAML.stringify({
  services: {
    sqlserver: { deploy: { replicas: 0 } },
    postgres: {
      image: 'postgres:18',
      environment: { POSTGRES_PASSWORD_FILE: '/run/secrets/mssql_sa_password', POSTGRES_DB: 'products' },
      secrets: ['mssql_sa_password'],
      healthcheck: { test: ['CMD', 'pg_isready', '-U', 'postgres', '-d', 'products'], interval: '5s', timeout: '3s', retries: 12 },
      // As sqlserver's in compose.swarm.yaml: a virtual IP needs IPVS, which this kernel lacks.
      deploy: { endpoint_mode: 'dnsrr' },
    },
    migrator: { environment: { Database__Provider: 'Postgres', ConnectionStrings__Postgres: 'Host=postgres;Username=postgres;Database=products' } },
    app: { environment: { Database__Provider: 'Postgres', ConnectionStrings__Postgres: 'Host=postgres;Username=products_app;Database=products' } },
  },
});

// `docker stack config|deploy -c compose.yaml -c compose.swarm.yaml`, run in the sample's folder;
// `extra`: one more file on top, from standard input.
function stack(sample, verb, name, { env = {}, extra = '', timeout = 240_000 } = {}) {
  const args = ['-c', 'compose.yaml', '-c', 'compose.swarm.yaml', ...(extra ? ['-c', '-'] : [])];
  // Detached: the tests wait for what answers (a one-shot migrator never "converges").
  const cmd = verb === 'config' ? ['stack', 'config', ...args] : ['stack', 'deploy', '--detach=true', ...args, name];
  const res = docker(cmd, { cwd: path.join(REPO_ROOT, sample), input: extra || undefined, env, timeout });
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
      stack('node-replicas', 'deploy', 'lab-nr', { env: { HTTP_PORT: String(port), REPLICAS: '4' } });
      const running = () => docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=lab-nr_app', '--filter', 'health=healthy']).stdout.trim().split('\n').filter(Boolean).length;
      await waitFor(() => running() === 4, { what: '4 healthy app tasks', timeoutMs: 90_000 });
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
      assert.equal(now.length, 4);
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

  test(`dotnet-api: deployed with PostgreSQL 18 beside sqlserver (scaled to 0); products through nginx ${STAND_INS}`, async () => {
    const port = await freePort();
    try {
      stack('dotnet-api', 'deploy', 'lab-dn', { env: { HTTP_PORT: String(port), REPLICAS: '1', CPUS: '1' }, extra: POSTGRES_FOR_SQLSERVER });
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/products`)).status === 200,
        { what: 'GET /products through nginx', timeoutMs: 120_000 }).catch((err) => { throw new Error(`${err.message}; migrator: ${lastTaskError('lab-dn_migrator')}; app: ${lastTaskError('lab-dn_app')}`); });
    } finally {
      await removeStack('lab-dn');
    }
  });
});
