// node-cluster under Compose v2 with its own compose.yaml but no MongoDB (no image of it can be
// built here): the app and nginx only. Liveness answers, readiness and the database routes say 503,
// and the app's log says why in one line.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engine, freePort, waitFor, nginxRoutes, Project, secretsReady, STAND_INS } from './helpers.js';
import { hardeningProblems } from './hardened.js';
import { nginxErrorProblems } from './nginx-errors.js';

const { skip, failed } = await engine();

describe(`node-cluster on Docker Compose v2 without MongoDB ${STAND_INS}`, { skip }, () => {
  let project;
  let base;

  before(async () => {
    if (failed) throw new Error(failed);
    secretsReady('node-cluster');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    project = new Project({
      sample: 'node-cluster',
      name: 'lab-node-cluster',
      env: { HTTP_PORT: String(port), CPUS: '1' },
    });
    project.down();
    // --no-deps: app and nginx without the mongo service they depend on.
    await project.step('app', 'docker compose up --wait --no-deps app nginx', () =>
      project.run(['up', '--wait', '--quiet-pull', '--no-deps', 'app', 'nginx'], { timeout: 600_000 }),
    );
    await project.step('nginx', 'routing to the app', () => nginxRoutes(base, '/health'));
  });

  after(() => {
    if (!project) return;
    assert.deepEqual(project.down(), [], 'down removed every container, network and volume');
  });

  test(`liveness 200, readiness 503 through nginx, one clear log line ${STAND_INS}`, async () => {
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${base}/ready`);
    assert.equal(ready.status, 503);
    assert.equal(/** @type {any} */ (await ready.json()).reason, 'database unavailable');
    const items = await fetch(`${base}/api/items`);
    assert.equal(items.status, 503);
    assert.match(items.headers.get('content-type'), /json/);
    const line = await waitFor(
      () => {
        const logs = project.run(['logs', '--no-log-prefix', 'app']).stdout;
        return logs.split('\n').find((l) => l.includes('mongodb connect failed, retrying'));
      },
      { what: 'a log line saying MongoDB is not there', timeoutMs: 20_000 },
    );
    console.log(`  node-cluster's log ${STAND_INS}: ${line}`);
  });

  test(`every container hardened: non-root, no capability, no-new-privileges, read-only root ${STAND_INS}`, () => {
    const { problems, lines } = hardeningProblems(project, { proxy: 'nginx' });
    console.log(`  node-cluster containers ${STAND_INS}:\n    ${lines.join('\n    ')}`);
    assert.deepEqual(problems, []);
  });

  test(`nginx 1.30's own errors are problem+json ${STAND_INS}`, async () => {
    assert.deepEqual(await nginxErrorProblems(base), []);
  });
});
