// make bench APP=…, the parts that start nothing: PATHS into requests, a start command into a
// launch spec, the generated folder's compose.yaml and x-bench, the launchers' pure pieces.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { parsePaths, normalizeRequests } from '../bench/lib/apps/requests.js';
import { lastMeaningfulLine } from '../bench/lib/apps/last-log.js';
import { prepareApp } from '../bench/lib/apps/prepare.js';
import { healthFromCheck } from '../bench/lib/apps/container.js';
import { AppInputError } from '../bench/lib/apps/errors.js';
import {
  parseListening, parseUnixListening, listenersOf, listeningPorts, processTree,
} from '../bench/wrap/listening.js';
import { userFolder, httpService, removeFolders } from './bench-app-helpers.js';

after(removeFolders);

test('PATHS: GETs, a comma inside a query, POST with a JSON body, a body from a file; names unique', () => {
  const dir = userFolder('paths', { 'item.json': '{"name":"from file"}' });
  const r = parsePaths(
    '/,/search?q=a,b,POST /items {"name":"x","tags":["a","b"]}, PUT /items/1 @item.json,/search?q=c,POST /echo hello',
    { cwd: dir },
  );
  assert.deepEqual(
    r.map((x) => `${x.name} ${x.method} ${x.path}`),
    [
      'root GET /',
      'search GET /search?q=a,b',
      'post-items POST /items',
      'put-items-1 PUT /items/1',
      'search-2 GET /search?q=c',
      'post-echo POST /echo',
    ],
  );
  assert.deepEqual(r[2].body, { name: 'x', tags: ['a', 'b'] });
  assert.equal(r[2].content_type, 'application/json');
  assert.deepEqual(r[3].body, { name: 'from file' });
  assert.equal(r[5].body, 'hello');
  assert.equal(r[5].content_type, 'text/plain');
});

test('PATHS: bad items are one line naming the item and the syntax', () => {
  /** @type {[string, RegExp][]} */
  const cases = [
    ['', /PATHS is empty/],
    ['search', /'search' is not \[METHOD \]\/path/],
    ['GET / {"a":1}', /a body goes with POST, PUT or PATCH/],
    ['POST /x @missing.json', /cannot read the body file/],
    [Array(9).fill('/').join(','), /at most 8/],
  ];
  for (const [text, said] of cases) {
    assert.throws(
      () => parsePaths(text),
      (e) => e instanceof AppInputError && said.test(e.message) && !e.message.includes('\n'),
      text,
    );
  }
  assert.throws(() => normalizeRequests([{ path: 'x' }], 'x-bench.requests'), /has no path starting with \//);
  assert.deepEqual(
    normalizeRequests([{ path: '/a' }, { path: '/a', method: 'post' }], 'w').map((x) => `${x.name} ${x.method}`),
    ['a GET', 'post-a POST'],
  );
});

test('/proc/net: listening TCP sockets by inode with their address, and listening Unix sockets', () => {
  const tail = '1 0000000000000000 100 0 0 10 0'; // the columns after the inode, alike on both lines
  const text = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0FA0 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 ${tail}
   1: 0100007F:0FA1 0100007F:A000 01 00000000:00000000 00:00000000 00000000     0        0 12346 ${tail}`;
  assert.deepEqual([...parseListening(text)], [['12345', { address: '127.0.0.1', port: 4000 }]]);
  const v6 = `  sl  local_address                         remote_address                        st
   0: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A 0:0 0:0 0 0 0 7 1 0
   1: 00000000000000000000000000000000:0BB9 00000000000000000000000000000000:0000 0A 0:0 0:0 0 0 0 8 1 0
   2: 0000000000000000FFFF00000100007F:0BBA 00000000000000000000000000000000:0000 0A 0:0 0:0 0 0 0 9 1 0`;
  assert.deepEqual([...parseListening(v6).values()], [
    { address: '::1', port: 3000 }, { address: '::', port: 3001 }, { address: '::ffff:127.0.0.1', port: 3002 },
  ]);
  const unix = `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 4242 \${PORT:-3000}
0000000000000000: 00000003 00000000 00000000 0001 03 4243 /run/other.sock
0000000000000000: 00000002 00000000 00010000 0001 01 4244 @abstract`;
  assert.deepEqual([...parseUnixListening(unix)], [['4242', '$' + '{PORT:-3000}'], ['4244', '@abstract']]);
});

test('where a real server listens, from /proc: TCP with its address, a Unix socket, the process tree', async () => {
  const dir = userFolder('listen', {});
  const servers = [net.createServer().listen(0, '127.0.0.1'), net.createServer().listen(path.join(dir, 'api.sock'))];
  await Promise.all(servers.map((s) => new Promise((r) => s.once('listening', r))));
  try {
    const tcpPort = /** @type {net.AddressInfo} */ (servers[0].address()).port;
    const mine = listenersOf(process.pid);
    const tcp = mine.find((l) => l.kind === 'tcp' && l.port === tcpPort);
    assert.equal(tcp?.address, '127.0.0.1', JSON.stringify(mine));
    assert.ok(mine.some((l) => l.kind === 'unix' && l.path === path.join(dir, 'api.sock')), JSON.stringify(mine));
    assert.ok(listeningPorts(process.pid).includes(tcpPort));
    assert.equal(processTree(process.pid)[0], process.pid);
  } finally {
    for (const s of servers) s.close();
  }
});

test('last log line: the error above a Node crash\'s stack, not "Node.js v24" nor the launcher\'s own lines', () => {
  const crash = `[bench-wrap 1] one process: node server.js
listening
node:events:497
      throw er; // Unhandled 'error' event
      ^

Error: listen EADDRINUSE: address already in use 127.0.0.1:3999
    at Server.setupListenHandle [as _listen2] (node:net:1940:16)
Emitted 'error' event on Server instance at:
    at emitErrorNT (node:net:1919:8) {
  code: 'EADDRINUSE',
  errno: -98,
  port: 3999
}

Node.js v24.21.0
[bench-wrap 1] cluster: process 7 exited (code 1), unplanned`;
  assert.equal(lastMeaningfulLine(crash), 'Error: listen EADDRINUSE: address already in use 127.0.0.1:3999');
  assert.equal(lastMeaningfulLine('started\nGET / 200 3 ms\n'), 'GET / 200 3 ms');
  assert.equal(lastMeaningfulLine('[bench-wrap 9] one process: node x.js\n'), null);
});

test('compose healthcheck: the path it asks on loopback', () => {
  assert.equal(
    healthFromCheck({ healthcheck: { test: ['CMD', 'wget', '-qO-', 'http://localhost:8000/healthz'] } }),
    '/healthz',
  );
  assert.equal(healthFromCheck({ healthcheck: { test: 'curl -f http://127.0.0.1:8080 || exit 1' } }), '/');
  assert.equal(healthFromCheck({ healthcheck: { test: ['CMD', 'pg_isready'] } }), null);
  assert.equal(healthFromCheck({}), null);
});

test(
  'a Node folder becomes a generated app: x-bench v2, the wrap launcher, the reference nginx, nothing started',
  async () => {
    const dir = userFolder('gen', {
      'package.json': JSON.stringify({
        name: '@acme/orders-api',
        scripts: { start: 'node server.js' },
        dependencies: {},
      }),
      'server.js': httpService(),
    });
    const out = path.join(userFolder('gen-out', {}), 'run');
    const app = await prepareApp({
      app: dir,
      paths: '/,POST /orders {"sku":"a"}',
      health: '/health',
      out,
      check: false,
    });
    assert.equal(app.name, 'orders-api');
    assert.equal(app.engine, 'processes');
    assert.equal(app.dir, path.join(out, 'orders-api'));
    const doc = YAML.parse(fs.readFileSync(path.join(app.dir, 'compose.yaml'), 'utf8'));
    const x = doc['x-bench'];
    assert.deepEqual(x, app.description);
    assert.equal(x.health, '/health');
    assert.deepEqual(x.strategies, ['one-process', 'cluster', 'pm2', 'replicas']);
    assert.deepEqual(x.process_managers, ['cluster', 'pm2']);
    assert.deepEqual(x.engines, ['processes']);
    assert.deepEqual(
      x.requests.map((r) => r.name),
      ['root', 'post-orders'],
    );
    assert.match(doc.services.app['x-local'].command[1], /harness\/bench\/wrap\/start\.js$/);
    assert.match(doc.services.app.healthcheck.test.at(-1), /:3000\/health$/);
    assert.equal(doc.services.nginx.environment.NGINX_UPSTREAM, 'app:3000');
    for (const f of ['nginx.conf', 'templates/default.conf.template', 'lb/least_conn.conf'])
      assert.ok(fs.existsSync(path.join(app.dir, 'nginx', f)), f);
    const launch = JSON.parse(fs.readFileSync(path.join(app.dir, 'launch.json'), 'utf8'));
    assert.deepEqual([launch.script, launch.execScript, launch.forks], ['node server.js', 'exec node server.js', true]);
    assert.equal(launch.entry, path.join(dir, 'server.js'));
    assert.equal(launch.npmEnv.npm_package_name, '@acme/orders-api', "npm's own environment for the script");
    assert.equal(launch.pathPrefix[0], path.join(dir, 'node_modules', '.bin'));
    assert.match(app.notes.join('\n'), /reusePort skipped: .*REUSE_PORT=1/);
    assert.equal(
      fs.readFileSync(path.join(dir, 'server.js'), 'utf8'),
      httpService(),
      "the app's own files are not changed",
    );
  },
);

test(
  'a Node folder with its own compose.yaml: the health path of its healthcheck and its x-bench requests count',
  async () => {
    const dir = userFolder('own-compose', {
      'package.json': JSON.stringify({ name: 'own', scripts: { start: 'node server.js' } }),
      'server.js': httpService(),
      'compose.yaml':
        'services:\n  api:\n    build: .\n    healthcheck:\n      test: ["CMD", "wget", "-qO-", "http://localhost:3000/ready"]\nx-bench:\n  requests:\n    - { path: /items }\n    - { path: /items, method: POST, body: { name: x } }\n',
    });
    const app = await prepareApp({ app: dir, out: path.join(userFolder('own-out', {}), 'run'), check: false });
    assert.equal(app.engine, 'processes', 'a Node folder runs as processes unless ENGINE=docker');
    assert.equal(app.description.health, '/ready');
    assert.deepEqual(
      app.description.requests.map((r) => `${r.name} ${r.method} ${r.path}`),
      ['items GET /items', 'post-items POST /items'],
    );
    const given = await prepareApp({
      app: dir,
      health: '/health',
      paths: '/',
      out: path.join(userFolder('own-out2', {}), 'run'),
      check: false,
    });
    assert.deepEqual(
      [given.description.health, given.description.requests.length],
      ['/health', 1],
      'HEALTH and PATHS win',
    );
  },
);
