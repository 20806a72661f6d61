// make bench APP=… on real services of popular Node frameworks (examples/ at the repository's root:
// package.json and package-lock.json each, installed here with `npm ci` as a user would), each
// started by its own start script as its framework's documentation or generator writes it —
// `node ./bin/www`
// (express-generator), `fastify start -l info app.js` (fastify-cli), `cross-env NODE_ENV=production
// node app.js` (Koa), `node --env-file=settings.env server.js` (hapi), `http-server public -p
// ${PORT:-3000}`. Each passes the bench's check (health and paths through nginx) and answers through
// the real nginx under every strategy that can run it; nothing is written into its folder and
// nothing is left running.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runnerFor } from '../runner/index.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { prepareApp } from '../bench/lib/apps/prepare.js';
import {
  userFolder, removeFolders, leftRunning, cgroupsLeft, folderState, processesIn, STRATEGY_KNOBS, getThrough,
} from './bench-app-helpers.js';

after(removeFolders);

const { up, down } = runnerFor('processes');
const FIXTURES = path.join(REPO_ROOT, 'examples');

/** [fixture folder, what its start script should be, a path it serves] */
const APPS = [
  ['express', 'node ./bin/www', '/'],
  ['fastify', 'fastify start -l info app.js', '/'],
  ['koa', 'cross-env NODE_ENV=production node app.js', '/'],
  ['hapi', 'node --env-file=settings.env server.js', '/'],
  ['http-server', 'http-server public -p ${PORT:-3000} -c-1', '/health.json'],
];

// The fixture as a user has it: its files (no node_modules) in a folder of its own, then `npm ci`.
function installed(name) {
  const dir = userFolder(`fw-${name}`, {});
  fs.cpSync(path.join(FIXTURES, name), dir, {
    recursive: true, filter: (src) => !src.split(path.sep).includes('node_modules'),
  });
  const res = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir, encoding: 'utf8', timeout: 180_000,
  });
  const said = (res.stderr || res.error?.message || '').trim().split('\n').at(-1);
  return { dir, skip: res.status === 0 ? false : `npm ci of ${name} failed, no registry here? ${said}` };
}

for (const [name, script, servedPath] of APPS) {
  const { dir, skip } = installed(name);
  describe(`make bench APP=: ${name}, started by its own start script`, { skip }, () => {
    let app;
    let before0;

    before(async () => {
      before0 = folderState(dir);
      const out = path.join(userFolder(`fw-${name}-out`, {}), 'run');
      app = await prepareApp({ app: dir, paths: servedPath, health: servedPath, out });
    });

    test(`its start script is ${script}; the check passed; every strategy that forks is measured`, () => {
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts.start, script);
      const launch = JSON.parse(fs.readFileSync(path.join(app.dir, 'launch.json'), 'utf8'));
      assert.equal(launch.script, script, 'npm hands sh the script as written');
      assert.deepEqual(app.description.strategies, ['one-process', 'cluster', 'pm2', 'replicas'], launch.why ?? '');
      assert.deepEqual(leftRunning(path.join(app.out, 'check')), []);
    });

    for (const [label, knobs] of Object.entries(STRATEGY_KNOBS)) {
      test(`${label}: answers through the real nginx; nothing left after down`, async () => {
        const runDir = path.join(app.out, `run-${label.replace(/\W+/g, '-')}`);
        try {
          const env = { ...app.description.defaults, HTTP_PORT: '0', ...knobs };
          const state = await up({ sample: app.dir, runDir, env });
          assert.deepEqual(await getThrough(state.url, servedPath, 4), [200, 200, 200, 200]);
        } finally {
          await down({ runDir });
        }
        assert.deepEqual(leftRunning(runDir), []);
        assert.deepEqual(cgroupsLeft(app.name), []);
      });
    }

    test("nothing written into the app's folder, no process left in it", () => {
      assert.deepEqual(folderState(dir), before0);
      assert.deepEqual(processesIn(dir), []);
    });
  });
}
