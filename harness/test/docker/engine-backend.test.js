// The runner's docker backend (ENGINE=docker) on the real engine, through runner/index.js as make
// and the bench use it: node-replicas up with 2 replicas under a CPU budget and a cpuset, ps, usage
// from each container's cgroup, a crash that its restart policy undoes (on the same loopback port),
// a `docker kill` that stays down, a place that moves the running containers (every bad place
// changing nothing), a rolling reload under a bounded load, scaling, and a down that leaves nothing
// behind; and exec() in dotnet-api's PostgreSQL container (its compose.postgres.yaml),
// where the bench's drills read back what a POST stored.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runnerFor, availableCpus, PlacementError } from '../../runner/index.js';
import { engine, docker, dockerOk, waitFor, runFolder, STAND_INS } from './helpers.js';
import { startLoad, describeStats } from './load.js';
import { metricsReader } from '../../bench/lib/run/app-metrics.js';

const { skip, failed } = await engine();
const runner = runnerFor('docker');
const appRows = async (runDir) => (await runner.ps({ runDir })).filter((r) => r.service === 'app');

describe(`the runner's docker backend: node-replicas ${STAND_INS}`, { skip }, () => {
  const run = runFolder(runner, 'backend');
  const { runDir } = run;
  const cpuset = '0';
  let state;
  const app = () => appRows(runDir);
  const inspect = (name) => JSON.parse(docker(['inspect', name]).stdout)[0];

  before(async () => {
    if (failed) throw new Error(failed);
    const env = { REPLICAS: '2', CPUS: '0.5', HTTP_PORT: '0' };
    // Built by the run, as `make up ENGINE=docker` does (cached): its image then carries the run's
    // project label, which psListsItsOwn needs.
    state = await runner.up({ sample: 'node-replicas', runDir, env, cpuset, budget: 1, priority: true });
  });

  after(() => run.down());

  test(`up: the sample's compose.yaml on Docker, nginx on a loopback port, pinned and under one budget ` +
    `${STAND_INS}`, async () => {
    assert.equal(state.engine, 'docker');
    assert.match(state.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await fetch(`${state.url}/nginx-health`)).status, 200);
    const direct = state.services.app.instances.map((i) => i.url);
    assert.equal(direct.length, 2);
    for (const url of direct) assert.equal((await fetch(`${url}/`)).status, 200, `the app straight at ${url}`);
    const c = inspect(state.services.app.instances[0].id);
    assert.equal(c.HostConfig.CpusetCpus, cpuset);
    assert.equal(c.HostConfig.NanoCpus, 0.5e9, "CPUS=0.5 reached the container as compose's cpus limit");
    assert.equal(c.HostConfig.CgroupParent, `/scaling-lab/${state.runId}`);
    const published = Object.values(c.NetworkSettings.Ports).flat().filter(Boolean);
    assert.ok(published.length > 0);
    for (const port of published) assert.equal(port.HostIp, '127.0.0.1');
    assert.deepEqual(state.cpuLimits.budget, { enforced: true, cpus: 1 });
  });

  test(`each replica's /metrics at its container's address, as the bench reads it ${STAND_INS}`, () =>
    metricsAtAddresses(state.services.app.instances));

  test(`ps: every container, running and healthy; none made from its image outside Compose ${STAND_INS}`, () =>
    psListsItsOwn(runDir, state.services.app.instances[0].id));

  test(`usage: CPU time and memory of each container from its cgroup, growing with the load ${STAND_INS}`, async () => {
    await usageGrows(runDir, state.url);
  });

  test(`place: the containers moved, not restarted; later ones alike; bad input changes nothing ${STAND_INS}`,
    { timeout: 300_000 }, () => placeMoves(runDir, state, inspect));

  test(`kill: a crash of app 1 comes back by its restart policy (on-failure) ${STAND_INS}`, async () => {
    const [one] = await app();
    const killed = await runner.signal({ runDir, service: 'app', index: 1, signal: 'SIGKILL' });
    assert.equal(killed.pid, one.pid);
    const back = await waitFor(async () => {
      const row = (await app()).find((r) => r.index === 1);
      return row.restarts > one.restarts && row.status === 'running (healthy)' && row;
    }, { what: 'app 1 back and healthy', timeoutMs: 60_000 });
    assert.equal(back.url, one.url, 'it publishes the same loopback port again (load sent straight to it finds it)');
  });

  test(`killHeld: docker kill leaves app 2 down; restart brings it back ${STAND_INS}`, async () => {
    await runner.killHeld({ runDir, service: 'app', index: 2 });
    await sleep(3000);
    const two = (await app()).find((r) => r.index === 2);
    assert.notEqual(two.status.startsWith('running'), true, 'still down after 3 s');
    const back = await runner.restart({ runDir, service: 'app', index: 2 });
    assert.equal(back.health, 'healthy');
  });

  test(`reload: start-first behind nginx, every replica replaced, no failed GET under a bounded load ` +
    `${STAND_INS}`, async () => {
    await reloadUnderLoad(runDir, state.url);
  });

  test(`scale: 2 -> 3 -> 1 containers, nginx sends to the new one once it re-resolves ${STAND_INS}`, async () => {
    await scaleUpAndDown(runDir, state.url);
  });
});

// ps() lists the run's containers, and not a container of an image the run built that was made
// outside Compose (a Swarm task of it, a `docker run`), though it inherits the run's project label.
async function psListsItsOwn(runDir, appId) {
  const mine = JSON.parse(docker(['inspect', appId]).stdout)[0];
  const outsider = `lab-outsider-${process.pid}`;
  // By the image's id, not its tag: a file beside this one may tag a build of its own meanwhile.
  dockerOk(['create', '--name', outsider, mine.Image]);
  try {
    const { Labels } = JSON.parse(docker(['inspect', outsider]).stdout)[0].Config;
    const project = 'com.docker.compose.project';
    assert.equal(Labels[project], mine.Config.Labels[project], "the image handed the run's project label on");
    const rows = await runner.ps({ runDir });
    assert.deepEqual(rows.map((r) => `${r.service}-${r.index}`), ['app-1', 'app-2', 'nginx-1']);
    for (const r of rows) assert.equal(r.status, 'running (healthy)', `${r.name}`);
  } finally {
    docker(['rm', '-f', outsider]);
  }
}

// usage() from each container's cgroup: CPU time that grows with load, memory and throttling counters.
async function usageGrows(runDir, url) {
  const before = await runner.usage({ runDir });
  assert.match(before.source, /cgroup v1 cpuacct\.usage of each container/);
  assert.equal(before.instances.length, 3);
  for (let i = 0; i < 300; i++) assert.equal((await fetch(`${url}/pi?samples=20000`)).status, 200);
  const afterLoad = await runner.usage({ runDir });
  const appNs = (u) => u.instances.filter((i) => i.service === 'app').reduce((s, i) => s + i.cpuNs, 0);
  assert.ok(appNs(afterLoad) > appNs(before), `the app's CPU time grew (${appNs(before)} -> ${appNs(afterLoad)} ns)`);
  assert.ok(afterLoad.cpuNs >= appNs(afterLoad), 'the run\'s group holds at least its app containers\' time');
  for (const i of afterLoad.instances) {
    assert.ok(i.memory.pssMiB > 1 && i.memory.processes >= 1, `${i.name}: ${JSON.stringify(i.memory)}`);
    assert.ok(i.throttling && Number.isFinite(i.throttling.periods), `${i.name}: throttling counters`);
  }
}

// The run's group on this host (the cgroup_parent): its quota in CPUs and its cpuset, cgroup v1 or v2.
function parentGroup(runId) {
  const read = (...parts) => fs.readFileSync(path.join('/sys/fs/cgroup', ...parts), 'utf8').trim();
  if (fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    const [quota, period] = read('scaling-lab', runId, 'cpu.max').split(' ');
    const budget = quota === 'max' ? null : Number(quota) / Number(period);
    return { budget, cpuset: read('scaling-lab', runId, 'cpuset.cpus') };
  }
  const quota = Number(read('cpu', 'scaling-lab', runId, 'cpu.cfs_quota_us'));
  return { budget: quota < 0 ? null : quota / 1e5, cpuset: read('cpuset', 'scaling-lab', runId, 'cpuset.cpus') };
}

// `place` on Docker: from cpuset 0, budget 1 and 0.5 CPU per app container (up) to the last CPU,
// budget 0.4 and 0.25 (a budget below the quota the containers had: their quotas must shrink
// first), then to budget 1 and 0.75 (the budget must grow first); the same containers serve.
async function placeMoves(runDir, state, inspect) {
  const other = String(availableCpus().at(-1));
  const placedNow = async () => {
    const hosts = (await runner.ps({ runDir })).map((r) => inspect(r.id).HostConfig);
    const group = parentGroup(state.runId);
    return { group, nano: hosts.map((h) => h.NanoCpus), sets: hosts.map((h) => h.CpusetCpus) };
  };
  const ids = (await runner.ps({ runDir })).map((r) => r.id);
  const before = await runner.usage({ runDir });
  const down = await runner.place({ runDir, cpuset: other, budget: 0.4, cpus: { app: 0.25 } });
  assert.deepEqual(down, { cpuset: other, budget: 0.4, cpus: { app: 0.25, nginx: null } });
  const sets = [other, other, other];
  assert.deepEqual(await placedNow(), { group: { budget: 0.4, cpuset: other }, nano: [0.25e9, 0.25e9, 0], sets });
  const up = await runner.place({ runDir, budget: 1, cpus: { app: 0.75 } });
  assert.deepEqual([up.cpuset, up.budget, up.cpus.app], [other, 1, 0.75]);
  const placed = await placedNow();
  assert.deepEqual(placed, { group: { budget: 1, cpuset: other }, nano: [0.75e9, 0.75e9, 0], sets });
  const rows = await runner.ps({ runDir });
  assert.deepEqual(rows.map((r) => r.id), ids, 'the same containers');
  for (const r of rows) assert.equal(r.status, 'running (healthy)', r.name);
  for (let i = 0; i < 100; i++) assert.equal((await fetch(`${state.url}/pi?samples=20000`)).status, 200);
  const after = await runner.usage({ runDir });
  assert.ok(after.cpuNs > before.cpuNs, 'usage() counts on across the place');
  const isolation = (await runner.readState(runDir)).isolation;
  assert.deepEqual(isolation, { ...state.isolation, cpuset: other, cpus: 1, budget: 1 });
  await badPlaces(runDir, placedNow, placed);
  // A scale's new container gets the placement too (from the override), and goes again.
  await runner.scale({ runDir, service: 'app', replicas: 3 });
  const third = inspect((await appRows(runDir)).find((r) => r.index === 3).id).HostConfig;
  assert.deepEqual([third.NanoCpus, third.CpusetCpus], [0.75e9, other]);
  await runner.scale({ runDir, service: 'app', replicas: 2 });
}

// Every bad place: a PlacementError of one line; the containers, the run's group and the record as they were.
async function badPlaces(runDir, placedNow, placed) {
  const record = await runner.readState(runDir);
  /** @type {[Record<string, any>, RegExp][]} */
  const bad = [
    [{ cpuset: '999' }, /^cpuset 999 names CPU 999, which this machine doesn't let us use/],
    [{ budget: 0 }, /^budget 0 is not a positive number of CPUs$/],
    [{ budget: 0.5 }, /^app would have 0\.75 CPU\(s\) per instance, more than the run's budget of 0\.5/],
    [{ cpus: { app: 0 } }, /^cpus of app: 0 must be a number of CPUs from 0\.01 to \d+$/],
    [{ cpus: { nope: 1 } }, /^no service 'nope' in this run \(there are: app, nginx\)$/],
  ];
  for (const [ask, why] of bad) {
    const rejected = (err) => err instanceof PlacementError && why.test(err.message);
    await assert.rejects(runner.place({ runDir, ...ask }), rejected, JSON.stringify(ask));
  }
  assert.deepEqual(await placedNow(), placed, 'the containers and the run\'s group as they were');
  assert.deepEqual(await runner.readState(runDir), record, 'and the record');
}

// `make reload` on Docker under a bounded load: every replica replaced start-first, no GET failed.
async function reloadUnderLoad(runDir, url) {
  const before = new Set((await appRows(runDir)).map((r) => r.id));
  const load = startLoad(`${url}/`, { concurrency: 4, maxSeconds: 240 });
  let r;
  try {
    r = await runner.reload({ runDir, service: 'app' });
  } finally {
    const stats = await load.stop();
    console.log(`  reload under load ${STAND_INS}: ${describeStats(stats)}`);
    assert.equal(stats.failed, 0, describeStats(stats));
    assert.ok(stats.ok > 0);
  }
  assert.equal(r.strategy, 'proxy');
  assert.equal(r.steps.length, 2);
  const now = await appRows(runDir);
  assert.equal(now.length, 2);
  for (const row of now) {
    assert.ok(!before.has(row.id), `${row.name} is a new container`);
    assert.equal(row.status, 'running (healthy)');
  }
}

// `make scale` on Docker: 2 -> 3 (the containers there keep running, nginx reaches the new one once
// it re-resolves the name) -> 1, and the bad input one line each.
async function scaleUpAndDown(runDir, url) {
  // The instances nginx sends to: each answers with its hostname, the container's short id.
  const servedBy = async () => {
    const seen = new Set();
    for (let i = 0; i < 30; i++) {
      const body = /** @type {{ instance: string }} */ (await (await fetch(`${url}/`)).json());
      seen.add(body.instance);
    }
    return [...seen].sort();
  };
  const before = await appRows(runDir);
  const up3 = await runner.scale({ runDir, service: 'app', replicas: 3 });
  assert.deepEqual([up3.from, up3.to, up3.added.length, up3.removed], [2, 3, 1, []]);
  const three = await appRows(runDir);
  assert.equal(three.length, 3);
  for (const row of three) assert.equal(row.status, 'running (healthy)', row.name);
  const kept = three.filter((r) => before.some((b) => b.id === r.id)).map((r) => r.pid).sort();
  assert.deepEqual(kept, before.map((r) => r.pid).sort(), 'the containers before it kept running');
  assert.equal(new Set(three.map((r) => r.url)).size, 3, 'each on a loopback port of its own');
  const all = JSON.stringify(three.map((r) => r.id).sort());
  await waitFor(async () => JSON.stringify(await servedBy()) === all, {
    what: 'nginx sending to all three',
    timeoutMs: 30_000,
  });
  const down1 = await runner.scale({ runDir, service: 'app', replicas: 1 });
  assert.deepEqual([down1.from, down1.to, down1.removed.length], [3, 1, 2]);
  assert.equal((await appRows(runDir)).length, 1);
  await assert.rejects(runner.scale({ runDir, service: 'nginx', replicas: 2 }),
    /^Error: nginx is the proxy: scale the service behind it$/);
  await assert.rejects(runner.scale({ runDir, service: 'app', replicas: 0 }),
    /^Error: REPLICAS=0 must be a whole number from 1 to 64$/);
}

// What the drills run in the database service to read back stored rows: psql in the container, as
// its superuser, `{port}` being PostgreSQL's own port there (5432).
const PSQL = 'PGPASSWORD="$(cat "$POSTGRES_PASSWORD_FILE")" psql -h 127.0.0.1 -p {port} -U postgres -d products -tAq';

describe(`the runner's docker backend: exec in dotnet-api's PostgreSQL ${STAND_INS}`, { skip }, () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-docker-exec-'));
  const psql = (sql) => runner.exec({ runDir, service: 'postgres', argv: ['sh', '-c', `${PSQL} -c "${sql}"`] });

  before(async () => {
    if (failed) throw new Error(failed);
    const env = { COMPOSE_FILE: 'compose.yaml:compose.postgres.yaml', HTTP_PORT: '0' };
    await runner.up({ sample: 'dotnet-api', runDir, env, services: ['postgres'], build: false });
  });

  after(async () => {
    const { left } = await runner.down({ runDir });
    assert.deepEqual(left, [], 'no container, network or volume of the project left');
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  test(`exec: psql in the container writes and reads back rows, {port} is 5432 there ${STAND_INS}`, async () => {
    const port = await runner.exec({ runDir, service: 'postgres', argv: ['echo', '{port}'] });
    assert.deepEqual(port, { code: 0, stdout: '5432\n', stderr: '' });
    const made = await psql('CREATE TABLE drill (id text); INSERT INTO drill VALUES (\'a-1\'), (\'a-2\')');
    assert.equal(made.code, 0, made.stderr);
    const read = await psql('SELECT id FROM drill ORDER BY id');
    assert.deepEqual([read.code, read.stdout.trim().split('\n')], [0, ['a-1', 'a-2']]);
  });

  test(`exec: a failing command gives its exit code and stderr; an unknown service, one line ` +
    `${STAND_INS}`, async () => {
    const bad = await psql('SELECT * FROM no_such_table');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /no_such_table/);
    await assert.rejects(runner.exec({ runDir, service: 'nope', argv: ['true'] }), /no service 'nope'/);
  });
});

// The bench reads each app instance's /metrics at instance.host (the container's address on its
// network) and extraPorts.METRICS_PORT (from its environment): GETs sent to each are counted there.
async function metricsAtAddresses(instances) {
  const urls = instances.map((i) => `http://${i.host}:${i.extraPorts.METRICS_PORT}/metrics`);
  const before = await metricsReader(() => urls)();
  assert.ok(before, `every replica's metrics answered at ${urls.join(', ')}`);
  for (const i of instances) for (let k = 0; k < 5; k += 1) assert.equal((await fetch(`${i.url}/`)).status, 200);
  const now = await metricsReader(() => urls)();
  assert.ok(now);
  const counted = Object.entries(now.processes).map(([k, p]) => p.requests - (before.processes[k]?.requests ?? 0));
  assert.equal(counted.length, 2, 'one serving process a replica');
  for (const n of counted) assert.ok(n >= 5, `each replica counted the 5 GETs sent to it (${counted})`);
}
