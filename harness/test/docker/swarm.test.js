// Every sample's stack on a single-node Swarm (ports published in host mode: no routing mesh
// without IPVS), deployed from compose.yaml (less depends_on, harness/docker/swarm-base.js) and
// compose.swarm.yaml; a start-first rolling update under load with no failed GET.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, freePort, waitFor, docker, dockerOk, Project, secretsReady, STAND_INS } from './helpers.js';
import { startLoad, describeStats } from './load.js';
import YAML from 'yaml';
import { REPO_ROOT } from '../../lib/repo-root.js';

const { skip, failed } = await engine();
const SWARM_BASE = path.join(REPO_ROOT, 'harness', 'docker', 'swarm-base.js');

// dotnet-api's stack with PostgreSQL 18 in its `sqlserver` service: no SQL Server image can be built
// here, and Swarm's loader takes neither compose.postgres.yaml's profiles and !override nor a
// replaced healthcheck (it appends the lists), so the test edits its copy of compose.yaml.
function postgresForSqlServer(text) {
  const doc = YAML.parse(text);
  const { sqlserver, migrator, app } = doc.services;
  Object.assign(sqlserver, {
    image: 'postgres:18',
    command: ['postgres'],
    environment: { POSTGRES_PASSWORD_FILE: '/run/secrets/mssql_sa_password', POSTGRES_DB: 'products' },
    volumes: [],
    healthcheck: { ...sqlserver.healthcheck, test: ['CMD', 'pg_isready', '-U', 'postgres', '-d', 'products'] },
  });
  Object.assign(migrator.environment, { Database__Provider: 'Postgres', ConnectionStrings__Postgres: 'Host=sqlserver;Username=postgres;Database=products' });
  Object.assign(app.environment, { Database__Provider: 'Postgres', ConnectionStrings__Postgres: 'Host=sqlserver;Username=products_app;Database=products' });
  return YAML.stringify(doc);
}

function stack(sample, verb, name, { env = {}, edit = (text) => text, timeout = 240_000 } = {}) {
  const base = spawnSync(process.execPath, [SWARM_BASE, path.join(REPO_ROOT, sample)], { encoding: 'utf8' });
  assert.equal(base.status, 0, base.stderr);
  const input = edit(base.stdout);
  const args = ['-c', '-', '-c', 'compose.swarm.yaml'];
  // Detached: the tests wait for what answers (a one-shot migrator never "converges").
  const cmd = verb === 'config' ? ['stack', 'config', ...args] : ['stack', 'deploy', '--detach=true', ...args, name];
  const res = docker(cmd, { cwd: path.join(REPO_ROOT, sample), input, env, timeout });
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
    for (const sample of ['node-replicas', 'node-cluster', 'dotnet-api']) {
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
    for (const sample of ['node-replicas', 'node-cluster', 'dotnet-api']) {
      const merged = stack(sample, 'config');
      assert.match(merged, /mode: host/, `${sample}: nginx published in host mode`);
      assert.doesNotMatch(merged, /depends_on/, `${sample}: no depends_on left for Swarm`);
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

  test(`dotnet-api: deployed with PostgreSQL 18 in the sqlserver service; products through nginx ${STAND_INS}`, async () => {
    const port = await freePort();
    try {
      stack('dotnet-api', 'deploy', 'lab-dn', { env: { HTTP_PORT: String(port), REPLICAS: '1', CPUS: '1' }, edit: postgresForSqlServer });
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/products`)).status === 200,
        { what: 'GET /products through nginx', timeoutMs: 120_000 }).catch((err) => { throw new Error(`${err.message}; migrator: ${lastTaskError('lab-dn_migrator')}; app: ${lastTaskError('lab-dn_app')}`); });
    } finally {
      await removeStack('lab-dn');
    }
  });
});
