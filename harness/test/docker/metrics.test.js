// The metrics profile on a real engine with a real Prometheus: a known number of requests through
// nginx to N replicas (node-replicas, dotnet-api) and to a cluster of N workers (node-cluster) is
// what the per-process counters Prometheus scraped add up to, process by process; a scale to N
// shows N targets; a CPU-bound load drives an event loop's utilization near 1; a worker killed and
// respawned never fails a scrape; a target Prometheus cannot reach shows down, and the app logs
// nothing of it; /metrics is not reachable through nginx's port.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engine, docker, freePort, waitFor, nginxRoutes, Project, secretsReady, STAND_INS } from './helpers.js';

const { skip, failed } = await engine();
// Every compose command of a project here runs with the profile (down too, or it leaves the
// profile's containers): COMPOSE_PROFILES in its environment, as `--profile metrics` would.
const PROFILE = { COMPOSE_PROFILES: 'metrics' };
// The request counters: a latency histogram's count, GET / answered 200 (Node), GET /api (.NET).
const NODE_COUNT = 'http_request_duration_seconds_count';
const NODE_HOME = 'route="/",status_code="200"';
const DOTNET_COUNT = 'http_server_request_duration_seconds_count';
const DOTNET_API = 'http_route="/api",http_response_status_code="200"';

/**
 * Prometheus's own HTTP API, asked from inside its container (it publishes no port): the result
 * vector, evaluated now or at `atMs` (epoch ms).
 */
function query(project, expr, atMs = undefined) {
  const at = atMs === undefined ? '' : `&time=${atMs / 1000}`;
  const url = `http://127.0.0.1:9090/api/v1/query?query=${encodeURIComponent(expr)}${at}`;
  const res = project.run(['exec', '-T', 'prometheus', 'wget', '-qO-', url], { timeout: 30_000 });
  const body = JSON.parse(res.stdout);
  assert.equal(body.status, 'success', res.stdout);
  return body.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
}
const scalar = (project, expr) => query(project, expr)[0]?.value;

/** Sends `n` GETs of `path` through nginx, `concurrency` at a time; returns the count by the body's `field`. */
async function send(base, path, n, { concurrency = 6, field = 'instance' } = {}) {
  const by = {};
  let next = 0;
  const loop = async () => {
    while (next < n) {
      next += 1;
      const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(60_000) });
      assert.equal(res.status, 200, await res.clone().text());
      const who = String((/** @type {any} */ (await res.json()))[field]);
      by[who] = (by[who] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return by;
}

const sorted = (values) => [...values].sort((a, b) => a - b);

async function targetsUp(project, n) {
  await waitFor(() => scalar(project, 'count(up{job="app"} == 1)') === n && scalar(project, 'up{job="nginx"}') === 1, {
    what: `${n} app targets and nginx's exporter up in Prometheus`,
    timeoutMs: 60_000,
    everyMs: 1000,
  });
}

// What Prometheus scraped of `metric{labels}` adds up to `sent` in all, and process by process (by
// instance or worker) to what the client saw each answer: waited for, a scrape coming every 5 s.
async function countsMatch(project, { metric, labels, by, sent }) {
  const selector = `${metric}{job="app",${labels}}`;
  const total = Object.values(sent).reduce((a, b) => a + b, 0);
  await waitFor(() => scalar(project, `sum(${selector})`) === total, {
    what: `Prometheus's sum of ${selector} at ${total}`, timeoutMs: 30_000, everyMs: 1000,
  });
  const perProcess = query(project, `sum by (${by}) (${selector})`).map((r) => r.value);
  assert.deepEqual(sorted(perProcess), sorted(Object.values(sent)), `per ${by}: Prometheus against the client`);
}

function notThroughNginx(base) {
  return Promise.all(['/metrics', '/stub_status'].map(async (p) => {
    const res = await fetch(`${base}${p}`);
    await res.text();
    assert.equal(res.status, 404, `${p} through nginx's port`);
  }));
}

/**
 * The project a describe block tests, up with the metrics profile before its tests and down after
 * them: { project, base } once up, and nginx routing GET `path` to the app (a probe's path: none the
 * tests count). `services`: only these (with --no-deps), else every one.
 */
function upWithMetrics({ sample, name, path, files = [], env = {}, services = [], timeout = 600_000 }) {
  const ctx = { project: /** @type {any} */ (null), base: '' };
  before(async () => {
    if (failed) throw new Error(failed);
    secretsReady(sample);
    const port = await freePort();
    ctx.base = `http://127.0.0.1:${port}`;
    ctx.project = new Project({ sample, name, files, env: { HTTP_PORT: String(port), ...PROFILE, ...env } });
    ctx.project.down();
    const only = services.length ? ['--no-deps', ...services] : [];
    await ctx.project.step('prometheus', `docker compose --profile metrics up --wait ${only.join(' ')}`, () =>
      ctx.project.run(['up', '--wait', '--quiet-pull', ...only], { timeout }));
    await ctx.project.step('nginx', 'routing to the app', () => nginxRoutes(ctx.base, path));
  });
  after(() => {
    if (!ctx.project) return;
    assert.deepEqual(ctx.project.down(), [], 'down removed every container, network and volume');
  });
  return ctx;
}

describe(`node-replicas with the metrics profile ${STAND_INS}`, { skip }, () => {
  const ctx = upWithMetrics({
    sample: 'node-replicas', name: 'lab-metrics-replicas', path: '/ready', env: { REPLICAS: '3' },
  });

  test(`3 replicas, 3 targets; 300 GETs through nginx are what their counters add up to ${STAND_INS}`, async () => {
    await targetsUp(ctx.project, 3);
    const nginxBefore = scalar(ctx.project, 'nginx_http_requests_total') ?? 0;
    const sent = await send(ctx.base, '/', 300);
    assert.equal(Object.keys(sent).length, 3, `every replica answered: ${JSON.stringify(sent)}`);
    await countsMatch(ctx.project, { metric: NODE_COUNT, labels: NODE_HOME, by: 'instance', sent });
    await waitFor(() => scalar(ctx.project, 'nginx_http_requests_total') - nginxBefore >= 300, {
      what: 'nginx\'s exporter counting the 300 requests', timeoutMs: 30_000, everyMs: 1000,
    });
    // A recording rule answers once Prometheus has evaluated it over two scrapes of the rate: wait for
    // that (bounded), rather than read it once and race its first evaluation.
    const spread = await waitFor(() => {
      const v = scalar(ctx.project, 'service:http_requests_spread:max_over_mean');
      return Number.isFinite(v) ? v : undefined;
    }, { what: 'the spread rule answering', timeoutMs: 60_000, everyMs: 1000 });
    assert.ok(spread >= 1, `the spread rule answers (${spread})`);
    await notThroughNginx(ctx.base);
  });

  test(`scaled to 5: 5 targets, no change to Prometheus's config ${STAND_INS}`, async () => {
    await ctx.project.step('app', 'docker compose up --scale app=5', () =>
      ctx.project.run(['up', '-d', '--wait', '--no-recreate', '--scale', 'app=5']));
    await targetsUp(ctx.project, 5);
  });

  test(`a CPU-bound load drives an event loop's utilization near 1 ${STAND_INS}`, async () => {
    const until = Date.now() + 20_000;
    const loop = async () => {
      while (Date.now() < until) {
        const res = await fetch(`${ctx.base}/pi?samples=2000000`, { signal: AbortSignal.timeout(60_000) });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
    };
    // 8 clients per replica (5 of them): each always has requests queued on its socket, so its loop
    // never waits for a client's next request. With 2 per replica, on a loaded machine the gaps
    // between a slow client's requests read as idle time (0.85 in one clean-clone run).
    await Promise.all(Array.from({ length: 40 }, loop));
    const elu = 'sum by (instance) (rate(nodejs_eventloop_time_seconds_total{state="active"}[15s]))'
      + ' / sum by (instance) (rate(nodejs_eventloop_time_seconds_total[15s]))';
    // Evaluated at the load's end, not after it: a scrape between the last answer and the query (the
    // drain, then `docker compose exec`) added the loops' idle seconds to the window (0.881 in one run).
    const busiest = Math.max(...query(ctx.project, elu, until).map((r) => r.value));
    console.log(`  busiest event loop over the last 15 s of a /pi load ${STAND_INS}: ${busiest.toFixed(3)}`);
    assert.ok(busiest > 0.9, `the busiest event loop's utilization: ${busiest}`);
  });

  test(`a replica Prometheus cannot reach shows down; the app logs nothing of it ${STAND_INS}`, async () => {
    const [id] = ctx.project.containers('app');
    const ip = Object.values(ctx.project.inspect(id).NetworkSettings.Networks)[0].IPAddress;
    const logBefore = ctx.project.run(['logs', '--no-log-prefix', 'app']).stdout.split('\n').length;
    docker(['pause', id]);
    try {
      await waitFor(() => scalar(ctx.project, `up{instance="${ip}:9464"}`) === 0, {
        what: `${ip}:9464 down in Prometheus`, timeoutMs: 40_000, everyMs: 1000,
      });
    } finally {
      docker(['unpause', id]);
    }
    await waitFor(() => scalar(ctx.project, `up{instance="${ip}:9464"}`) === 1, {
      what: `${ip}:9464 up again`, timeoutMs: 40_000, everyMs: 1000,
    });
    const logAfter = ctx.project.run(['logs', '--no-log-prefix', 'app']).stdout.split('\n');
    assert.deepEqual(logAfter.slice(logBefore - 1).filter((l) => /error/i.test(l)), [], 'no error in the app\'s log');
  });
});

describe(`node-cluster, a cluster of 3 workers, with the metrics profile ${STAND_INS}`, { skip }, () => {
  // Only the app, nginx and the profile: no MongoDB image here, and the routes measured need none.
  const ctx = upWithMetrics({
    sample: 'node-cluster', name: 'lab-metrics-cluster', path: '/health', env: { WORKERS: '3', CPUS: '1' },
    services: ['app', 'nginx', 'nginx-exporter', 'prometheus'],
  });
  const workers = () => query(ctx.project, 'count by (worker) '
    + '(nodejs_eventloop_time_seconds_total{job="app",state="active",worker!="primary"})').map((r) => r.labels.worker);

  test(`one target, 3 workers; 300 GETs are what their counters add up to, worker by worker ${STAND_INS}`, async () => {
    await targetsUp(ctx.project, 1);
    await waitFor(() => workers().length === 3, { what: '3 workers in Prometheus', timeoutMs: 30_000, everyMs: 1000 });
    const sent = await send(ctx.base, '/', 300, { field: 'pid' });
    assert.equal(Object.keys(sent).length, 3, `every worker answered: ${JSON.stringify(sent)}`);
    await countsMatch(ctx.project, { metric: NODE_COUNT, labels: NODE_HOME, by: 'worker', sent });
    const counted = query(ctx.project, 'sum by (worker) (http_request_duration_seconds_count{route="/"})');
    const labelled = counted.map((r) => r.labels.worker).sort();
    assert.deepEqual(labelled, Object.keys(sent).sort(), 'labelled by the pid that answered');
    await notThroughNginx(ctx.base);
  });

  test(`a worker killed and respawned: every scrape answered, the new one listed ${STAND_INS}`, async () => {
    const [victim] = workers();
    const killedAt = Date.now();
    ctx.project.run(['exec', '-T', 'app', 'kill', '-9', victim]);
    await waitFor(() => { const now = workers(); return now.length === 3 && !now.includes(victim); }, {
      what: 'a respawned worker in place of the killed one', timeoutMs: 60_000, everyMs: 1000,
    });
    // Every scrape since the kill succeeded (up stayed 1) and found no worker missing.
    const windowS = Math.ceil((Date.now() - killedAt) / 1000) + 5;
    assert.equal(scalar(ctx.project, `min_over_time(up{job="app"}[${windowS}s])`), 1, 'no failed scrape');
    assert.equal(scalar(ctx.project, `max_over_time(nodejs_cluster_workers{state="missing"}[${windowS}s])`), 0);
  });
});

describe(`dotnet-api, 2 replicas on PostgreSQL, with the metrics profile ${STAND_INS}`, { skip }, () => {
  const ctx = upWithMetrics({
    sample: 'dotnet-api', name: 'lab-metrics-dotnet', files: ['compose.yaml', 'compose.postgres.yaml'],
    env: { REPLICAS: '2', CPUS: '0.5' }, path: '/health/ready', timeout: 900_000,
  });

  test(`2 targets; 200 GETs are what their counters add up to; the thread pool scraped ${STAND_INS}`, async () => {
    await targetsUp(ctx.project, 2);
    assert.deepEqual(query(ctx.project, `${DOTNET_COUNT}{${DOTNET_API}}`), [], 'no GET /api yet');
    const sent = await send(ctx.base, '/api', 200, { field: 'hostname' });
    assert.equal(Object.keys(sent).length, 2, `both replicas answered: ${JSON.stringify(sent)}`);
    await countsMatch(ctx.project, { metric: DOTNET_COUNT, labels: DOTNET_API, by: 'instance', sent });
    for (const series of ['dotnet_thread_pool_thread_count', 'dotnet_thread_pool_queue_length',
      'kestrel_active_connections']) {
      assert.ok(query(ctx.project, series).length >= 2, `${series} of both replicas`);
    }
    await notThroughNginx(ctx.base);
  });
});
