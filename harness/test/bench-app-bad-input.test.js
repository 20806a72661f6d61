// make bench APP=… given bad input: a folder that doesn't exist; one with no start command, no
// compose file and no package.json; an app that never becomes healthy (its health path failing, or
// listening on a port of its own); a path answering 4xx or 5xx; a port already taken; an app that
// stops at start. Each is one line naming what is wrong and how to fix it — exit 2 from the CLI —
// and leaves nothing: no process, no cgroup, no generated folder.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { prepareApp } from '../bench/lib/apps/prepare.js';
import { AppInputError } from '../bench/lib/apps/errors.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { freePort } from '../lib/ports.js';
import { userFolder, httpService, removeFolders, leftRunning, cgroupsLeft } from './bench-app-helpers.js';

after(removeFolders);

const CLI = path.join(REPO_ROOT, 'harness', 'bench', 'cli.js');

/** prepareApp on a service folder: resolves to the one-line error, after checking nothing is left. */
async function refused(files, options = {}) {
  const dir = files ? userFolder('bad', files) : options.app;
  const out = path.join(userFolder('bad-out', {}), 'run');
  const err = await prepareApp({ app: dir, out, healthTimeoutS: 3, ...options }).then(
    () => null,
    (e) => e,
  );
  assert.ok(err instanceof AppInputError, `rejected as bad input: ${err?.stack ?? 'it was accepted'}`);
  assert.doesNotMatch(err.message, /\n/, 'one line');
  assert.equal(fs.existsSync(out), false, 'the generated folder is gone');
  assert.deepEqual(leftRunning(path.join(out, 'check')), [], 'no process of the check left');
  const name = files?.['package.json'] ? JSON.parse(files['package.json']).name : path.basename(dir ?? '');
  if (name) assert.deepEqual(cgroupsLeft(name.toLowerCase()), [], 'no cgroup of the check left');
  return err.message;
}

const node = (server, extra = {}) => ({
  'package.json': JSON.stringify({
    name: `bad-${Math.random().toString(36).slice(2, 8)}`,
    scripts: { start: 'node server.js' },
  }),
  'server.js': server,
  ...extra,
});

describe('make bench APP=: a folder it cannot run, one line each, nothing left', () => {
  test('an APP folder that does not exist', async () => {
    const msg = await refused(null, { app: '/nonexistent/bench-app-folder' });
    assert.match(msg, /^APP=\/nonexistent\/bench-app-folder: .* does not exist: give the folder of your service/);
  });

  test('results never in docs/', async () => {
    const err = await prepareApp({
      app: userFolder('docs-out', node(httpService())),
      out: path.join(REPO_ROOT, 'docs', 'results'),
      check: false,
    }).catch((e) => e);
    assert.match(err.message, /your service's results never go to docs\//);
  });

  test('a folder with no start command, no compose file and no package.json', async () => {
    assert.match(
      await refused({ 'README.md': '# nothing to run' }),
      /has no start command, no compose file and no package\.json: give START='node server\.js'/,
    );
  });

  test('a package.json without a start script; dependencies never installed', async () => {
    assert.match(
      await refused({ 'package.json': '{"name":"x"}' }),
      /has no start command: add a "start" script to its package\.json, or give START=/,
    );
    assert.match(
      await refused({
        'package.json': '{"name":"x","scripts":{"start":"node s.js"},"dependencies":{"express":"^5"}}',
        's.js': '',
      }),
      /has dependencies but no node_modules: run `npm ci`/,
    );
  });
});

describe('make bench APP=: an app failing its checks, one line each, nothing left', () => {
  test('an app that never becomes healthy: its health path answers 500', async () => {
    assert.match(
      await refused(node(httpService()), { health: '/fail' }),
      /never became healthy: GET \/fail on its PORT answered 500 for 3 s.*give HEALTH=\/your\/health\/path/,
    );
  });

  test('an app that never becomes healthy: it listens on a port of its own, not PORT', async () => {
    const own = await freePort();
    const msg = await refused(node(httpService(`server.listen(${own}, '127.0.0.1')`)));
    assert.match(
      msg,
      new RegExp(
        `never answered on PORT \\(\\d+\\): it listens on ${own} instead\\. Make it listen on process\\.env\\.PORT`,
      ),
    );
  });

  test('a path that answers 404, and one that answers 500, through nginx', async () => {
    assert.match(
      await refused(node(httpService()), { paths: '/,/nope' }),
      /^GET \/nope answered 404 through nginx: every path must answer 2xx or 3xx before it is measured; fix the path \(PATHS=…\) or the app$/,
    );
    assert.match(
      await refused(node(httpService()), { paths: '/health,POST /fail {"a":1}' }),
      /^POST \/fail answered 500 through nginx/,
    );
  });

  test('a port already taken', async () => {
    const holder = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => holder.once('listening', r));
    const { port } = /** @type {net.AddressInfo} */ (holder.address());
    try {
      const msg = await refused(node(httpService(`server.listen(${port}, '127.0.0.1')`)));
      assert.match(
        msg,
        new RegExp(
          `could not listen: port ${port} is already taken\\. ` +
            `Make the app listen on process\\.env\\.PORT .*or stop what holds port ${port}`,
        ),
      );
    } finally {
      holder.close();
    }
  });

  test('an app that stops at start names its error', async () => {
    assert.match(
      await refused(node("throw new Error('DATABASE_URL is not set');")),
      /stopped at start \(exit code 1\); it last said: Error: DATABASE_URL is not set\. Run its start command by hand in /,
    );
  });

  test('the CLI: one line on stderr, exit 2, for a missing folder, an empty one and a bad PATHS', () => {
    const empty = userFolder('cli-empty', {});
    const ok = userFolder('cli-ok', node(httpService()));
    /** @type {[string[], RegExp][]} */
    const cases = [
      [['--app', '/nonexistent/x'], /does not exist/],
      [['--app', empty], /no start command, no compose file and no package\.json/],
      [['--app', ok, '--paths', 'nope'], /PATHS: 'nope' is not/],
      [['--paths', '/'], /--paths goes with --app/],
    ];
    for (const [args, said] of cases) {
      const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, said);
    }
  });
});
