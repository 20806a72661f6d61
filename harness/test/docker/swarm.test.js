// Every sample's stack on a single-node Swarm (ports published in host mode: no routing mesh
// without IPVS), deployed as the READMEs say: `docker stack deploy -c compose.yaml -c
// compose.swarm.yaml`; a start-first rolling update under load with no failed GET.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, freePort, waitFor, docker, dockerOk, secretsReady, STAND_INS, takeTurns } from './helpers.js';
import { startLoad, describeStats } from './load.js';
import YAML from 'yaml';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { hardeningOf } from './hardened.js';
import { swarmState } from '../../test-engine/stand-ins.js';

const { skip, failed } = await engine();
const SAMPLES = ['node-replicas', 'node-cluster', 'dotnet-api'];

// `docker stack config|deploy -c compose.yaml -c compose.swarm.yaml`, run in the sample's folder;
// `extra`: more files of the sample's on top.
function stack(sample, verb, name, { env = {}, extra = [], timeout = 240_000 } = {}) {
  const args = ['compose.yaml', 'compose.swarm.yaml', ...extra].flatMap((f) => ['-c', f]);
  // Detached: the tests wait for what answers (a one-shot migrator never "converges").
  const cmd = verb === 'config' ? ['stack', 'config', ...args] : ['stack', 'deploy', '--detach=true', ...args, name];
  const res = docker(cmd, { cwd: path.join(REPO_ROOT, sample), env, timeout });
  if (res.status !== 0)
    throw new Error(
      `docker stack ${verb} ${sample}: ${(res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ')}`,
    );
  return res.stdout;
}

// A service's newest task state and error, and its last log line: what a failed step names.
function lastTaskError(service) {
  const ps = docker(['service', 'ps', '--no-trunc', '--format', '{{.CurrentState}} {{.Error}}', service]);
  const logs = docker(['service', 'logs', '--raw', '--tail', '1', service], { timeout: 15_000 });
  const last = (logs.stdout + logs.stderr).trim().split('\n').at(-1) || '(none)';
  return `${ps.stdout.trim().split('\n')[0] ?? ''}; last log line: ${last}`;
}

async function removeStack(name) {
  docker(['stack', 'rm', name]);
  await waitFor(
    () => docker(['ps', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]).stdout.trim() === '',
    { what: `stack ${name} removed`, timeoutMs: 60_000 },
  );
  // The stack's networks go a moment after its containers.
  const networks = ['network', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${name}`];
  await waitFor(() => docker(networks).stdout.trim() === '', {
    what: `stack ${name}'s networks removed`,
    timeoutMs: 30_000,
  });
}

// The containers of a Swarm service (`healthy`: only those whose health check passes).
const tasksOf = (service, { healthy = false } = {}) =>
  docker([
    'ps',
    '-q',
    '--filter',
    `label=com.docker.swarm.service.name=${service}`,
    ...(healthy ? ['--filter', 'health=healthy'] : []),
  ])
    .stdout.trim()
    .split('\n')
    .filter(Boolean);

async function setUp() {
  if (failed) throw new Error(failed);
  // Swarm ignores build:, so the images are the Compose build's (test-engine/stand-ins.js).
  for (const sample of SAMPLES) secretsReady(sample);
  // A Swarm of the suite's daemon, left by it at the end (test-engine/stand-ins.js), not here: a leave
  // breaks the other files' projects' name resolution.
  if (swarmState() !== 'active') dockerOk(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
}

// Swarm drops a service's tmpfs: list, so compose.swarm.yaml mounts nginx's writable folders itself.
function configMerges() {
  for (const sample of SAMPLES) {
    const merged = YAML.parse(stack(sample, 'config'));
    const nginx = merged.services.nginx;
    assert.equal(nginx.ports[0].mode, 'host', `${sample}: nginx published in host mode`);
    assert.equal(nginx.deploy.restart_policy.condition, 'any', `${sample}: compose.swarm.yaml merged in`);
    const tmpfs = nginx.volumes.filter((v) => v.type === 'tmpfs').map((v) => v.target);
    assert.deepEqual(
      tmpfs.sort(),
      ['/etc/nginx/conf.d', '/tmp', '/var/cache/nginx'],
      `${sample}: nginx's tmpfs mounts`,
    );
  }
}

async function rollingUpdate() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  try {
    stack('node-replicas', 'deploy', 'lab-nr', { env: { HTTP_PORT: String(port), REPLICAS: '2' } });
    await waitFor(() => tasksOf('lab-nr_app', { healthy: true }).length === 2, {
      what: '2 healthy app tasks',
      timeoutMs: 90_000,
    });
    await waitFor(async () => (await fetch(`${base}/`)).status === 200, {
      what: 'GET / through nginx',
      timeoutMs: 60_000,
    }).catch((err) => {
      throw new Error(`${err.message}; nginx: ${lastTaskError('lab-nr_nginx')}`);
    });
    const load = startLoad(`${base}/`, { concurrency: 8, maxSeconds: 240, instances: true });
    const before = new Set(tasksOf('lab-nr_app'));
    await load.answered();
    const update = docker(['service', 'update', '--force', '--detach=false', 'lab-nr_app'], { timeout: 240_000 });
    await sleep(2000);
    const stats = await load.stop();
    console.log(`  Swarm rolling update under load ${STAND_INS}: ${describeStats(stats)}`);
    const why = `${update.stderr.trim().split('\n').at(-1)} (${lastTaskError('lab-nr_app')})`;
    assert.equal(update.status, 0, `service update: ${why}`);
    const now = tasksOf('lab-nr_app');
    assert.equal(now.length, 2);
    assert.ok(
      now.every((id) => !before.has(id)),
      'every task was replaced',
    );
    assert.equal(stats.failed, 0, describeStats(stats));
  } finally {
    await removeStack('lab-nr');
  }
}

async function clusterWithoutMongo() {
  const port = await freePort();
  try {
    stack('node-cluster', 'deploy', 'lab-nc', { env: { HTTP_PORT: String(port), REPLICAS: '1' } });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`)).status === 200, {
      what: 'GET /health through nginx',
      timeoutMs: 90_000,
    }).catch((err) => {
      throw new Error(`${err.message}; app: ${lastTaskError('lab-nc_app')}; nginx: ${lastTaskError('lab-nc_nginx')}`);
    });
    assert.equal((await fetch(`http://127.0.0.1:${port}/ready`)).status, 503);
  } finally {
    await removeStack('lab-nc');
  }
}

// What Swarm keeps of compose.yaml's hardening (it drops security_opt), and the secrets' modes.
function assertTasksHardened() {
  for (const service of ['app', 'nginx', 'postgres']) {
    const h = hardeningOf(tasksOf(`lab-dn_${service}`)[0]);
    assert.equal(h.readOnly, true, `${service}: read-only root`);
    assert.ok(h.capDrop.includes('ALL'), `${service}: cap_drop ALL`);
    assert.ok(h.nonRoot, `${service}: every process non-root (${h.uids})`);
  }
  const app = tasksOf('lab-dn_app')[0];
  assert.equal(
    dockerOk(['exec', app, 'stat', '-c', '%u %a', '/run/secrets/db_app_password']).trim(),
    '1654 400',
    "the app's secret: its user's, mode 0400",
  );
}

async function dotnetWithPostgres() {
  const port = await freePort();
  try {
    stack('dotnet-api', 'deploy', 'lab-dn', {
      env: { HTTP_PORT: String(port), REPLICAS: '1', CPUS: '1' },
      extra: ['compose.swarm.postgres.yaml'],
    });
    // The body, not only the status: the seed is there, read through nginx by the app's login.
    const items = await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/products?pageSize=3`);
        return res.status === 200 ? /** @type {any} */ (await res.json()).items : undefined;
      },
      { what: 'GET /products through nginx', timeoutMs: 120_000 },
    ).catch((err) => {
      const tasks = ['migrator', 'app', 'postgres', 'nginx'].map((t) => `${t}: ${lastTaskError(`lab-dn_${t}`)}`);
      throw new Error(`${err.message}; ${tasks.join('; ')}`);
    });
    assert.deepEqual(
      items.map((i) => i.sku),
      ['SKU-0001', 'SKU-0002', 'SKU-0003'],
    );
    assertTasksHardened();
  } finally {
    await removeStack('lab-dn');
  }
}

describe(`the samples on a single-node Swarm ${STAND_INS}`, { skip }, () => {
  let release = () => {};
  before(async () => {
    release = await takeTurns('swarm');
    await setUp();
  });

  after(() => release());

  test(`docker stack config passes for every sample, nginx's tmpfs mounted ${STAND_INS}`, configMerges);

  test(
    `node-replicas: deployed, then a start-first rolling update under load with no failed GET ${STAND_INS}`,
    rollingUpdate,
  );

  test(
    `node-cluster: deployed; app and nginx answer without MongoDB (no image of it here) ${STAND_INS}`,
    clusterWithoutMongo,
  );

  test(
    `dotnet-api: deployed with compose.swarm.postgres.yaml (sqlserver scaled to 0); the seed through nginx; ` +
      `tasks hardened ${STAND_INS}`,
    dotnetWithPostgres,
  );
});
