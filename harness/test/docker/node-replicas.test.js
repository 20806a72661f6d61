// node-replicas under Compose v2 with its own compose.yaml: up --wait, routing through
// nginx, replicas scaled down and up under load with no failed GET, kill against crash under each
// restart policy, drain on `docker compose stop`, and a clean `down`. A replica stopped under
// GET + POST load is drain.test.js's (2 replicas, no request failed).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, freePort, waitFor, nginxRoutes, dockerOk, Project, STAND_INS } from './helpers.js';
import { startLoad, describeStats } from './load.js';
import { hardeningProblems } from './hardened.js';
import { nginxErrorProblems, checkAll } from './nginx-errors.js';

const { skip, failed } = await engine();

// The project and its URL, set once it is up; the tests below run in order on the same project.
const ctx = { project: /** @type {any} */ (null), base: '' };
const state = (id) => ctx.project.inspect(id).State;
const hostname = (id) => ctx.project.inspect(id).Config.Hostname;

async function upProject() {
  if (failed) throw new Error(failed);
  const port = await freePort();
  ctx.base = `http://127.0.0.1:${port}`;
  ctx.project = new Project({
    sample: 'node-replicas',
    name: 'lab-node-replicas',
    env: { HTTP_PORT: String(port), REPLICAS: '4' },
  });
  ctx.project.down();
  await ctx.project.step('app', 'docker compose up --wait', () =>
    ctx.project.run(['up', '--wait', '--quiet-pull'], { timeout: 600_000 }),
  );
  await ctx.project.step('nginx', 'routing to the app', () => nginxRoutes(ctx.base, '/'));
}

async function reachesEveryReplica() {
  const { project, base } = ctx;
  const ids = project.containers('app');
  assert.equal(ids.length, 4);
  const expected = new Set(ids.map(hostname));
  const seen = new Set();
  await project.step('nginx', 'GET / through nginx', async () => {
    for (let i = 0; i < 200 && seen.size < expected.size; i++) {
      const res = await fetch(`${base}/`);
      assert.equal(res.status, 200);
      seen.add(/** @type {any} */ (await res.json()).instance);
    }
  });
  assert.deepEqual([...seen].sort(), [...expected].sort(), 'every replica answered, and only the replicas');
  const health = await fetch(`${base}/nginx-health`);
  assert.equal(health.status, 200);
  const nginxLog = project.run(['logs', 'nginx']).stdout;
  assert.doesNotMatch(nginxLog, /setrlimit/, 'nginx got the open files it asks for (compose ulimits)');
}

async function scaleTo(n) {
  await ctx.project.step('app', `docker compose up --scale app=${n}`, () =>
    ctx.project.run(['up', '-d', '--wait', '--no-recreate', '--scale', `app=${n}`]),
  );
  const now = new Set(ctx.project.containers('app').map(hostname));
  assert.equal(now.size, n);
  return now;
}

async function scaleUnderLoad() {
  const load = startLoad(`${ctx.base}/`, { concurrency: 8, maxSeconds: 120, instances: true });
  try {
    await load.answered();
    const two = await scaleTo(2);
    const after2 = Date.now() + 4000;
    await waitFor(
      async () => {
        await sleep(3000);
        const since = Date.now() - 2500;
        const answered = load.answeredSince(since);
        return since > after2 - 4000 && answered.length > 0 && answered.every((who) => two.has(who));
      },
      { what: 'nginx using only the 2 replicas left', timeoutMs: 30_000, everyMs: 0 },
    );
    const six = await scaleTo(6);
    const scaledUp = Date.now();
    await waitFor(() => [...six].every((who) => load.answeredSince(scaledUp).includes(who)), {
      what: 'nginx using all 6 replicas',
      timeoutMs: 30_000,
    });
  } finally {
    const stats = await load.stop();
    console.log(`  scale 4->2->6 under load ${STAND_INS}: ${describeStats(stats)}`);
    assert.equal(stats.failed, 0, describeStats(stats));
  }
}

async function stopDrains() {
  const { project, base } = ctx;
  const ids = project.containers('app');
  const inFlight = Array.from({ length: 8 }, () =>
    fetch(`${base}/delay?ms=2000`).then(
      (r) => r.status,
      (e) => e.cause?.code ?? e.message,
    ),
  );
  await sleep(500);
  await project.step('app', 'docker compose stop app', () => project.run(['stop', 'app']));
  assert.deepEqual(await Promise.all(inFlight), Array(8).fill(200), 'every request in flight answered 200');
  for (const id of ids) assert.equal(state(id).ExitCode, 0, `${id.slice(0, 12)} exited 0`);
}

async function everyReplicaDown() {
  const send = async (init) => {
    const res = await fetch(`${ctx.base}/echo`, { signal: AbortSignal.timeout(40_000), ...init });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
  };
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
  for (const [what, init] of [
    ['a GET', { method: 'GET' }],
    ['a POST', post],
  ]) {
    const got = await send(init);
    assert.ok([502, 504].includes(got.status), `${what}: ${got.status} ${got.body}`);
    assert.deepEqual(await checkAll([[what, got.status, async () => got]]), []);
  }
}

async function killAndCrash() {
  const { project, base } = ctx;
  await project.step('app', 'docker compose up --wait after the drain', () => project.run(['up', '-d', '--wait']));
  for (const service of ['app', 'nginx']) {
    const policy = project.inspect(project.containers(service)[0]).HostConfig.RestartPolicy.Name;
    const [killed, crashed] = service === 'app' ? project.containers(service) : [project.containers(service)[0], null];
    // docker kill: a manual stop for the restart manager, whatever the policy.
    await project.step(service, 'docker kill', () => dockerOk(['kill', killed]));
    await sleep(3000);
    assert.equal(state(killed).Running, false, `${service} (${policy}): docker kill leaves it down`);
    project.run(['start', service]);
    await waitFor(() => state(killed).Running, { what: `${service} up again after docker start` });
    // A crash: its first process dies by SIGKILL from outside, as the OOM killer would do it.
    const target = crashed ?? killed;
    const restarts = project.inspect(target).RestartCount;
    process.kill(state(target).Pid, 'SIGKILL');
    await project.step(service, `crash under restart: ${policy}`, () =>
      waitFor(() => project.inspect(target).RestartCount > restarts && state(target).Running, {
        what: `${service} (${policy}) restarted after a crash`,
        timeoutMs: 20_000,
      }),
    );
  }
  await project.step('app', 'healthy again', () => project.run(['up', '-d', '--wait', '--no-recreate']));
  // nginx restarted (its crash above) resolves the app's name anew: it serves again once it has.
  await project.step('nginx', 'serving again', () => nginxRoutes(base, '/'));
}

describe(`node-replicas on Docker Compose v2 ${STAND_INS}`, { skip }, () => {
  before(upProject);

  after(() => {
    if (!ctx.project) return;
    const left = ctx.project.down();
    assert.deepEqual(left, [], 'down removed every container, network and volume');
  });

  test(`GET / through nginx reaches all 4 replicas ${STAND_INS}`, reachesEveryReplica);

  test(`every container hardened: non-root, no capability, no-new-privileges, read-only root ${STAND_INS}`, () => {
    const { problems, lines } = hardeningProblems(ctx.project, { proxy: 'nginx' });
    console.log(`  node-replicas containers ${STAND_INS}:\n    ${lines.join('\n    ')}`);
    assert.deepEqual(problems, []);
  });

  test(`nginx 1.30's own errors are problem+json ${STAND_INS}`, async () => {
    assert.deepEqual(await nginxErrorProblems(ctx.base), []);
  });

  test(`scale 4 -> 2 -> 6 under a bounded load: nginx follows, no failed GET ${STAND_INS}`, scaleUnderLoad);

  // After the scale-up above: nginx sends to all 6 replicas and to no address that left.
  test(`docker compose stop drains: requests in flight finish, every replica exits 0 ${STAND_INS}`, stopDrains);

  // After the stop above no replica is left: nginx holds addresses that vanished (connects time out)
  // until it re-resolves to none. Its own 502/504 then, as problem+json, for a GET and a POST.
  test(`every replica down: nginx answers 502/504 as problem+json ${STAND_INS}`, everyReplicaDown);

  test(
    `kill vs crash: docker kill stays down, a crash comes back (on-failure, unless-stopped) ${STAND_INS}`,
    killAndCrash,
  );
});
