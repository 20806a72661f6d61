// The slow one (about 1.5 minutes): a three-node Swarm on this machine. Three privileged containers
// each run a Docker daemon (stand-in image from Debian sid's docker.io) on a bridge network made for
// them; one manager, two workers. The images reach them as one archive: `docker save -o` into a
// temporary folder the nodes mount read-only, then `docker load -i` in the three nodes at once.
// dotnet-api's stack runs on them with PostgreSQL (compose.swarm.postgres.yaml: the database, the
// migrator and nginx on the manager, one API replica per node), node 2 is killed under a GET + POST
// load, and the service keeps answering once its task is gone. The test fails when a GET fails or
// an acknowledged write is missing from PostgreSQL (or stored twice); every count is printed.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, freePort, waitFor, docker, dockerOk, secretsReady, STAND_INS, takeTurns } from './helpers.js';
import { startMixedLoad, describeMixed } from './load.js';
import { writesOf, bodyTemplate, account } from './writes.js';
import { buildStandIns } from '../../docker-engine/build-stand-ins.js';
import { DOCKER_HOST } from '../../docker-engine/daemon.js';
import { REPO_ROOT } from '../../lib/repo-root.js';

const { skip, failed } = await engine();
const NET = 'lab-swarm-nodes';
const NODES = ['lab-swarm-1', 'lab-swarm-2', 'lab-swarm-3'];
const APP_IMAGE = 'scaling-lab/dotnet-api:local';
// Every node runs an API replica; the manager also PostgreSQL, the migrator and nginx. One archive
// of them all for every node: the stand-ins share their base layer, so PostgreSQL and nginx add
// little to the API's image, and the workers' copies of them go unused.
const IMAGES = [APP_IMAGE, 'postgres:18.6', 'nginxinc/nginx-unprivileged:1.30.7-alpine'];
const ARCHIVE = 'images.tar';
const FILES = ['compose.yaml', 'compose.swarm.yaml', 'compose.swarm.postgres.yaml'];
const SAMPLE_DIR = path.join(REPO_ROOT, 'dotnet-api');

const inNode = (node, args, opts = {}) =>
  docker(
    [
      'exec',
      ...(opts.input ? ['-i'] : []),
      ...(opts.workdir ? ['-w', opts.workdir] : []),
      ...(opts.env ? Object.entries(opts.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]) : []),
      node,
      'docker',
      ...args,
    ],
    opts,
  );
const nodeFailed = (node, args, output) =>
  new Error(`${node}: docker ${args.join(' ')}: ${output.trim().split('\n').slice(-2).join(' | ')}`);
const inNodeOk = (node, args, opts = {}) => {
  const res = inNode(node, args, opts);
  if (res.status !== 0) throw nodeFailed(node, args, res.stderr || res.stdout);
  return res.stdout.trim();
};
// inNodeOk without blocking, for the three nodes at once.
const inNodeAsync = (node, args, { timeout = 120_000 } = {}) =>
  promisify(execFile)('docker', ['exec', node, 'docker', ...args], { env: { ...process.env, DOCKER_HOST }, timeout })
    .then(({ stdout }) => stdout.trim())
    .catch((err) => {
      throw nodeFailed(node, args, err.stderr || err.stdout || err.message);
    });

function removeNodes() {
  docker(['rm', '-fv', ...NODES], { timeout: 120_000 });
  docker(['network', 'rm', NET]);
}

// The images, from this daemon to the nodes (no registry to pull from): saved once into `dir`, which
// every node mounts at /images, and loaded by the three nodes' daemons at once. Throws naming each
// node whose load failed, once all three have ended.
async function loadImages(dir) {
  dockerOk(['save', '-o', path.join(dir, ARCHIVE), ...IMAGES], { timeout: 300_000 });
  const load = ['load', '-q', '-i', `/images/${ARCHIVE}`];
  const loads = NODES.map((node) => inNodeAsync(node, load, { timeout: 300_000 }));
  const failures = (await Promise.allSettled(loads)).filter((r) => r.status === 'rejected');
  if (failures.length) throw new Error(failures.map((r) => r.reason.message).join('; '));
}

// The three nodes: privileged containers each running a Docker daemon, on a bridge network of their
// own, with the images' folder mounted read-only; node 1 (the manager, where nginx runs) publishes
// nginx's port to 127.0.0.1 only.
async function startNodes(port, imagesDir) {
  dockerOk(['network', 'create', '--driver', 'bridge', NET]);
  for (const [i, node] of NODES.entries()) {
    const publish = i === 0 ? ['-p', `127.0.0.1:${port}:8080`] : [];
    const name = ['--name', node, '--hostname', `node${i + 1}`, '--network', NET];
    const images = ['-v', `${imagesDir}:/images:ro`];
    dockerOk(['run', '-d', '--privileged', ...name, ...publish, ...images, 'scaling-lab/swarm-node:local']);
  }
  for (const node of NODES)
    await waitFor(() => inNode(node, ['version']).status === 0, { what: `${node}'s dockerd`, timeoutMs: 60_000 });
}

function formSwarm() {
  const ipOf = `{{(index .NetworkSettings.Networks "${NET}").IPAddress}}`;
  const managerIp = dockerOk(['inspect', '-f', ipOf, NODES[0]]).trim();
  inNodeOk(NODES[0], ['swarm', 'init', '--advertise-addr', managerIp]);
  const token = inNodeOk(NODES[0], ['swarm', 'join-token', '-q', 'worker']);
  for (const node of NODES.slice(1)) inNodeOk(node, ['swarm', 'join', '--token', token, `${managerIp}:2377`]);
}

// The sample's folder on the manager: nginx's config and the seed are bind-mounted from it, the
// secrets are read from it by `stack deploy`.
function copySample() {
  // What the README's Swarm row lists: the folder holds its own seed (k8s/base/seed), the
  // migrator's bind mount on the manager.
  dockerOk(['exec', NODES[0], 'mkdir', '-p', '/stack/dotnet-api/k8s/base']);
  for (const f of ['nginx', 'secrets', ...FILES])
    dockerOk(['cp', path.join(SAMPLE_DIR, f), `${NODES[0]}:/stack/dotnet-api/`]);
  dockerOk(['cp', path.join(SAMPLE_DIR, 'k8s', 'base', 'seed'), `${NODES[0]}:/stack/dotnet-api/k8s/base/`]);
}

async function setUp(imagesDir) {
  if (failed) throw new Error(failed);
  buildStandIns(['dind']);
  // The API's image is the Compose build's (test-engine/stand-ins.js).
  secretsReady('dotnet-api');
  removeNodes();
  const port = await freePort();
  await startNodes(port, imagesDir);
  await loadImages(imagesDir);
  formSwarm();
  copySample();
  return port;
}

// The nodes each running API task is on.
const tasksOn = () =>
  inNodeOk(NODES[0], [
    'service',
    'ps',
    '--filter',
    'desired-state=running',
    '--format',
    '{{.Node}} {{.CurrentState}}',
    'dn_app',
  ])
    .split('\n')
    .filter((l) => / Running /.test(l))
    .map((l) => l.split(' ')[0]);

// nginx listens on 8080 inside node 1 (published there in host mode), which maps to 127.0.0.1:port.
async function deployStack(base) {
  inNodeOk(NODES[0], ['stack', 'deploy', '--detach=true', ...FILES.flatMap((f) => ['-c', f]), 'dn'], {
    workdir: '/stack/dotnet-api',
    env: { HTTP_PORT: '8080', REPLICAS: '3', CPUS: '0.5' },
    timeout: 120_000,
  });
  await waitFor(() => new Set(tasksOn()).size === 3, {
    what: 'an API task running on each of the 3 nodes',
    timeoutMs: 180_000,
    everyMs: 1000,
  }).catch((err) => {
    // What Swarm says of the tasks: a state and an error per task, for the failure to name.
    const format = '{{.Name}} {{.Node}} {{.CurrentState}} {{.Error}}';
    const ps = inNode(NODES[0], ['service', 'ps', '--no-trunc', '--format', format, 'dn_app', 'dn_migrator']);
    throw new Error(`${err.message}; tasks: ${(ps.stdout || ps.stderr).trim().split('\n').slice(0, 12).join(' | ')}`);
  });
  // The seed through nginx: read the body, not only the status.
  const seeded = await waitFor(
    async () => {
      const res = await fetch(`${base}/products?pageSize=5`);
      if (res.status !== 200) return undefined;
      const body = /** @type {any} */ (await res.json());
      return body.items?.length === 5 ? body.items : undefined;
    },
    { what: 'GET /products through nginx with the seed in its body', timeoutMs: 120_000, everyMs: 1000 },
  );
  assert.equal(seeded[0].sku, 'SKU-0001');
}

// The requestIds PostgreSQL (on node 1) holds for `prefix`, read with the sample's own x-bench.writes.list.
function storedIds(writes, prefix) {
  const filter = ['--filter', 'label=com.docker.swarm.service.name=dn_postgres'];
  const pg = inNodeOk(NODES[0], ['ps', '-q', ...filter]).split('\n')[0];
  const argv = writes.list.map((a) =>
    a.replaceAll('$$', '$').replaceAll('{prefix}', prefix).replaceAll('{port}', '5432'),
  );
  const listed = inNode(NODES[0], ['exec', pg, ...argv]);
  assert.equal(listed.status, 0, `the store (PostgreSQL on node 1) could not be read: ${listed.stderr.trim()}`);
  return listed.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

async function nodeKilledUnderLoad(port) {
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  await deployStack(base);
  const writes = writesOf(SAMPLE_DIR);
  const prefix = `nodes-${Date.now().toString(36)}`;
  const post = { path: writes.post, body: bodyTemplate(writes) };
  const load = startMixedLoad(base, { get: '/products?pageSize=1', post, prefix, concurrency: 4, pauseMs: 50 });
  await load.answered();
  dockerOk(['kill', NODES[1]]);
  const killed = Date.now();
  await waitFor(
    () => {
      const on = tasksOn();
      return on.length >= 2 && !on.includes('node2');
    },
    { what: 'node 2 marked Down and no API task left on it', timeoutMs: 120_000, everyMs: 1000 },
  );
  const gone = Date.now();
  // Past nginx's re-resolution of the name, and any request that was waiting on node 2.
  await sleep(15_000);
  const stats = await load.stop();
  const w = account(stats, storedIds(writes, prefix));
  const s = (ms) => Math.round(ms / 1000);
  console.log(
    `  three-node Swarm ${STAND_INS}: up in ${s(killed - started)} s; node 2 killed, no API task on it after ` +
      `${s(gone - killed)} s; under load ${describeMixed(stats)}; writes ${JSON.stringify(w)}`,
  );
  assert.ok(stats.get.ok > 100 && stats.post.ok > 100, `the load ran: ${describeMixed(stats)}`);
  assert.equal(stats.get.failed, 0, `no GET failed: ${describeMixed(stats)}`);
  assert.equal(w.lost, 0, `no acknowledged write lost: ${JSON.stringify(w)}`);
  assert.equal(w.duplicated, 0, `no write stored twice: ${JSON.stringify(w)}`);
  assert.equal(w.unknown, 0, `nothing stored that was not sent: ${JSON.stringify(w)}`);
  const after = await Promise.all(
    Array.from({ length: 20 }, () => fetch(`${base}/products?pageSize=1`).then((r) => r.status)),
  );
  assert.deepEqual(after, Array(20).fill(200), 'the service answers after the loss of node 2');
}

describe(
  `a three-node Swarm, a node killed under GET + POST load (the slow one: about 1.5 min) ${STAND_INS}`,
  { skip },
  () => {
    let port = 0;
    let imagesDir = '';
    let release = () => {};
    before(async () => {
      release = await takeTurns('swarm');
      imagesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-swarm-images-'));
      port = await setUp(imagesDir);
    });
    after(() => {
      removeNodes();
      if (imagesDir) fs.rmSync(imagesDir, { recursive: true, force: true });
      release();
    });
    test(`node 2 killed under load: no GET fails, no acknowledged write lost or doubled ${STAND_INS}`, () =>
      nodeKilledUnderLoad(port));
  },
);
