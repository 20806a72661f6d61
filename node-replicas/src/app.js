// The request handler: routing, input checks and the endpoints. No framework: node:http only.
import { setTimeout as sleep } from 'node:timers/promises';
import { BadRequest, parseQuery } from './params.js';
import { estimatePi } from './pi.js';
import { discardBody, hasBody, readBody } from './body.js';

const METHODS = new Set(['GET', 'HEAD']);
// POST /echo: the one route with a request body, for write traffic that needs no database.
const ECHO_MAX_BYTES = 64 * 1024;

export function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function createApp(config) {
  // draining: asked to stop (/ready 503); closing: no longer accepting, every answer closes its connection.
  const state = { hits: 0, draining: false, closing: false };
  const who = () => ({ instance: config.instance, pid: process.pid });

  const routes = {
    '/': {
      params: {},
      async run() {
        const hits = ++state.hits;
        if (config.homeDelayMs > 0) await sleep(config.homeDelayMs);
        return [200, { ...who(), hits, delayMs: config.homeDelayMs }];
      },
    },
    '/pi': {
      params: { samples: { min: 1, max: config.piMaxSamples, default: config.piDefaultSamples } },
      async run({ samples }) {
        return [200, { ...who(), samples, pi: estimatePi(samples) }];
      },
    },
    '/delay': {
      params: { ms: { min: 0, max: config.delayMaxMs, default: 0 } },
      async run({ ms }) {
        // A timer, not a busy wait: the event loop keeps serving other requests meanwhile.
        if (ms > 0) await sleep(ms);
        return [200, { ...who(), ms }];
      },
    },
    '/health': {
      params: {},
      async run() {
        return [200, { status: 'ok', ...who() }];
      },
    },
    '/ready': {
      params: {},
      async run() {
        return state.draining ? [503, { ready: false, reason: 'draining', ...who() }] : [200, { ready: true, ...who() }];
      },
    },
  };

  // 201 with the parsed JSON body; 400 for JSON that doesn't parse, 415 for another type, 413
  // above 64 KiB (unread, connection closed).
  async function echo(req, res, query) {
    // curl sends `Expect: 100-continue` with bodies over 1 KiB: invite a body this route accepts.
    const invite = /^100-continue$/i.test(req.headers.expect ?? '') && !(Number(req.headers['content-length']) > ECHO_MAX_BYTES);
    if (invite) res.writeContinue();
    const read = await readBody(req, ECHO_MAX_BYTES, { continued: invite });
    const headers = state.closing || !read.whole ? { Connection: 'close' } : {};
    if (!read.whole) return sendJson(res, 413, { error: `request body above ${ECHO_MAX_BYTES} bytes` }, headers);
    try {
      parseQuery(query, {});
    } catch (err) {
      if (err instanceof BadRequest) return sendJson(res, 400, { error: err.message }, headers);
      throw err;
    }
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      return sendJson(res, 415, { error: 'send the body as application/json' }, headers);
    }
    let body;
    try {
      body = JSON.parse(read.text);
    } catch {
      return sendJson(res, 400, { error: 'request body is not valid JSON' }, headers);
    }
    return sendJson(res, 201, { ...who(), echo: body }, state.closing ? { Connection: 'close' } : {});
  }

  async function handle(req, res) {
    const at = req.url.indexOf('?');
    const path = at < 0 ? req.url : req.url.slice(0, at);
    if (path === '/echo' && req.method === 'POST') return echo(req, res, at < 0 ? '' : req.url.slice(at + 1));
    // No other endpoint takes a body; one that can't be read and dropped whole closes the connection.
    const withBody = hasBody(req);
    const bodyRead = withBody ? await discardBody(req, config.bodyDiscardMaxBytes) : true;
    // Once closing, every answer closes its connection so the proxy stops reusing it.
    const headers = state.closing || !bodyRead ? { Connection: 'close' } : {};
    if (!req.url.startsWith('/')) {
      return sendJson(res, 400, { error: 'request target must be a path starting with /' }, headers);
    }
    if (path === '/echo') {
      return sendJson(res, 405, { error: `method ${req.method} not allowed; use POST` }, { ...headers, Allow: 'POST' });
    }
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!route) return sendJson(res, 404, { error: 'not found', paths: [...Object.keys(routes), '/echo'] }, headers);
    if (!METHODS.has(req.method)) {
      return sendJson(res, 405, { error: `method ${req.method} not allowed; use GET` }, { ...headers, Allow: 'GET, HEAD' });
    }
    if (withBody) return sendJson(res, 413, { error: 'this endpoint takes no request body' }, headers);
    let params;
    try {
      params = parseQuery(at < 0 ? '' : req.url.slice(at + 1), route.params);
    } catch (err) {
      if (err instanceof BadRequest) return sendJson(res, 400, { error: err.message }, headers);
      throw err;
    }
    const [status, answer] = await route.run(params);
    // Closing may have begun while this request waited.
    sendJson(res, status, answer, state.closing ? { Connection: 'close' } : {});
  }

  async function handler(req, res) {
    try {
      await handle(req, res);
    } catch (err) {
      console.error(`unexpected error on ${req.method} ${req.url}:`, err);
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' }, { Connection: 'close' });
      else res.destroy();
    }
  }

  // The paths it answers, for the metrics' route label (any other path counts as "other").
  const known = new Set([...Object.keys(routes), '/echo']);
  const routeOf = (url) => {
    const at = url.indexOf('?');
    const path = at < 0 ? url : url.slice(0, at);
    return known.has(path) ? path : 'other';
  };
  return { handler, state, routeOf };
}
