// PATHS=… → the app's own requests (x-bench `requests`), each a workload of its own.
// Syntax: comma-separated items, each `[METHOD ]/path[ BODY]`:
//   /                                   GET /
//   /search?q=a,b                       GET /search?q=a,b (a comma splits only before a path or a method)
//   POST /items {"name":"x"}            POST with a JSON body (content-type application/json)
//   PUT /items/1 @item.json             the body from a file (relative to where make runs)
//   POST /echo hello                    any other body is sent as text/plain
import fs from 'node:fs';
import path from 'node:path';
import { AppInputError } from './errors.js';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const MAX_REQUESTS = 8;
const ITEM = new RegExp(`^(?:(${METHODS.join('|')})\\s+)?(/\\S*)(?:\\s+([\\s\\S]+))?$`);
const SPLIT = new RegExp(`,(?=\\s*(?:(?:${METHODS.join('|')})\\s+)?/)`);

// A name for ids and file names: "/" -> root, "/api/items?x=1" -> api-items, POST -> post-…
/** @param {any} request */
function nameOf({ method, path: p }) {
  const words = p.split('?')[0].split('/').filter(Boolean).join('-').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  const base = words || 'root';
  return method === 'GET' ? base : `${method.toLowerCase()}-${base}`;
}

function bodyOf(text, cwd, item) {
  let raw = text.trim();
  if (raw.startsWith('@')) {
    const file = path.resolve(cwd, raw.slice(1));
    try { raw = fs.readFileSync(file, 'utf8'); } catch (e) { throw new AppInputError(`PATHS: ${item}: cannot read the body file ${file} (${e.code ?? e.message})`); }
  }
  try {
    return { body: JSON.parse(raw), content_type: 'application/json' };
  } catch {
    return { body: raw, content_type: 'text/plain' };
  }
}

/** Without PATHS (or the app's own x-bench.requests): GET /. */
export const DEFAULT_REQUESTS = Object.freeze([{ name: 'root', path: '/', method: 'GET' }]);

function named(requests) {
  const seen = new Map();
  return requests.map(({ name, ...r }) => {
    const base = name ?? nameOf(r);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { name: n === 1 ? base : `${base}-${n}`, ...r };
  });
}

/** An app's own x-bench.requests, checked and completed (method GET, a name). */
export function normalizeRequests(list, where) {
  if (!Array.isArray(list) || !list.length) throw new AppInputError(`${where} must be a list of { path, method?, body? }`);
  return named(list.map((r) => {
    if (typeof r?.path !== 'string' || !r.path.startsWith('/')) throw new AppInputError(`${where}: ${JSON.stringify(r)} has no path starting with /`);
    const method = String(r.method ?? 'GET').toUpperCase();
    if (!METHODS.includes(method)) throw new AppInputError(`${where}: ${method} ${r.path}: the methods are ${METHODS.join(', ')}`);
    return { ...r, method };
  }));
}

/**
 * The requests of a PATHS value, named uniquely; [{ name, path, method, body?, content_type? }].
 * @param {string} text @param {{ cwd?: string }} [options]
 */
export function parsePaths(text, { cwd = process.cwd() } = {}) {
  const items = String(text ?? '').split(SPLIT).map((s) => s.trim()).filter(Boolean);
  if (!items.length) throw new AppInputError('PATHS is empty: give the paths to load, e.g. PATHS=/,/search?q=a');
  if (items.length > MAX_REQUESTS) throw new AppInputError(`PATHS has ${items.length} requests: at most ${MAX_REQUESTS} (each is measured under every strategy at every budget)`);
  return named(items.map((item) => {
    const m = ITEM.exec(item);
    if (!m) throw new AppInputError(`PATHS: '${item}' is not [METHOD ]/path[ body]: a path starts with /, the methods are ${METHODS.join(', ')}`);
    const method = m[1] ?? 'GET';
    if (m[3] && !['POST', 'PUT', 'PATCH'].includes(method)) throw new AppInputError(`PATHS: '${item}': a body goes with POST, PUT or PATCH (write 'POST ${m[2]} ${m[3]}')`);
    return { path: m[2], method, ...(m[3] ? bodyOf(m[3], cwd, item) : {}) };
  }));
}

/** How a request reads in a line: `POST /items`. */
export const requestText = (r) => `${r.method ?? 'GET'} ${r.path}`;
