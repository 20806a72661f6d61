// Nothing lost on a stop: a sample's own compose files under plain docker / docker compose commands,
// 2 replicas behind nginx, a GET + POST load to 127.0.0.1 through every event. Graceful events
// (docker stop, up --scale down, a start-first replacement) must fail no GET and no POST; a crash
// (docker kill) may fail only POSTs that were in flight on it. Where the sample has a store
// (x-bench.writes: dotnet-api on PostgreSQL), what it holds is read back after each event and set
// against the 2xx answers the client got: nothing acknowledged is missing, nothing stored twice.
// One test file a sample, so the two run side by side: drain.test.js (node-replicas), and
// dotnet-api.test.js (on the deployment its own checks use first).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, waitFor, nginxRoutes, dockerOk, Project, secretsReady, STAND_INS } from './helpers.js';
import { startMixedLoad, describeMixed } from './load.js';
import { writesOf, bodyTemplate, listStored, account } from './writes.js';

// nginx re-resolves the app's name every 2 s (resolver valid=1s, then 1 s): how long a container
// that left keeps its place in nginx's list (with resolver_timeout 2s), and the load runs on past
// each event.
const RESOLVE_MS = 5_000;
const GRACEFUL = ['stop', 'scale-down', 'replace'];

/** The samples drained: their compose files, knobs, the GET whose body names the replica, the POST. */
const SAMPLES = {
  'dotnet-api': {
    sample: 'dotnet-api', files: ['compose.yaml', 'compose.postgres.yaml'], env: { CPUS: '1' },
    get: '/api', who: (body) => body.hostname, dbPort: 5432,
  },
  'node-replicas': {
    sample: 'node-replicas', files: [], env: {},
    get: '/', who: (body) => body.instance, post: '/echo',
  },
};

/**
 * One sample's run: its project and base URL once `before` has started it, the store it writes to
 * (null: none), the lines printed after.
 * @typedef {{ s: (typeof SAMPLES)[keyof typeof SAMPLES], project?: Project, base?: string, writes?: any,
 *   lines: string[] }} DrainRun
 */

/** @param {DrainRun} run */
async function startProject(run) {
  const { s } = run;
  secretsReady(s.sample);
  const port = await freePort();
  run.base = `http://127.0.0.1:${port}`;
  run.project = new Project({
    sample: s.sample,
    name: `lab-drain-${s.sample}`,
    files: s.files,
    env: { HTTP_PORT: String(port), REPLICAS: '2', ...s.env },
  });
  run.writes = writesOf(run.project.dir);
  run.project.down();
  await run.project.step('app', 'docker compose up --wait', () =>
    run.project.run(['up', '--wait', '--quiet-pull'], { timeout: 900_000 }),
  );
  await run.project.step('nginx', 'routing to the app', () => nginxRoutes(run.base, s.get));
}

/** @param {DrainRun} run */
function stopProject({ s, project, lines }) {
  if (lines.length) console.log(`  ${s.sample} ${STAND_INS}:\n    ${lines.join('\n    ')}`);
  if (!project) return;
  assert.deepEqual(project.down(), [], 'down removed every container, network and volume');
}

const state = (run, id) => run.project.inspect(id).State;
const hostname = (run, id) => run.project.inspect(id).Config.Hostname;

// nginx sends to this container (its name re-resolved): one of its answers came through nginx.
const servedByNginx = (run, id) =>
  waitFor(
    async () => {
      const who = hostname(run, id);
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${run.base}${run.s.get}`);
        if (res.ok && run.s.who(await res.json()) === who) return true;
      }
      await sleep(500);
      return false;
    },
    { what: `nginx sending to ${id.slice(0, 12)}`, timeoutMs: 60_000 },
  );

const healthy = (run, id) =>
  waitFor(() => state(run, id).Health?.Status === 'healthy', { what: `${id.slice(0, 12)} healthy`, timeoutMs: 90_000 });
const upScale = (run, n) =>
  run.project.run(['up', '-d', '--no-recreate', '--wait', '--scale', `app=${n}`], { timeout: 300_000 });

// Each event: what it does, and how the 2 replicas come back (both in nginx's list) after.
const EVENTS = {
  /** @param {DrainRun} run */
  async stop(run) {
    const [victim] = run.project.containers('app');
    dockerOk(['stop', victim], { timeout: 120_000 });
    assert.equal(state(run, victim).ExitCode, 0, 'the stopped replica drained and exited 0');
    return async () => {
      dockerOk(['start', victim]);
      await healthy(run, victim);
      await servedByNginx(run, victim);
    };
  },
  /** @param {DrainRun} run */
  async 'scale-down'(run) {
    const { project } = run;
    const before = project.containers('app');
    upScale(run, 1);
    assert.equal(project.containers('app').length, 1);
    return async () => {
      upScale(run, 2);
      const added = project.containers('app').find((id) => !before.includes(id)) ?? project.containers('app')[0];
      await servedByNginx(run, added);
    };
  },
  // Start-first, as a rollout does it: a third replica, healthy and in nginx's list, then the oldest goes.
  /** @param {DrainRun} run */
  async replace(run) {
    const { project } = run;
    const before = project.containers('app');
    upScale(run, 3);
    const added = project.containers('app').find((id) => !before.includes(id));
    await servedByNginx(run, added);
    const oldest = before.sort((a, b) => project.inspect(a).Created.localeCompare(project.inspect(b).Created))[0];
    dockerOk(['stop', oldest], { timeout: 120_000 });
    assert.equal(state(run, oldest).ExitCode, 0, 'the replaced replica drained and exited 0');
    dockerOk(['rm', oldest]);
    return async () => {};
  },
  /** @param {DrainRun} run */
  async kill(run) {
    const [victim] = run.project.containers('app');
    dockerOk(['kill', victim]);
    return async () => {
      dockerOk(['start', victim]);
      await healthy(run, victim);
      await servedByNginx(run, victim);
    };
  },
};

// What nginx logs of an upstream beyond the refusals a drain is made of (a stopping replica
// refuses; nginx tries the next): a try that timed out, a reset, a connection closed early, none left.
const UNEXPECTED = /timed out|reset by peer|prematurely closed|no live upstreams/;

/** nginx's unexpected error lines since `since` (ISO time), the last 6. @param {Project} project */
function nginxErrors(project, since) {
  const res = project.run(['logs', '--no-log-prefix', '--since', since, 'nginx'], { check: false, timeout: 30_000 });
  return `${res.stdout}\n${res.stderr}`.split('\n').filter((l) => /\[(error|crit)\]/.test(l) && UNEXPECTED.test(l))
    .slice(-6);
}

/** One event under load, its counts, and the 2 replicas back after it. @param {DrainRun} run */
async function drill(run, kind, n) {
  const { s, project, writes } = run;
  const prefix = `drain-${Date.now().toString(36)}-${n}`;
  const post = writes
    ? { path: writes.post, body: bodyTemplate(writes) }
    : { path: s.post, body: '{"id":"{id}"}' };
  const since = new Date().toISOString();
  const load = startMixedLoad(run.base, { get: s.get, post, prefix, concurrency: 4, pauseMs: 20 });
  let restore;
  let stats;
  try {
    await load.answered();
    restore = await project.step('app', `${kind} (event ${n})`, () => EVENTS[kind](run));
    await sleep(RESOLVE_MS);
  } finally {
    stats = await load.stop();
  }
  const stored = writes ? account(stats, listStored(project, writes, { prefix, port: s.dbPort })) : null;
  // What nginx logged meanwhile (an upstream that timed out, a reset), printed with the counts.
  const nginx = nginxErrors(project, since);
  const line = { kind, n, stats, writes: stored, nginx };
  const storeText = line.writes ? `; writes ${JSON.stringify(line.writes)}` : '; no store (x-bench.writes: null)';
  const nginxText = nginx.length ? `; nginx's errors: ${nginx.join(' | ')}` : '';
  run.lines.push(`${kind} ${n}: ${describeMixed(stats)}${storeText}${nginxText}`);
  await project.step('app', `back to 2 replicas after ${kind} ${n}`, restore);
  return line;
}

/** A graceful event's counts: no GET or POST failed, nothing lost or doubled. */
function assertGraceful(r) {
  const where = `${r.kind} ${r.n}: ${describeMixed(r.stats)} ${JSON.stringify(r.writes)} ${r.nginx.join(' | ')}`;
  assert.ok(r.stats.get.ok > 100 && r.stats.post.ok > 100, `the load ran: ${where}`);
  assert.equal(r.stats.get.failed, 0, `no GET failed: ${where}`);
  assert.equal(r.stats.post.failed, 0, `no POST failed: ${where}`);
  if (r.writes) {
    assert.equal(r.writes.lost, 0, `no acknowledged write lost: ${where}`);
    assert.equal(r.writes.duplicated, 0, `no write stored twice: ${where}`);
    assert.equal(r.writes.unknown, 0, `nothing stored that was not sent: ${where}`);
    assert.equal(r.writes.stored, r.writes.acknowledged, `every acknowledged write stored once: ${where}`);
  }
}

/** The kill's counts: no GET failed, only POSTs in flight may have, nothing lost or doubled. */
function assertKilled(r) {
  const where = `${describeMixed(r.stats)} ${JSON.stringify(r.writes)} ${r.nginx.join(' | ')}`;
  assert.equal(r.stats.get.failed, 0, `no GET failed (nginx retries them): ${where}`);
  // The load has 4 POST loops: at most 4 POSTs can be in flight on the killed replica.
  assert.ok(r.stats.post.failed <= 4, `only POSTs in flight on the killed replica failed: ${where}`);
  if (r.writes) {
    assert.equal(r.writes.lost, 0, `no acknowledged write lost: ${where}`);
    assert.equal(r.writes.duplicated, 0, `no write stored twice: ${where}`);
    assert.equal(r.writes.unknown, 0, `nothing stored that was not sent: ${where}`);
  }
}

/**
 * The sample's drain tests: up with 2 replicas, the graceful events one after the other, then a kill;
 * down after. `engineState`: helpers.js engine()'s { skip, failed }. `first(run)` declares tests that
 * run on the same project before the events (`run.project`, `run.base` once it is up).
 * @param {keyof typeof SAMPLES} sample @param {{ skip?: string, failed?: string | null }} engineState
 * @param {string} title @param {(run: DrainRun) => void} [first]
 */
export function drainTests(sample, { skip, failed }, title, first = () => {}) {
  const s = SAMPLES[sample];
  describe(`${title} ${STAND_INS}`, { skip }, () => {
    /** @type {DrainRun} */
    const run = { s, lines: [] };
    before(() => {
      if (failed) throw new Error(failed);
      return startProject(run);
    });
    after(() => stopProject(run));

    first(run);

    test(
      `${GRACEFUL.length} graceful events (stop, up --scale down, start-first replace): no GET or POST fails, ` +
        `nothing lost or doubled ${STAND_INS}`,
      async () => {
        const results = [];
        for (const [i, kind] of GRACEFUL.entries()) results.push(await drill(run, kind, i + 1));
        for (const r of results) assertGraceful(r);
      },
    );

    test(
      `docker kill (SIGKILL) under load: no GET fails, only POSTs in flight may, nothing lost or doubled ${STAND_INS}`,
      async () => assertKilled(await drill(run, 'kill', GRACEFUL.length + 1)),
    );
  });
}
