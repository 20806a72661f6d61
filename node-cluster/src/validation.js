// Request input checks that don't need the database.
import { HttpError } from './errors.js';

export const PAGING = Object.freeze({ defaultLimit: 20, maxLimit: 100, maxSkip: 10_000 });

// A query value as one string, or a 400: `?limit=1&limit=2` arrives as an array.
function single(query, name) {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, `${name} must be given once, as a plain value`, { fields: { [name]: 'not a single value' } });
  return v;
}

export function boundedInt(query, name, { min, max, fallback }) {
  const raw = single(query, name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new HttpError(400, `${name} must be an integer from ${min} to ${max}`, { fields: { [name]: `integer ${min}..${max}` } });
  }
  return Number(raw);
}

const LIST_PARAMS = new Set(['name', 'limit', 'skip']);

export function parseListQuery(query = {}) {
  // An unknown parameter (`?name[$ne]=x` included) is a mistake worth telling, not ignoring.
  const unknown = Object.keys(query).filter((k) => !LIST_PARAMS.has(k));
  if (unknown.length) {
    throw new HttpError(400, `unknown query parameter: ${unknown.join(', ')}`, { allowed: [...LIST_PARAMS] });
  }
  const filter = {};
  const name = single(query, 'name');
  if (name !== undefined) filter.name = name;
  return {
    filter,
    limit: boundedInt(query, 'limit', { min: 1, max: PAGING.maxLimit, fallback: PAGING.defaultLimit }),
    skip: boundedInt(query, 'skip', { min: 0, max: PAGING.maxSkip, fallback: 0 }),
  };
}

export function assertObjectId(id) {
  if (typeof id !== 'string' || !/^[0-9a-f]{24}$/i.test(id)) {
    throw new HttpError(400, 'invalid id: expected 24 hex characters', { fields: { id: 'invalid ObjectId' } });
  }
  return id;
}

export const ITEM_FIELDS = Object.freeze(['name', 'description', 'quantity']);

export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// Only the model's own fields reach mongoose: `$set`, `$where`, `_id` and friends are dropped,
// since sanitizeFilter protects filters but not update documents. `create` (POST) also takes
// `requestId`, checked here because mongoose would cast a number or a boolean to a string.
export function pickItemFields(body, { create = false } = {}) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, 'body must be a JSON object');
  }
  const out = {};
  for (const key of ITEM_FIELDS) if (Object.hasOwn(body, key)) out[key] = body[key];
  if (create && Object.hasOwn(body, 'requestId')) {
    if (typeof body.requestId !== 'string' || !REQUEST_ID.test(body.requestId)) {
      throw new HttpError(400, 'requestId must be a string of 1 to 64 letters, digits or . _ : -', { fields: { requestId: 'invalid' } });
    }
    out.requestId = body.requestId;
  }
  return out;
}
