// Maps any error to an HTTP status and a small JSON body. Never returns a stack or driver text
// for a 5xx; 4xx bodies name what was wrong so a client can fix its request.
export class HttpError extends Error {
  constructor(status, message, extra = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

// Driver and mongoose errors (by name, from mongodb's lib/error.js and cmap/errors.js) that mean
// "the database can't be reached or can't take this request right now": a 503, not a 500.
const UNAVAILABLE = new Set([
  'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError',
  'MongooseServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError',
  'MongoServerClosedError', 'MongoClientClosedError', 'MongoPoolClosedError', 'MongoPoolClearedError',
  'PoolClearedOnNetworkError', 'MongoWaitQueueTimeoutError',
]);

export function isDatabaseUnavailable(err) {
  if (!err) return false;
  if (UNAVAILABLE.has(err.name)) return true;
  // mongoose with bufferCommands: false, before the first connection succeeded.
  return err.name === 'MongooseError' && /before initial connection is complete/.test(err.message ?? '');
}

function fieldMessages(errors) {
  const fields = {};
  for (const [path, e] of Object.entries(errors ?? {})) {
    fields[path] = e?.kind === 'ObjectId' || e?.name === 'CastError'
      ? `invalid value for ${path}`
      : (e?.message ?? 'invalid');
  }
  return fields;
}

export function toHttpError(err) {
  if (err instanceof HttpError) {
    return { status: err.status, body: { error: err.message, ...err.extra } };
  }
  // body-parser (express.json) errors carry a `type`.
  if (err?.type === 'entity.parse.failed') return { status: 400, body: { error: 'malformed JSON body' } };
  if (err?.type === 'entity.too.large') {
    return { status: 413, body: { error: 'request body too large', limit: err.limit } };
  }
  if (err?.name === 'ValidationError') {
    return { status: 400, body: { error: 'validation failed', fields: fieldMessages(err.errors) } };
  }
  if (err?.name === 'CastError') {
    return { status: 400, body: { error: `invalid value for ${err.path}`, fields: { [err.path]: `invalid value for ${err.path}` } } };
  }
  if (err?.code === 11000) {
    const fields = Object.keys(err.keyValue ?? err.keyPattern ?? {});
    return { status: 409, body: { error: 'duplicate key', fields } };
  }
  if (isDatabaseUnavailable(err)) return { status: 503, body: { error: 'database unavailable' } };
  // Other client errors raised by Express or body-parser (e.g. 415 unsupported charset).
  const status = Number(err?.status ?? err?.statusCode);
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    return { status, body: { error: err.expose && err.message ? err.message : 'bad request' } };
  }
  return { status: 500, body: { error: 'internal error' } };
}
