// The paced generator's response framing: where each response ends, whatever the server's framing
// and wherever the reads split the bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseParser, ParseError, parseHead } from '../bench/lib/tools/http1-parser.js';

/** Feeds `text` split into pieces of `size` bytes (through one reused buffer, as the client reads). */
function feed(text, { size = Infinity, noBody = false, close = false, requests = 1 } = {}) {
  const seen = [];
  const p = new ResponseParser((status, keepAlive) => seen.push({ status, keepAlive }));
  const bytes = Buffer.from(text, 'latin1');
  const reused = Buffer.alloc(64 * 1024, 0x41); // stale bytes beyond each read must not be read
  let sent = 0;
  p.expect(noBody);
  for (let at = 0; at < bytes.length; at += size) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + size));
    piece.copy(reused);
    // Between responses, the next request is expected once the last one completed.
    const before = seen.length;
    p.execute(reused, 0, piece.length);
    if (seen.length > before && sent + 1 < requests) {
      sent += 1;
      p.expect(noBody);
    }
  }
  if (close) assert.ok(p.finish(), 'the close ends the response');
  return { seen, parser: p };
}

const ok = (body, extra = '') =>
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const chunked =
  'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '4;ext=1\r\n{"a"\r\nb\r\n:1234567890\r\n1\r\n}\r\n0\r\nX-Trailer: yes\r\n\r\n';

test('a Content-Length response ends after its body, split anywhere', () => {
  const text = ok('{"ok":true}');
  for (const size of [1, 2, 3, 7, 50, Infinity]) {
    const { seen, parser } = feed(text, { size });
    assert.deepEqual(seen, [{ status: 200, keepAlive: true }], `pieces of ${size}`);
    assert.ok(parser.idle);
  }
});

test('a chunked response ends after its last chunk and trailers, split anywhere', () => {
  for (let size = 1; size <= chunked.length; size += 1) {
    assert.deepEqual(feed(chunked, { size }).seen, [{ status: 201, keepAlive: true }], `pieces of ${size}`);
  }
});

test('responses one after another on a connection, each in its own framing', () => {
  // One request in flight per connection: a read never holds the end of one response and the start
  // of the next, which is only asked for once the last one ended.
  const text = ok('{}') + chunked + ok('', 'Connection: close\r\n');
  assert.deepEqual(
    feed(text, { size: 1, requests: 3 }).seen.map((s) => [s.status, s.keepAlive]),
    [
      [200, true],
      [201, true],
      [200, false],
    ],
  );
});

test('bytes that arrive when no request is waiting, or that are not a response, are refused', () => {
  assert.throws(() => feed(ok('{}') + ok('{}')), ParseError, 'a second response nobody asked for');
  assert.throws(() => feed('SSH-2.0-OpenSSH\r\n\r\n'), ParseError);
  assert.throws(() => feed('HTTP/1.1 2x0 OK\r\n\r\n'), ParseError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n'), ParseError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'), ParseError);
  assert.throws(
    () => feed(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70 * 1024)}`, { size: 8192 }),
    ParseError,
    'a head without end',
  );
  assert.throws(() => feed('HTTP/1.1 101 Switching Protocols\r\n\r\n'), ParseError);
});

test('no body: HEAD, 204 and 304; an interim 100 is skipped', () => {
  assert.deepEqual(feed('HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n', { noBody: true }).seen, [
    { status: 200, keepAlive: true },
  ]);
  assert.deepEqual(feed('HTTP/1.1 204 No Content\r\n\r\n').seen, [{ status: 204, keepAlive: true }]);
  assert.deepEqual(feed('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n').seen, [
    { status: 304, keepAlive: true },
  ]);
  assert.deepEqual(feed(`HTTP/1.1 100 Continue\r\n\r\n${ok('{}')}`, { size: 3 }).seen, [
    { status: 200, keepAlive: true },
  ]);
});

test('a response without a length ends when the connection closes, and the connection is not kept', () => {
  const { seen, parser } = feed('HTTP/1.1 200 OK\r\n\r\n{"streamed":true}', { close: true });
  assert.deepEqual(seen, [{ status: 200, keepAlive: false }]);
  const cut = feed('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"short"').parser;
  assert.equal(cut.finish(), false, 'a close before the whole body came is a failure');
  assert.ok(parser.idle);
});

test('keep-alive follows the version and the Connection header', () => {
  assert.equal(parseHead('HTTP/1.1 200 OK\r\nConnection: close').keepAlive, false);
  assert.equal(parseHead('HTTP/1.1 200 OK\r\nconnection: Keep-Alive, Upgrade').keepAlive, true);
  assert.equal(parseHead('HTTP/1.0 200 OK\r\nContent-Length: 0').keepAlive, false);
  assert.equal(parseHead('HTTP/1.0 200 OK\r\nConnection: keep-alive').keepAlive, true);
  assert.deepEqual(
    parseHead('HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 5'),
    { status: 503, keepAlive: true, length: 5, chunked: true },
  );
});
