// The slow one (about 2 minutes): a three-node Swarm on this machine. Three privileged containers
// each run a Docker daemon (stand-in image from Debian sid's docker.io) on a bridge network made for
// them; the images are copied in with docker save / docker load; one manager, two workers.
// node-replicas' stack runs on them, node 2 is killed under load, and the service keeps answering
// once its tasks are rescheduled; failed requests are counted and printed.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, freePort, waitFor, docker, dockerOk, Project, STAND_INS } from './helpers.js';
import { startLoad, describeStats } from './load.js';
import { buildStandIns } from '../../test-engine/stand-ins.js';
import { DOCKER_HOST } from '../../test-engine/daemon.js';
import { REPO_ROOT } from '../../lib/repo-root.js';

const { skip, failed } = await engine();
const NET = 'lab-swarm-nodes';
const NODES = ['lab-swarm-1', 'lab-swarm-2', 'lab-swarm-3'];
const IMAGES = ['scaling-lab/node-replicas:local', 'nginx:1.30.6-alpine'];

const inNode = (node, args, opts = {}) => docker(['exec', ...(opts.input ? ['-i'] : []), ...(opts.workdir ? ['-w', opts.workdir] : []), node, 'docker', ...args], opts);
const inNodeOk = (node, args, opts = {}) => {
  const res = inNode(node, args, opts);
  if (res.status !== 0) throw new Error(`${node}: docker ${args.join(' ')}: ${(res.stderr || res.stdout).trim().split('\n').slice(-2).join(' | ')}`);
  return res.stdout.trim();
};

function removeNodes() {
  docker(['rm', '-fv', ...NODES], { timeout: 120_000 });
  docker(['network', 'rm', NET]);
}

describe(`a three-node Swarm, a node killed under load (the slow one: about 2 min) ${STAND_INS}`, { skip }, () => {
  let port;

  before(async () => {
    if (failed) throw new Error(failed);
    buildStandIns(['dind']);
    new Project({ sample: 'node-replicas', name: 'lab-build-node-replicas' }).run(['build', '--quiet'], { timeout: 600_000 });
    removeNodes();
    port = await freePort();
    dockerOk(['network', 'create', '--driver', 'bridge', NET]);
    for (const [i, node] of NODES.entries()) {
      // Node 1 (the manager, where nginx runs) publishes nginx's port to 127.0.0.1 only.
      dockerOk(['run', '-d', '--privileged', '--name', node, '--hostname', `node${i + 1}`, '--network', NET,
        ...(i === 0 ? ['-p', `127.0.0.1:${port}:8080`] : []), 'scaling-lab/swarm-node:local']);
    }
    for (const node of NODES) await waitFor(() => inNode(node, ['version']).status === 0, { what: `${node}'s dockerd`, timeoutMs: 60_000 });
    // The images, from this daemon to each node's (no registry to pull from).
    const saved = spawnSync('docker', ['save', ...IMAGES], { env: { ...process.env, DOCKER_HOST }, maxBuffer: 2 ** 31 });
    assert.equal(saved.status, 0, String(saved.stderr));
    for (const node of NODES) inNodeOk(node, ['load', '-q'], { input: saved.stdout, timeout: 300_000 });
    const managerIp = dockerOk(['inspect', '-f', `{{(index .NetworkSettings.Networks "${NET}").IPAddress}}`, NODES[0]]).trim();
    inNodeOk(NODES[0], ['swarm', 'init', '--advertise-addr', managerIp]);
    const token = inNodeOk(NODES[0], ['swarm', 'join-token', '-q', 'worker']);
    for (const node of NODES.slice(1)) inNodeOk(node, ['swarm', 'join', '--token', token, `${managerIp}:2377`]);
    // The sample's folder on the manager: nginx's config is bind-mounted from it.
    dockerOk(['exec', NODES[0], 'mkdir', '-p', '/stack/node-replicas']);
    for (const f of ['nginx', 'compose.yaml', 'compose.swarm.yaml']) dockerOk(['cp', path.join(REPO_ROOT, 'node-replicas', f), `${NODES[0]}:/stack/node-replicas/`]);
  });

  after(() => removeNodes());

  test(`node 2 killed under load: its tasks move, the service keeps answering ${STAND_INS}`, async () => {
    // nginx listens on 8080 inside node 1 (published there in host mode), which maps to 127.0.0.1:port.
    inNodeOk(NODES[0], ['stack', 'deploy', '--detach=true', '-c', 'compose.yaml', '-c', 'compose.swarm.yaml', 'nr'],
      { workdir: '/stack/node-replicas', env: {}, timeout: 120_000 });
    const started = Date.now();
    const tasksOn = () => inNodeOk(NODES[0], ['service', 'ps', '--filter', 'desired-state=running', '--format', '{{.Node}} {{.CurrentState}}', 'nr_app'])
      .split('\n').filter((l) => / Running /.test(l)).map((l) => l.split(' ')[0]);
    await waitFor(() => tasksOn().length === 4 && new Set(tasksOn()).size === 3, { what: '4 app tasks running on 3 nodes', timeoutMs: 120_000 });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/`)).status === 200, { what: 'GET / through nginx', timeoutMs: 60_000 });
    const load = startLoad(`http://127.0.0.1:${port}/`, { concurrency: 8, maxSeconds: 150 });
    await sleep(2000);
    dockerOk(['kill', NODES[1]]);
    const killed = Date.now();
    await waitFor(() => {
      const on = tasksOn();
      return on.length === 4 && !on.includes('node2');
    }, { what: 'node 2 marked Down and its tasks running elsewhere', timeoutMs: 120_000, everyMs: 1000 });
    const moved = Date.now();
    await sleep(5000);
    const stats = await load.stop();
    console.log(`  three-node Swarm ${STAND_INS}: up in ${Math.round((killed - started) / 1000)} s; node 2 killed, its tasks on nodes 1 and 3 after ${Math.round((moved - killed) / 1000)} s; under load ${describeStats(stats)}`);
    const after = await Promise.all(Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/`).then((r) => r.status)));
    assert.deepEqual(after, Array(20).fill(200), 'the service answers after the move');
    assert.ok(stats.ok > 0);
  });
});
