// make bench APP=…: a start command means what it means to npm. npm says what it hands `sh -c` and in
// which environment; sh expands the words; node reads its options — the entry the cluster module and
// PM2 fork is what the entry probe recorded from them, without running it. Every form npm scripts use,
// on a folder laid out as an installed app (a dependency's bin, a command runner like cross-env);
// where the app says why it is not reachable (start-watch.js) from what the system shows.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { npmStart, resolveEntry, StartError } from '../bench/wrap/entry-probe.js';
import { shapeOf } from '../bench/wrap/shell-script.js';
import { appEnv, npmAdditions } from '../bench/wrap/launch-spec.js';
import { modeOf } from '../bench/wrap/start.js';
import { causeOf, SETTLED_S } from '../bench/lib/apps/start-watch.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { userFolder, removeFolders } from './bench-app-helpers.js';

after(removeFolders);

// Any program of this folder that runs (instead of being recorded) leaves a line in this file.
const ran = path.join(userFolder('ran', {}), 'ran.txt');
const marks = (name) => `require('node:fs').appendFileSync(${JSON.stringify(ran)}, '${name}\\n');\n`;
// A command runner as cross-env is one: NAME=value words, then the command, started with those set.
const RUN_WITH = `#!/usr/bin/env node
const args = process.argv.slice(2);
const env = { ...process.env };
while (/^\\w+=/.test(args[0] ?? '')) { const [k, ...v] = args.shift().split('='); env[k] = v.join('='); }
if (!args.length) { console.error('run-with: no command given'); process.exit(1); }
const child = require('node:child_process').spawn(args[0], args.slice(1), { env, stdio: 'inherit' });
child.on('exit', (c) => process.exit(c));
`;

const dir = userFolder('start', {
  'package.json': JSON.stringify({
    name: '@acme/orders', version: '2.1.0', scripts: { start: 'node server.js', serve: 'node src' },
  }),
  'server.js': marks('server.js'),
  'build.js': marks('build.js'),
  'src/index.js': marks('src'),
  'tracing.js': marks('tracing.js'),
  '.env': 'APP_GREETING=hi\n',
  // A package's program that serves itself (json-server): it runs as far as its listen, no further.
  'node_modules/fake-server/cli.js': `#!/usr/bin/env node
require('node:http').createServer().listen(Number(process.env.PORT) || 0, () => { ${marks('fake-server')} });\n`,
  // One that starts the server in a child (nodemon, tsx): the child is what cluster and PM2 fork.
  'node_modules/spawner/cli.js': `#!/usr/bin/env node
require('node:child_process').spawn(process.execPath, ['--enable-source-maps', 'server.js', '--from-spawner'],
  { stdio: 'inherit' });\n`,
  'node_modules/run-with/cli.js': RUN_WITH,
  'node_modules/native/run': '#!/bin/sh\necho native\n',
});
fs.mkdirSync(path.join(dir, 'node_modules/.bin'));
const BINS = [
  ['fake-server', 'fake-server/cli.js'], ['run-with', 'run-with/cli.js'], ['native', 'native/run'],
  ['spawner', 'spawner/cli.js'],
];
for (const [bin, target] of BINS) {
  fs.chmodSync(path.join(dir, 'node_modules', target), 0o755);
  fs.symlinkSync(`../${target}`, path.join(dir, 'node_modules/.bin', bin));
}
const npm = npmStart({ dir });
const entryOf = (script, env = {}) => resolveEntry({ script, env: { ...npm.env, ...env }, cwd: dir, said: 'start' });
const real = (p) => fs.realpathSync(path.join(dir, p));

describe('the start command as npm and sh mean it, the entry from what node was asked to run', () => {
  test("npm's own script and environment: npm_package_*, the lifecycle, node_modules/.bin first on PATH", () => {
    assert.equal(npm.script, 'node server.js');
    assert.equal(npm.env.npm_package_name, '@acme/orders');
    assert.equal(npm.env.npm_package_version, '2.1.0');
    assert.equal(npm.env.npm_lifecycle_event, 'start');
    assert.equal(npm.env.PATH.split(':')[0], path.join(dir, 'node_modules/.bin'));
    assert.equal(npm.env.npm_config_ignore_scripts, undefined, "the probe's own npm flag is not the app's");
    const given = npmStart({ dir, start: 'node src --port $PORT' });
    assert.equal(given.script, 'node src --port $PORT');
    assert.equal(given.env.npm_lifecycle_script, 'node src --port $PORT');
    assert.equal(given.env.npm_package_name, '@acme/orders');
  });

  test('${VAR:-default}, ${VAR}, $VAR and quotes: expanded by sh, with PORT set and without', () => {
    assert.deepEqual(entryOf('node server.js -p ${PORT:-3000}').node.args, ['-p', '3000']);
    assert.deepEqual(entryOf('node server.js -p ${PORT:-3000}', { PORT: '4100' }).node.args, ['-p', '4100']);
    assert.deepEqual(entryOf('node server.js --port ${PORT} --p2=$PORT', { PORT: '4100' }).node.args,
      ['--port', '4100', '--p2=4100']);
    assert.deepEqual(entryOf(`node server.js "a b" 'c $PORT' "$PORT"`, { PORT: '4100' }).node.args,
      ['a b', 'c $PORT', '4100']);
  });

  test('VAR=value before the command; cross-env style runners; node --env-file and -r', () => {
    const assigned = entryOf('NODE_ENV=production API=http://x:$PORT node server.js', { PORT: '4100' }).node;
    assert.equal(assigned.entry, path.join(dir, 'server.js'));
    assert.deepEqual([assigned.env.NODE_ENV, assigned.env.API], ['production', 'http://x:4100']);
    const runner = entryOf('run-with NODE_ENV=production node server.js --x').node;
    assert.deepEqual([runner.entry, runner.args, runner.env.NODE_ENV],
      [path.join(dir, 'server.js'), ['--x'], 'production']);
    const envFile = entryOf('node --env-file=.env server.js').node;
    assert.deepEqual([envFile.execArgv, envFile.env.APP_GREETING], [['--env-file=.env'], 'hi']);
    const preload = entryOf('node -r ./tracing.js src').node;
    assert.deepEqual([preload.execArgv, preload.entry], [['-r', './tracing.js'], path.join(dir, 'src/index.js')]);
  });

  test("a bin of the app's own dependencies, through npx too; one that starts a child; npm run", () => {
    const bin = entryOf('fake-server db.json --port $PORT', { PORT: '4100' }).node;
    assert.deepEqual([bin.entry, bin.args], [real('node_modules/fake-server/cli.js'), ['db.json', '--port', '4100']]);
    const npx = entryOf('npx fake-server db.json').node;
    assert.deepEqual([npx.entry, npx.args], [real('node_modules/fake-server/cli.js'), ['db.json']]);
    const spawned = entryOf('spawner').node;
    assert.deepEqual([spawned.entry, spawned.execArgv, spawned.args],
      [path.join(dir, 'server.js'), ['--enable-source-maps'], ['--from-spawner']], 'the server its child would be');
    const viaNpm = entryOf('npm run serve -- --extra').node;
    assert.deepEqual([viaNpm.entry, viaNpm.args, viaNpm.env.npm_lifecycle_event],
      [path.join(dir, 'src/index.js'), ['--extra'], 'serve']);
  });

  test('&& chains and pipelines run as one sh -c process: no entry, and the reason; nothing probed', () => {
    const chain = entryOf('node build.js && node server.js');
    assert.deepEqual([chain.kind, chain.why],
      ['shell', 'start is a list of commands (&&), which sh runs as one process: no one Node entry']);
    assert.match(entryOf('node server.js | cat').why, /is a pipeline/);
    assert.match(entryOf('native --fast').why, /runs native, which is not a Node program/);
    assert.match(entryOf('node -e "1"').why, /no entry file to fork/);
  });

  test('what can not start: one line each, with what it printed', () => {
    /** @type {[string, RegExp][]} */
    const cases = [
      ['  ', /^start is empty/],
      ['PORT=1', /^start names no program: `PORT=1` only sets variables/],
      ['nodee server.js', /^start names no program: nodee is not on PATH, nor in node_modules\/\.bin/],
      ['node dist/main.js', /^start runs node on .*dist\/main\.js, which is not there: build the app first/],
      ['npx no-such-package-of-the-bench', /^start exited with code 1 before it started any Node program/],
      ["node 'unclosed", /^start: it is not valid sh: at 1:6: reached EOF without closing quote/],
    ];
    for (const [script, said] of cases) {
      assert.throws(() => entryOf(script), (e) => e instanceof StartError && said.test(e.message), script);
    }
    // npx never downloads in the probe: a package the app doesn't have is an error, npm's own words kept.
    assert.throws(() => entryOf('npx no-such-package-of-the-bench'), (e) => e instanceof StartError && /npm error/.test(e.output));
  });

  test('nothing of the app ran while it was probed', () => {
    assert.equal(fs.existsSync(ran), false, fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8') : '');
  });
});

test('shapes: one simple command or not; exec before the last command so sh hands over its process', () => {
  assert.deepEqual(shapeOf('NODE_ENV=production node s.js').execScript, 'NODE_ENV=production exec node s.js');
  assert.deepEqual(shapeOf('npm run build && node dist').execScript, 'npm run build && exec node dist');
  assert.equal(shapeOf('exec node s.js').execScript, 'exec node s.js');
  assert.equal(shapeOf('node a | pino-pretty').execScript, 'node a | pino-pretty', 'a pipeline keeps its shell');
  assert.deepEqual(shapeOf('"$NODE" s.js').program, { text: '"$NODE"', literal: false });
  assert.equal(shapeOf('node $(cat port)').compound, 'a command with a command substitution');
  assert.equal(shapeOf('node a\nnode b').compound, 'a list of commands (; or a newline)');
  assert.equal(shapeOf('# only a comment').empty, true);
});

test("the app's environment: npm's additions over the caller's, npm's folders first on PATH; modes", () => {
  const base = { PATH: '/usr/bin:/bin', HOME: '/root', PORT: '1' };
  const script = { ...base, PATH: '/a/node_modules/.bin:/node_modules/.bin:/usr/bin:/bin', npm_package_name: 'a' };
  const added = npmAdditions(script, base);
  assert.deepEqual(added.npmEnv, { npm_package_name: 'a' });
  assert.deepEqual(added.pathPrefix, ['/a/node_modules/.bin', '/node_modules/.bin']);
  assert.deepEqual(appEnv(added, { PATH: '/bin', PORT: '9', BENCH_WORKERS: '2' }), {
    PATH: '/a/node_modules/.bin:/node_modules/.bin:/bin', PORT: '9', npm_package_name: 'a',
  });
  assert.equal(modeOf({ BENCH_CLUSTERING: 'false', BENCH_PROCESS_MANAGER: 'pm2' }), 'one');
  assert.equal(modeOf({}), 'cluster');
  assert.equal(modeOf({ BENCH_PROCESS_MANAGER: 'reuseport' }), 'reuseport');
});

test('the cause in one line, from where the app listens', () => {
  const at = (listeners, more = {}) => causeOf({ port: 4100, listeners, health: '/health', seconds: 10, ...more });
  const tcp = (address, port) => ({ pid: 1, kind: 'tcp', address, port });
  assert.match(at([{ pid: 1, kind: 'unix', path: '${PORT:-3000}' }], { cwd: '/srv/app' }),
    /^listens on a Unix socket named '\$\{PORT:-3000\}' in \/srv\/app, not on TCP port 4100: the port word was not expanded/);
  assert.match(at([{ pid: 1, kind: 'unix', path: '/tmp/app.sock' }]), /given a path where a port number goes/);
  assert.match(at([tcp('0.0.0.0', 3000)]), /^listens on 0\.0\.0\.0:3000, not on its PORT 4100: make it listen on process\.env\.PORT/);
  assert.match(at([tcp('::1', 4100)]), /^listens on its PORT 4100 on the IPv6 loopback .* connects to 127\.0\.0\.1/);
  assert.match(at([tcp('10.1.2.3', 4100)]), /on the interface 10\.1\.2\.3 only/);
  assert.match(at([tcp('::', 4100)], { answered: 'answered 404' }),
    /^never became healthy: GET \/health on its PORT 4100 answered 404 for 10 s/);
  assert.match(at([]), /^runs, but listened on no port in 10 s \(its PORT was 4100\)/);
});

test('the bench README quotes the settle time the check uses', () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'harness/bench/README.md'), 'utf8');
  assert.match(doc, new RegExp(`for ${SETTLED_S} s is not waited for longer \\(\`SETTLED_S\``));
});

test('the launcher starts from a path with a space, through a symbolic link', () => {
  // A checkout in "My Projects", or reached through a link: the module's URL is percent-encoded and
  // resolves the link, so it matches neither the path node was given nor the folder's name.
  const home = userFolder('a space', {});
  const wrap = path.join(home, 'wrap link');
  fs.symlinkSync(path.join(REPO_ROOT, 'harness/bench/wrap'), wrap);
  const launch = path.join(home, 'launch.json');
  fs.writeFileSync(launch, JSON.stringify({
    name: 'echo', dir: home, script: 'echo started', execScript: 'exec echo started', npmEnv: {}, pathPrefix: [],
    forks: false, why: 'a shell command',
  }));
  const r = spawnSync(process.execPath, [path.join(wrap, 'start.js')], {
    env: { ...process.env, BENCH_LAUNCH: launch, BENCH_CLUSTERING: 'false' }, encoding: 'utf8', timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /one process: sh -c echo started\n/);
  assert.match(r.stdout, /^started$/m);
});
