// An app's own request other than a GET (make bench APP=… PATHS='POST /items {…}'): the cell carries
// it, and every generator that loads the cell sends its method, body and content type.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import * as wrk from '../bench/lib/tools/wrk.js';
import * as autocannon from '../bench/lib/tools/autocannon.js';
import * as paced from '../bench/lib/tools/paced.js';
import { requestOf } from '../bench/lib/workloads/index.js';

const seen = [];
let server;
let url;
before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (seen.length < 50_000) seen.push({ method: req.method, body, type: req.headers['content-type'] });
      res.end('{"ok":1}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/items`;
});
after(() => new Promise((r) => server.close(r)));

const app = {
  requests: [
    {
      name: 'post-items',
      path: '/items',
      method: 'POST',
      body: { name: 'a "quoted" name' },
      content_type: 'application/json',
    },
    { name: 'root', path: '/', method: 'GET' },
  ],
};

test("requestOf: a POST of the app's own requests, its body as JSON text; a GET or a bench workload is none", () => {
  assert.deepEqual(requestOf(app, 'post-items'), {
    method: 'POST',
    body: '{"name":"a \\"quoted\\" name"}',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(requestOf(app, 'root'), null);
  assert.equal(requestOf(app, 'light'), null);
});

test("wrk, autocannon and the paced generator send the request's method, body and content type", async () => {
  const request = requestOf(app, 'post-items');
  /** @type {[string, () => Promise<any>][]} */
  const generators = [
    ['wrk', () => wrk.run(/** @type {any} */ ({ url, connections: 2, durationS: 1, request }))],
    ['autocannon', () => autocannon.run(/** @type {any} */ ({ url, connections: 2, durationS: 0.5, request }))],
    ['paced', () => paced.run({ url, rate: 50, durationS: 0.4, ...request })],
  ];
  for (const [name, run] of generators) {
    seen.length = 0;
    const r = await run();
    assert.ok(r.requests > 0 && seen.length > 0, `${name}: requests were sent`);
    assert.ok(
      seen.every((s) => s.method === 'POST' && s.body === request.body && s.type === 'application/json'),
      `${name}: ${JSON.stringify(seen[0])}`,
    );
  }
});
