// Keep-alive HTTP/1.1 connections to one server for the paced generator: each request's bytes are
// built once and written as they are, one request in flight per connection, responses framed by
// http1-parser.js. Read through `onread` into one reused buffer (no stream, no per-read allocation):
// what makes the generator cheap enough per request (harness/bench/README.md, "The paced generator").
import net from 'node:net';
import { ParseError, ResponseParser } from './http1-parser.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const READ_BYTES = 64 * 1024;

/**
 * One request, serialised: { method, path, body (a string, sent as UTF-8), headers } against `url`
 * (path defaults to the url's). A body gets Content-Length and, unless given, Content-Type
 * application/json. keepAlive false asks the server to close after answering.
 * @param {URL} url
 * @param {{ method?: string, path?: string, body?: string, headers?: Record<string, string> }} [request]
 */
export function requestShape(url, { method = 'GET', path, body, headers = {} } = {}, keepAlive = true) {
  const target = path ?? `${url.pathname}${url.search}`;
  if (!TOKEN.test(method)) throw new TypeError(`not an HTTP method: ${JSON.stringify(method)}`);
  if (!target.startsWith('/') || /\s/.test(target)) {
    throw new TypeError(`not a request path: ${JSON.stringify(target)}`);
  }
  if (body !== undefined && typeof body !== 'string') {
    throw new TypeError('a request body must be a string (JSON.stringify it first)');
  }
  const lines = [`${method} ${target} HTTP/1.1`];
  const named = new Set();
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || /[\r\n]/.test(String(value))) {
      throw new TypeError(`not a valid header: ${JSON.stringify(name)}`);
    }
    if (FRAMING.has(name.toLowerCase())) {
      throw new TypeError(`${name} is the generator's to set (the body and keepAlive decide it)`);
    }
    named.add(name.toLowerCase());
    lines.push(`${name}: ${value}`);
  }
  if (!named.has('host')) lines.splice(1, 0, `Host: ${url.host}`);
  if (body !== undefined || !SAFE.has(method)) {
    if (!named.has('content-type') && body !== undefined) lines.push('Content-Type: application/json');
    lines.push(`Content-Length: ${Buffer.byteLength(body ?? '')}`);
  }
  if (!keepAlive) lines.push('Connection: close');
  return {
    bytes: Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`),
    noBody: method === 'HEAD',
    safe: SAFE.has(method),
  };
}

/** The requests of a run, request i being shapes[i % length]: `requests` is [{ method, path, body, headers }]. */
export const requestShapes = (url, requests, keepAlive = true) =>
  requests.map((r) => requestShape(url, r, keepAlive));

class Connection {
  constructor(pool) {
    this.pool = pool;
    this.shape = null; // the request in flight, if any
    this.intended = 0;
    this.onDone = null;
    this.retry = false;
    this.sentAt = 0;
    this.answered = false; // a byte of the response came
    this.served = 0;
    this.status = 0; // set by the parser when the response is complete
    this.keepAlive = true;
    this.closed = false;
    pool.open.add(this);
    this.parser = new ResponseParser((status, keepAlive) => { this.status = status; this.keepAlive = keepAlive; });
    this.socket = net.connect({
      host: pool.host,
      port: pool.port,
      noDelay: true,
      onread: { buffer: pool.readBuffer, callback: (n, buf) => this.read(n, buf) },
    });
    this.socket.on('error', (err) => this.close(/** @type {NodeJS.ErrnoException} */ (err).code ?? err.message));
    this.socket.on('close', () => this.close('closed'));
  }

  send(shape, intended, onDone, retry) {
    this.shape = shape;
    this.intended = intended;
    this.onDone = onDone;
    this.retry = retry;
    this.answered = false;
    this.status = 0;
    this.sentAt = performance.now();
    this.parser.expect(shape.noBody);
    this.socket.write(shape.bytes);
  }

  read(n, buf) {
    this.answered = true;
    try {
      this.parser.execute(buf, 0, n);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      this.close('bad response');
      return false;
    }
    if (this.status !== 0) this.finish();
    return true;
  }

  finish() {
    const { shape, intended, onDone, status } = this;
    this.shape = null;
    this.served += 1;
    if (!this.keepAlive) {
      this.closed = true;
      this.socket.destroy();
    }
    onDone(intended, status, null);
    this.pool.released(this, shape);
  }

  close(why) {
    if (this.closed && this.shape === null) return;
    this.closed = true;
    this.socket.destroy();
    this.pool.open.delete(this);
    const { shape, intended, onDone } = this;
    this.shape = null;
    if (shape && why === 'closed' && this.parser.finish()) {
      onDone(intended, this.status, null); // a response delimited by the close
    } else if (shape) {
      // RFC 9112 §9.3.1: a reused connection the server closed before answering may not have seen the
      // request at all; a safe one is sent once more on a fresh connection. Anything else fails.
      if (shape.safe && !this.retry && this.served > 0 && !this.answered && why !== 'timeout' && !this.pool.destroyed) {
        this.pool.retries += 1;
        this.pool.send(shape, intended, onDone, true);
      } else onDone(intended, 0, why);
    }
    this.pool.released(this, null);
  }
}

/** Up to `max` keep-alive connections to host:port, opened as requests need them. */
export class Http1Pool {
  constructor({ host, port }, max, { timeoutMs = 5000 } = {}) {
    this.host = host;
    this.port = port;
    this.max = max;
    this.timeoutMs = timeoutMs;
    this.readBuffer = Buffer.allocUnsafe(READ_BYTES); // shared: a read is handled before the next one
    this.open = new Set();
    this.idle = []; // FIFO: the requests spread over every connection, as wrk's do
    this.idleHead = 0;
    this.queue = []; // [shape, intended, onDone, retry] waiting for a connection
    this.queueHead = 0;
    this.retries = 0;
    this.destroyed = false;
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(250, timeoutMs / 4)));
    this.sweeper.unref();
  }

  /** Sends now on an idle connection, a new one, or once one is free. onDone(intended, status, error). */
  send(shape, intended, onDone, retry = false) {
    if (this.destroyed) return onDone(intended, 0, 'destroyed');
    const conn = this.takeIdle() ?? (this.open.size < this.max ? new Connection(this) : null);
    if (conn) conn.send(shape, intended, onDone, retry);
    else this.queue.push(shape, intended, onDone, retry);
  }

  takeIdle() {
    while (this.idleHead < this.idle.length) {
      const conn = this.idle[this.idleHead];
      this.idleHead += 1;
      if (this.idleHead > 1024 && this.idleHead * 2 > this.idle.length) {
        this.idle = this.idle.slice(this.idleHead);
        this.idleHead = 0;
      }
      if (!conn.closed) return conn;
    }
    return null;
  }

  /** A connection finished its request (or closed): the next queued request takes it, or a new one. */
  released(conn, shape) {
    if (conn.closed) this.open.delete(conn);
    if (this.destroyed) return;
    const q = this.queue;
    const waiting = this.queueHead < q.length;
    const next = !waiting ? null : conn.closed ? (this.open.size < this.max ? new Connection(this) : null) : conn;
    if (next) {
      const h = this.queueHead;
      this.queueHead += 4;
      if (this.queueHead === q.length) {
        this.queue = [];
        this.queueHead = 0;
      } else if (h > 4096 && h * 2 > q.length) {
        this.queue = q.slice(this.queueHead);
        this.queueHead = 0;
      }
      next.send(q[h], q[h + 1], q[h + 2], q[h + 3]);
    } else if (!conn.closed && shape) this.idle.push(conn);
  }

  /** Requests in flight longer than timeoutMs fail and their connection is closed. */
  sweep() {
    const now = performance.now();
    for (const conn of this.open) if (conn.shape && now - conn.sentAt > this.timeoutMs) conn.close('timeout');
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.sweeper);
    for (const conn of [...this.open]) conn.close('destroyed');
    const q = this.queue;
    for (let h = this.queueHead; h < q.length; h += 4) q[h + 2](q[h + 1], 0, 'destroyed');
    this.queue = [];
    this.queueHead = 0;
  }
}
