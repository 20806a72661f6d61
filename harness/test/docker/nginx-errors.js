// nginx's own errors through a sample's nginx on Docker (the image's nginx 1.30, not the machine's):
// a request line it cannot read, a header and a request line too long, a body too large. Each must
// be application/problem+json naming its status (harness/test/nginx-errors.test.js has every case
// through the local runner's nginx).
//
// Every case is sent on a raw socket and read until its Content-Length is in, not until the close:
// nginx answers a too-large body at once but then lingers on the connection reading the rest, and
// an HTTP client that waits to finish sending, or for the close, can stall.
import net from 'node:net';

const ANSWER_MS = 15_000;

/** The parsed answer once its head and Content-Length bytes of body are in, else null. */
function parse(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString('latin1');
  const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
  const body = buf.subarray(end + 4);
  if (Number.isFinite(length) && body.length < length) return null;
  return {
    status: Number(head.split(' ')[1]),
    type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '',
    body: body.subarray(0, Number.isFinite(length) ? length : body.length).toString('utf8'),
  };
}

/** Sends `bytes` to 127.0.0.1:port and resolves with nginx's answer; rejects naming `what`. */
function send(what, port, bytes) {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (err, answer) => {
      if (done) return;
      done = true;
      socket.destroy();
      if (err) reject(new Error(`${what}: ${err.message}`));
      else resolve(answer);
    };
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(ANSWER_MS, () => finish(new Error(`no whole answer in ${ANSWER_MS / 1000} s`)));
    socket.on('data', (/** @type {Buffer} */ c) => {
      buf = Buffer.concat([buf, c]);
      const answer = parse(buf);
      if (answer) finish(null, answer);
    });
    // nginx may reset a connection it stopped reading once it has answered: keep what came.
    const ended = (err) => {
      const answer = parse(buf);
      finish(answer ? null : err, answer);
    };
    socket.on('error', ended);
    socket.on('close', () => ended(new Error(`closed after ${buf.length} bytes`)));
  });
}

const request = (line, headers = [], body = '') =>
  [line, 'Host: 127.0.0.1', 'Connection: close', ...headers, '', body].join('\r\n');

/** Every way the answers fall short (empty when none). */
export async function nginxErrorProblems(base) {
  const port = Number(new URL(base).port);
  // Past 1 MiB by Content-Length: nginx answers 413 from the header, so only a part is sent.
  const bigBody = [`Content-Type: application/json`, `Content-Length: ${1_100_000}`];
  const cases = [
    ['a request line nginx cannot read', 400, 'GARBAGE\r\n\r\n'],
    ['a header above 8 KiB', 431, request('GET / HTTP/1.1', [`X-Big: ${'a'.repeat(9000)}`])],
    ['a request line above 8 KiB', 414, request(`GET /${'a'.repeat(9000)} HTTP/1.1`)],
    ['a body above 1 MiB', 413, request('POST /echo HTTP/1.1', bigBody, `{"pad":"${'x'.repeat(64_000)}`)],
  ];
  return checkAll(cases.map(([what, status, bytes]) => [what, status, () => send(what, port, bytes)]));
}

export async function checkAll(cases) {
  const problems = [];
  for (const [what, expected, answer] of cases) {
    const got = await answer();
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
