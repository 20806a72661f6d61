// What deploy-events.js prints under an event that missed the bar: nginx's lines of that event that
// say something went wrong (lib/drills/event-evidence.js), from `docker logs --timestamps` text.
import test from 'node:test';
import assert from 'node:assert/strict';
import { linesIn, noteworthy } from '../bench/lib/drills/event-evidence.js';

const access = (status, upstream, upstreamStatus, rt) =>
  `172.18.0.1 [04/Dec/2026:18:40:01 +0000] "POST /echo HTTP/1.1" ${status} 120 ` +
  `upstream=${upstream} upstream_status=${upstreamStatus} rt=${rt} urt=${rt}`;

test('an nginx line is shown for a 5xx, a retry, a slow answer or its own error log', () => {
  assert.equal(noteworthy(access(200, '10.0.1.5:3000', '200', '0.004'), 1000), false);
  assert.equal(noteworthy(access(502, '10.0.1.5:3000', '502', '0.004'), 1000), true);
  assert.equal(noteworthy(access(200, '10.0.1.5:3000, 10.0.1.6:3000', '502, 200', '0.010'), 1000), true);
  assert.equal(noteworthy(access(200, '10.0.1.5:3000', '200', '1.125'), 1000), true);
  assert.equal(noteworthy(access(200, '10.0.1.5:3000', '200', '0.999'), 1000), false);
  const reset = '2026/12/04 18:40:01 [error] 29#29: *1 recv() failed (104: Connection reset by peer) while '
    + 'reading response header from upstream';
  assert.equal(noteworthy(reset, 1000), true);
  assert.equal(noteworthy('2026/12/04 18:40:01 [notice] 1#1: signal process started', 1000), false);
});

test("only the event's window is shown, each line stamped, at most `limit`", () => {
  const at = (iso, line) => `${iso} ${line}`;
  const text = [
    at('2026-12-04T18:40:00.900000000Z', access(502, 'a:1', '502', '0.001')), // before the window
    at('2026-12-04T18:40:01.250000000Z', access(502, 'a:1', '502', '0.001')),
    at('2026-12-04T18:40:01.500000000Z', access(200, 'a:1', '200', '0.001')), // nothing wrong
    at('2026-12-04T18:40:02.000000000Z', access(504, 'a:1', '504', '1.001')),
    at('2026-12-04T18:40:03.000000000Z', access(502, 'a:1', '502', '0.001')), // after it
    'not a stamped line',
  ].join('\n');
  const fromMs = Date.parse('2026-12-04T18:40:01Z');
  const toMs = Date.parse('2026-12-04T18:40:03Z');
  const lines = linesIn(text, { fromMs, toMs, slowMs: 1000 });
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^18:40:01\.250 .*" 502 /);
  assert.match(lines[1], /^18:40:02\.000 .*" 504 /);
  assert.equal(linesIn(text, { fromMs, toMs, slowMs: 1000, limit: 1 }).length, 1);
});
