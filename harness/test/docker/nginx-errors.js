// nginx's own errors through a sample's nginx on Docker (the image's nginx 1.30, not the machine's):
// a request line it cannot read, a header and a request line too long, a body too large. Each must
// be application/problem+json naming its status (harness/test/nginx-errors.test.js has every case
// through the local runner's nginx).
import net from 'node:net';

function rawStatus(port, bytes) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(15_000, () => { socket.destroy(); reject(new Error('no answer in 15 s')); });
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '', body });
    });
  });
}

async function viaFetch(url, init) {
  const res = await fetch(url, { signal: AbortSignal.timeout(40_000), ...init });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** Every way the answers fall short (empty when none). */
export async function nginxErrorProblems(base) {
  const port = Number(new URL(base).port);
  const cases = [
    ['a request line nginx cannot read', 400, () => rawStatus(port, 'GARBAGE\r\n\r\n')],
    ['a header above 8 KiB', 431, () => viaFetch(`${base}/`, { headers: { 'x-big': 'a'.repeat(9000) } })],
    ['a request line above 8 KiB', 414, () => viaFetch(`${base}/${'a'.repeat(9000)}`)],
    [
      'a body above 1 MiB',
      413,
      () =>
        viaFetch(`${base}/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
        }),
    ],
  ];
  return checkAll(cases);
}

export async function checkAll(cases) {
  const problems = [];
  for (const [what, expected, send] of cases) {
    const got = await send();
    let json;
    try { json = JSON.parse(got.body); } catch { json = null; }
    const isProblem = /^application\/problem\+json/.test(got.type) && json?.status === expected && json?.title;
    if (got.status !== expected || !isProblem) {
      problems.push(
        `${what}: expected ${expected} problem+json, got ${got.status} ${got.type}: ${got.body.slice(0, 120)}`,
      );
    }
  }
  return problems;
}
