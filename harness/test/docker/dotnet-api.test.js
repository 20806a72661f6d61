// dotnet-api under Compose v2 with compose.yaml and the committed compose.postgres.yaml override
// (PostgreSQL 18 instead of SQL Server, which cannot run here), 2 replicas on one deployment:
// migrations, seed, the app's own least-privilege login, the API through nginx, every container
// hardened; then drained (drain.js): stop, scale-down, start-first replace and kill under GET + POST
// load, every acknowledged POST read back from PostgreSQL. And a store that cannot be read is said
// in one line naming it, never an empty count.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, docker, Project, STAND_INS } from './helpers.js';
import { hardeningProblems } from './hardened.js';
import { nginxErrorProblems } from './nginx-errors.js';
import { drainTests } from './drain.js';
import { writesOf, listStored } from './writes.js';

const { skip, failed } = await engine();

/** The deployment's own checks, before the drain's events. @param {import('./drain.js').DrainRun} run */
function deployed(run) {
  test(`products from PostgreSQL 18 through nginx; bad input is a 400 ProblemDetails ${STAND_INS}`, async () => {
    const { base } = run;
    assert.equal((await fetch(`${base}/health/ready`)).status, 200);
    const list = await fetch(`${base}/products`);
    assert.equal(list.status, 200);
    const body = /** @type {any} */ (await list.json());
    const items = Array.isArray(body) ? body : body.items;
    assert.ok(items.length > 0, 'the seed is there');
    const bad = await fetch(`${base}/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ""',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type'), /application\/problem\+json/);
  });

  test(`the migrator exited 0 and the app logs in with its own login, not the superuser ${STAND_INS}`, () => {
    const { project } = run;
    const migrator = project.containers('migrator', { all: true })[0];
    assert.equal(project.inspect(migrator).State.ExitCode, 0);
    const sql = "SELECT rolsuper FROM pg_roles WHERE rolname = 'products_app'";
    const res = project.run(['exec', '-T', 'postgres', 'psql', '-U', 'postgres', '-d', 'products', '-tAc', sql]);
    assert.equal(res.stdout.trim(), 'f', 'products_app exists and is no superuser');
    const env = project.inspect(project.containers('app')[0]).Config.Env;
    assert.ok(env.includes('ConnectionStrings__Postgres=Host=postgres;Username=products_app;Database=products'));
  });

  // Compose starts the one-shot migrator again on `up --scale`: up to date, it checks as the app's
  // login and leaves the superuser's alone.
  test(`up --scale runs the migrator again as the app's login only ${STAND_INS}`, () => {
    const { project } = run;
    const n = project.containers('app').length;
    project.run(['up', '-d', '--no-recreate', '--wait', '--scale', `app=${n + 1}`], { timeout: 300_000 });
    const log = project.run(['logs', '--no-log-prefix', 'migrator']).stdout;
    assert.match(log, /Up to date, checked as products_app .*the administrator's login not used/);
    assert.equal(
      (log.match(/Migrations applied/g) ?? []).length,
      1,
      'migrated as the administrator once, at the first up',
    );
    project.run(['up', '-d', '--no-recreate', '--wait', '--scale', `app=${n}`], { timeout: 300_000 });
  });

  test(`every container hardened: non-root, no capability, no-new-privileges, read-only root ${STAND_INS}`, () => {
    const { problems, lines } = hardeningProblems(run.project, { proxy: 'nginx' });
    console.log(`  dotnet-api containers ${STAND_INS}:\n    ${lines.join('\n    ')}`);
    assert.deepEqual(problems, []);
  });

  test(`nginx 1.30's own errors are problem+json ${STAND_INS}`, async () => {
    assert.deepEqual(await nginxErrorProblems(run.base), []);
  });
}

drainTests(
  'dotnet-api',
  { skip, failed },
  'dotnet-api on Docker Compose v2 with compose.postgres.yaml, 2 replicas: deployed, then stop, scale down, ' +
    'replace and kill under GET + POST load',
  deployed,
);

describe(`reading the store back: a failure names the store ${STAND_INS}`, { skip }, () => {
  test(`dotnet-api's list command against a project that is not running ${STAND_INS}`, async () => {
    if (failed) throw new Error(failed);
    const project = new Project({
      sample: 'dotnet-api',
      name: 'lab-drain-absent',
      files: ['compose.yaml', 'compose.postgres.yaml'],
    });
    assert.equal(docker(['compose', '-p', 'lab-drain-absent', 'ps', '-q']).stdout.trim(), '');
    assert.throws(
      () => listStored(project, writesOf(project.dir), { prefix: 'x', port: 5432 }),
      /the store \(service postgres\) could not be read/,
    );
  });
});
