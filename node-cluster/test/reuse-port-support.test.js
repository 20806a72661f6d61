// Where server.listen({ reusePort }) exists: the launcher stops with this reason elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reusePortUnsupported } from '../src/reuse-port-support.js';

test('Node >= 22.12 (23.x from 23.1) on Linux has reusePort', () => {
  for (const version of ['22.12.0', '22.20.1', '23.1.0', '24.0.0', '26.3.1']) {
    assert.equal(reusePortUnsupported({ version, platform: 'linux' }), undefined, version);
  }
});

test('older Node or another platform: one sentence saying which', () => {
  for (const version of ['20.19.0', '22.11.0', '23.0.0']) {
    assert.equal(reusePortUnsupported({ version, platform: 'linux' }), `server.listen({ reusePort }) needs Node >= 22.12, this is Node ${version}`);
  }
  assert.match(reusePortUnsupported({ version: '24.21.0', platform: 'darwin' }), /Linux only, this is darwin/);
});
