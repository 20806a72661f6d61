// make bench APP=… given bad input: a folder that doesn't exist; one with no start command, no
// compose file and no package.json; a start script that is empty, names no program, or exits at
// once; an app that is not reachable (its health path failing, listening on a port of its own, on a
// Unix socket, on ::1 only); a path answering 4xx or 5xx; a port already taken. Each is one line
// naming what happened — exit 2 from the CLI — then, where the app ran, the evidence: where it
// listens, its last output. Nothing is left: no process, no cgroup, nothing in the user's folder, no
// generated folder but the check's logs the message names.
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
import {
  userFolder, httpService, removeFolders, leftRunning, cgroupsLeft, folderState, processesIn,
} from './bench-app-helpers.js';

after(removeFolders);

const CLI = path.join(REPO_ROOT, 'harness', 'bench', 'cli.js');

/**
 * prepareApp on a service folder: resolves to the error's one line (`.line`) and its evidence (the
 * lines under it), after checking nothing is left.
 */
async function refusal(files, options = {}) {
  const dir = files ? userFolder('bad', files) : options.app;
  const before = dir && fs.existsSync(dir) ? folderState(dir) : null;
  const out = path.join(userFolder('bad-out', {}), 'run');
  const err = await prepareApp({ app: dir, out, healthTimeoutS: 3, ...options }).then(
    () => null,
    (e) => e,
  );
  assert.ok(err instanceof AppInputError, `rejected as bad input: ${err?.stack ?? 'it was accepted'}`);
  const [line, ...evidence] = err.message.split('\n');
  assert.equal(line, err.line, 'one line first');
  for (const l of evidence) assert.match(l, /^ {2}/, 'then the evidence, indented');
  const left = fs.existsSync(out) ? fs.readdirSync(out, { recursive: true }).map(String) : [];
  assert.ok(left.every((f) => /^check(\/logs(\/.*\.log)?)?$/.test(f)), `only the check's logs are left: ${left}`);
  if (before) assert.deepEqual(folderState(dir), before, "nothing written into the user's folder");
  assert.deepEqual(leftRunning(path.join(out, 'check')), [], 'no process of the check left');
  const name = files?.['package.json'] ? JSON.parse(files['package.json']).name : path.basename(dir ?? '');
  if (name) assert.deepEqual(cgroupsLeft(name.toLowerCase()), [], 'no cgroup of the check left');
  assert.deepEqual(processesIn(dir ?? '/nonexistent'), [], "no process left running in the user's folder");
  return { line, evidence: evidence.join('\n') };
}

/** The one line of a refusal. */
const refused = async (files, options) => (await refusal(files, options)).line;

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

  test('a start script that is empty, names no program, or exits at once before any Node program', async () => {
    const pkg = (start) => ({ 'package.json': JSON.stringify({ name: 'x', scripts: { start } }), 's.js': '' });
    assert.match(await refused(pkg('  ')), /^package\.json's "start" script in .* is empty/);
    assert.match(await refused(pkg('PORT=3000')), /^package\.json's "start" script names no program: `PORT=3000` only/);
    assert.match(await refused(pkg('nodee s.js')), /^package\.json's "start" script names no program: nodee is not on PATH/);
    assert.match(await refused(pkg('node dist/main.js')), /runs node on .*dist\/main\.js, which is not there: build the app/);
    const { line, evidence } = await refusal(pkg('npx no-such-package-of-the-bench --port $PORT'));
    assert.match(line, /^package\.json's "start" script exited with code 1 before it started any Node program$/);
    assert.match(evidence, /^ {2}it printed:\n {4}\| npm error/);
    assert.match(await refused(pkg('node s.js'), { start: 'node s.js --port {port}' }), /^START: \{port\} is not filled in/);
  });
});

describe('make bench APP=: an app failing its checks, one line each, nothing left', () => {
  test('an app that never becomes healthy: its health path answers 500', async () => {
    assert.match(
      await refused(node(httpService()), { health: '/fail' }),
      /never became healthy: GET \/fail on its PORT \d+ answered 500 for \d+ s.*give HEALTH=\/your\/health\/path/,
    );
  });

  test('an app that never becomes healthy: it listens on a port of its own, not PORT', async () => {
    const own = await freePort();
    const msg = await refused(node(httpService(`server.listen(${own}, '127.0.0.1')`)));
    assert.match(
      msg,
      new RegExp(
        `listens on 127\\.0\\.0\\.1:${own}, not on its PORT \\d+: make it listen on process\\.env\\.PORT`,
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

});

describe('make bench APP=: an app that exits or listens elsewhere: the cause in one line, the evidence', () => {
  test('an app that exits at start: its error in the line, its own last output under it', async () => {
    const { line, evidence } = await refusal(node("console.log('connecting');\nthrow new Error('DB_URL is not set');"));
    assert.match(line, /exited at start \(exit code 1\): Error: DB_URL is not set$/);
    assert.match(evidence, /its last output \(.*-app-1\.log\):\n {4}\| .*Error: DB_URL is not set/);
  });

  test('an app on a Unix socket named by an unexpanded port word: said so, the socket file gone', async () => {
    const files = node(httpService('server.listen(process.argv[2])'));
    const { line, evidence } = await refusal(files, { start: "node server.js '${PORT:-3000}'" });
    assert.match(line, new RegExp("listens on a Unix socket named '\\$\\{PORT:-3000\\}' in /.*, not on TCP port \\d+: "
      + 'the port word was not expanded'));
    assert.match(evidence, /where it listens \(read from \/proc\):\n {4}Unix socket '\$\{PORT:-3000\}' \(pid \d+: node /);
  });

  test('an app on ::1 only: the address, and that the bench connects to 127.0.0.1', async () => {
    const { line } = await refusal(node(httpService("server.listen(Number(process.env.PORT), '::1')")));
    assert.match(line, /listens on its PORT \d+ on the IPv6 loopback .*the bench connects to 127\.0\.0\.1/);
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
