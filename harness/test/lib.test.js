// The harness's shared helpers (harness/lib): loopback ports and ranges of them, and polling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { freePort, freePortRange } from '../lib/ports.js';
import { waitFor } from '../lib/poll.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';

test('free ports come from below the ephemeral range, where outgoing connections cannot take them first', async () => {
  const lo = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (let i = 0; i < 20; i += 1) {
    const port = await freePort();
    assert.ok(port >= 20000 && port < lo, `${port} is below ${lo}`);
  }
});

test('a free port range: consecutive ports, all free, below the ephemeral range; none that holds a taken ' +
  'port', async () => {
  const lo = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const [first, last] = await freePortRange(5);
  assert.equal(last - first, 4);
  assert.ok(first >= 20000 && last < lo, `${first}-${last} is below ${lo}`);
  // All five bind, and a range is never handed out across a port someone holds.
  const held = [];
  try {
    for (let p = first; p <= last; p += 1)
      held.push(
        await new Promise((resolve, reject) => {
          const s = net.createServer().once('error', reject);
          s.listen({ host: '127.0.0.1', port: p, exclusive: true }, () => resolve(s));
        }),
      );
    for (let i = 0; i < 10; i += 1) {
      const [a, b] = await freePortRange(3);
      assert.ok(b < first || a > last, `${a}-${b} avoids the held ${first}-${last}`);
    }
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
});

test('a port is handed out once per process, even while nobody has bound it yet (deployments that start ' +
  'side by side pick their ports before any of them binds)', async () => {
  const seen = new Set();
  const take = (p, where) => {
    assert.ok(!seen.has(p), `${p} handed out again (${where})`);
    seen.add(p);
  };
  // 400 single ports and 100 ranges of 3 from about 12,000: picked at random without the
  // process's own record, a repeat among them is all but certain (birthday bound, p > 0.9999).
  for (let i = 0; i < 400; i += 1) take(await freePort(), 'single');
  for (let i = 0; i < 100; i += 1) {
    const [a, b] = await freePortRange(3);
    for (let p = a; p <= b; p += 1) take(p, `range ${a}-${b}`);
  }
});

test('a port another live process was handed out is not handed out here (test files pick side by side, ' +
  'each before it binds)', async () => {
  // The other process takes 300 ports and stays up. Without a record shared between processes, 400
  // picks here from about 12,000 would meet theirs about 9 times (none at all: p < 0.0001).
  const other = spawn(process.execPath, ['--input-type=module', '-e', `
    import { freePort } from ${JSON.stringify(new URL('../lib/ports.js', import.meta.url).href)};
    const ports = [];
    for (let i = 0; i < 300; i += 1) ports.push(await freePort());
    console.log(JSON.stringify(ports));
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));`], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const [line] = await once(readline.createInterface({ input: other.stdout }), 'line');
    const theirs = new Set(JSON.parse(line));
    assert.equal(theirs.size, 300);
    for (let i = 0; i < 400; i += 1) {
      const port = await freePort();
      assert.ok(!theirs.has(port), `${port} is the other process's`);
    }
  } finally {
    other.stdin.end();
    if (other.exitCode === null) await once(other, 'exit');
  }
});

test('waitFor returns the first truthy value; a check that throws ends the wait unless told to retry', async () => {
  let tries = 0;
  const flaky = () => { tries += 1; if (tries < 3) throw new Error(`refused #${tries}`); return tries; };
  await assert.rejects(waitFor(flaky, { what: 'a server' }), /^Error: refused #1$/);
  tries = 0;
  assert.equal(await waitFor(flaky, { what: 'a server', everyMs: 1, retryErrors: true }), 3);
});

test('waitFor with retryErrors names the error of the last try when it times out, and only that', async () => {
  await assert.rejects(
    waitFor(
      () => {
        throw new Error('connection refused');
      },
      { what: 'GET /', timeoutMs: 50, everyMs: 5, retryErrors: true },
    ),
    /^Error: timed out after 50 ms waiting for GET \/ \(last error: connection refused\)$/,
  );
  let tries = 0;
  const thenFalse = () => { tries += 1; if (tries === 1) throw new Error('refused'); return false; };
  await assert.rejects(waitFor(thenFalse, { what: 'GET /', timeoutMs: 50, everyMs: 5, retryErrors: true }),
    /^Error: timed out after 50 ms waiting for GET \/$/);
});
