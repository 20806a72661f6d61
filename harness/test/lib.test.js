// The harness's shared helpers (harness/lib): loopback ports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { freePort } from '../lib/ports.js';

test('free ports come from below the ephemeral range, where outgoing connections cannot take them first', async () => {
  const lo = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (let i = 0; i < 20; i += 1) {
    const port = await freePort();
    assert.ok(port >= 20000 && port < lo, `${port} is below ${lo}`);
  }
});
