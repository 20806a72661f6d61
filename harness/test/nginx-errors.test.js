// nginx's own errors through the real nginx (the reference config of proxy/, which every sample's
// nginx/ copies byte for byte: configs.test.js), rendered for loopback by the local runner in front
// of node-replicas: each answers application/problem+json with its status and a title, an app's
// own error passes through as it is, and a POST that reached an app is never sent again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runnerFor } from '../runner/index.js';
import { tempRunDir, waitFor, runProcesses } from './helpers.js';

const { up, down, ps, signal, killHeld, restart } = runnerFor('processes');

/**
 * Sends raw bytes, reads until the server closes (or `timeoutMs`): { text, closedMs }.
 * @param {number} port @param {string | Buffer} bytes @param {number} [timeoutMs]
 */
function raw(port, bytes, timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(timeoutMs, () => { socket.destroy(); reject(new Error(`no close within ${timeoutMs} ms`)); });
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedMs: Date.now() - started }),
    );
  });
}

/** A raw HTTP answer: { status, headers, body }. */
function parse(text) {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

function assertProblem({ status, headers, body }, expected, title) {
  assert.equal(status, expected, `status (body: ${body.slice(0, 200)})`);
  assert.match(headers['content-type'] ?? '', /^application\/problem\+json/, `content type of the ${expected}`);
  const json = JSON.parse(body);
  assert.equal(json.status, expected, 'the body names the status');
  assert.equal(json.title, title);
  assert.equal(typeof json.detail, 'string');
  assert.doesNotMatch(body, /<html|nginx\//i, 'no HTML page, no version');
}

/**
 * An answer through nginx by fetch: { status, headers, body }.
 * @param {string} url @param {RequestInit} [init]
 */
async function fetchRaw(url, init) {
  const res = await fetch(url, { signal: AbortSignal.timeout(40_000), ...init });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

/** A JSON POST through nginx. @param {string} url @param {string} body */
const postJson = (url, body) =>
  fetchRaw(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** @typedef {{ runDir: string, base: string, port: number }} Run */

/** node-replicas (2 apps behind nginx) in a run folder of its own, taken down after `t`. @returns {Promise<Run>} */
async function startRun(t) {
  const runDir = tempRunDir('nginx-errors');
  t.after(async () => {
    await down({ runDir });
    assert.deepEqual(runProcesses(runDir), [], 'nothing of the run is left');
    fs.rmSync(runDir, { recursive: true, force: true });
  });
  const topo = await up({ sample: 'node-replicas', runDir, env: { HTTP_PORT: '0', REPLICAS: '2', CPUS: '1' } });
  return { runDir, base: topo.url, port: Number(new URL(topo.url).port) };
}

// nginx sends no answer on a client timeout: it logs 408 and closes the connection. What the
// client sees is the close, after client_header_timeout / client_body_timeout (10 s).
/** @param {Run} run */
async function slowClients({ runDir, port }) {
  const [header, body] = await Promise.all([
    raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n'),
    raw(port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{'),
  ]);
  for (const [what, res] of [['header', header], ['body', body]]) {
    assert.equal(res.text, '', `a slow ${what}: nothing sent back, no HTML page`);
    assert.ok(res.closedMs >= 9_000, `a slow ${what}: closed after the timeout, not at once (${res.closedMs} ms)`);
  }
  const log = await waitFor(
    () => {
      const text = fs.readFileSync(path.join(runDir, 'logs', 'nginx-access.log'), 'utf8');
      return (text.match(/" 408 /g) ?? []).length >= 2 ? text : undefined;
    },
    { what: "two 408 lines in nginx's access log (buffered: flushed every second)", timeoutMs: 10_000 },
  );
  assert.match(log, /"POST \/echo HTTP\/1.1" 408 /);
}

// app 1 down (refuses), app 2 stopped (SIGSTOP: the kernel accepts, nothing answers): the POST
// reaches app 2, which is then killed. nginx must answer 502 and not send the POST to app 1,
// back by then, which would answer 201.
/** @param {Run} run */
async function postToDyingApp({ runDir, base }) {
  await killHeld({ runDir, service: 'app', index: 1 });
  await signal({ runDir, service: 'app', index: 2, signal: 'SIGSTOP' });
  const answer = postJson(`${base}/echo`, '{"n":1}');
  // Give nginx time to pass app 1 by and write the POST to app 2.
  await new Promise((r) => setTimeout(r, 1500));
  await restart({ runDir, service: 'app', index: 1 });
  await signal({ runDir, service: 'app', index: 2, signal: 'SIGKILL' });
  assertProblem(await answer, 502, 'Bad Gateway');
  await waitFor(
    async () => (await ps({ runDir })).filter((r) => r.service === 'app' && r.status === 'running').length === 2,
    { what: 'app 2 back (restart: on-failure)', timeoutMs: 20_000 },
  );
}

test(
  "nginx answers its own errors as problem+json; an app's pass through; a POST that reached an app is not sent again",
  async (t) => {
    const run = await startRun(t);
    const { base, port } = run;

    await t.test('400: a request line nginx cannot read', async () => {
      assertProblem(parse((await raw(port, 'GARBAGE\r\n\r\n')).text), 400, 'Bad Request');
    });

    await t.test("431 (nginx's 494): a header above large_client_header_buffers", async () => {
      const res = await fetchRaw(`${base}/`, { headers: { 'x-big': 'a'.repeat(9000) } });
      assertProblem(res, 431, 'Request Header Fields Too Large');
    });

    await t.test('414: a request line too long', async () => {
      assertProblem(await fetchRaw(`${base}/${'a'.repeat(9000)}`), 414, 'URI Too Long');
    });

    await t.test('413: a body above client_max_body_size', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(1_100_000) });
      assertProblem(await postJson(`${base}/echo`, body), 413, 'Content Too Large');
    });

    await t.test("404: nginx's only location of its own, asked for from outside", async () => {
      assertProblem(await fetchRaw(`${base}/nginx-problem`), 404, 'Not Found');
    });

    await t.test('408: a slow client is cut off after 10 s, with no answer (logged as 408)', () => slowClients(run));

    await t.test("an app's own error passes through untouched", async () => {
      const res = await fetchRaw(`${base}/`, { method: 'DELETE' });
      assert.equal(res.status, 405);
      assert.match(res.headers['content-type'], /^application\/json/, "the app's own JSON, not nginx's problem+json");
      assert.match(res.body, /method DELETE not allowed/);
    });

    await t.test('a POST that reached an app which then died: 502, not sent again', () => postToDyingApp(run));

    await t.test('502: every instance down, for a GET and for a POST (no byte reached an app)', async () => {
      await killHeld({ runDir: run.runDir, service: 'app', index: 1 });
      await killHeld({ runDir: run.runDir, service: 'app', index: 2 });
      assertProblem(await fetchRaw(`${base}/`), 502, 'Bad Gateway');
      assertProblem(await postJson(`${base}/echo`, '{}'), 502, 'Bad Gateway');
    });
  },
);
