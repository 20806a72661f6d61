// The bad-input matrix through the real nginx: the app's 4xx reach the client unchanged, what
// nginx refuses itself is a 4xx too, and no case yields a 5xx or takes a replica down.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runnerFor } from '../../harness/runner/index.js';
import { startTopology } from './helpers/topology.js';
import { cases } from './helpers/bad-input.js';
import { request, rawExchange, statusOf } from './helpers/http.js';

const { ps } = runnerFor('processes');

test('bad input through nginx answers 4xx, never 5xx', async (t) => {
  const { url, runDir, topo } = await startTopology(t, { REPLICAS: '2' });
  for (const c of cases) {
    const res = await request(`${url}${c.path}`, { method: c.method, headers: c.headers, body: c.body });
    assert.equal(res.status, c.status, `${c.name}: ${res.status} ${res.text}`);
    assert.equal(typeof res.json?.error, 'string', `${c.name}: ${res.text}`);
  }

  // Refused by nginx before any replica sees them.
  const nginxPort = topo.services.nginx.instances[0].port;
  /** @type {[string, () => Promise<{ status: number }>][]} */
  const refusedByNginx = [
    ['a 2 MB body (client_max_body_size 1m)', () => request(`${url}/`, { method: 'POST', body: 'x'.repeat(2_000_000) })],
    ['a 20 kB header', () => request(`${url}/`, { headers: { 'X-Big': 'a'.repeat(20_000) } })],
    ['a malformed request line', async () => ({ status: statusOf(await rawExchange(nginxPort, 'HELLO THERE\r\n\r\n')) })],
    ['an absolute-form target to another host', async () => ({
      status: statusOf(await rawExchange(nginxPort, 'GET http://elsewhere/admin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')),
    })],
  ];
  for (const [name, send] of refusedByNginx) {
    const { status } = await send();
    assert.ok(status >= 400 && status < 500, `${name}: ${status}`);
  }

  for (const p of await ps({ runDir })) assert.equal(p.status, 'running', `${p.service}-${p.index}`);
  assert.equal((await request(`${url}/`)).status, 200);
});
