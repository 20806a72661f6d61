import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError, isDatabaseUnavailable, toHttpError } from '../src/errors.js';
import mongoose from 'mongoose';
import { Item } from '../src/models/item.js';

// The validation error of a document, or undefined when it is valid (no database needed).
const invalid = (doc) => doc.validate().then(() => undefined, (err) => err);

test('body-parser errors keep their meaning: 400 malformed, 413 too large', () => {
  assert.equal(toHttpError({ type: 'entity.parse.failed', status: 400 }).status, 400);
  const big = toHttpError({ type: 'entity.too.large', status: 413, limit: 16384 });
  assert.deepEqual(big, { status: 413, body: { error: 'request body too large', limit: 16384 } });
});

test('mongoose validation → 400 naming the fields', async () => {
  const err = await invalid(new Item({ name: '', quantity: -3 }));
  const { status, body } = toHttpError(err);
  assert.equal(status, 400);
  assert.deepEqual(Object.keys(body.fields).sort(), ['name', 'quantity']);
});

test('cast error → 400; duplicate key → 409 naming the key', () => {
  assert.equal(toHttpError({ name: 'CastError', path: '_id', kind: 'ObjectId' }).status, 400);
  const dup = toHttpError({ name: 'MongoServerError', code: 11000, keyValue: { name: 'Anvil' } });
  assert.deepEqual(dup, { status: 409, body: { error: 'duplicate key', fields: ['name'] } });
});

test('database unreachable → 503', () => {
  for (const name of ['MongoServerSelectionError', 'MongooseServerSelectionError', 'MongoNetworkError',
    'MongoNotConnectedError', 'MongoPoolClearedError', 'PoolClearedOnNetworkError', 'MongoWaitQueueTimeoutError']) {
    assert.ok(isDatabaseUnavailable({ name }), name);
    assert.equal(toHttpError({ name, message: 'connect ECONNREFUSED' }).status, 503);
  }
  const buffered = { name: 'MongooseError', message: 'Cannot call `items.find()` before initial connection is complete if `bufferCommands = false`.' };
  assert.equal(toHttpError(buffered).status, 503);
  // A server-side error that is not about reachability stays a 500.
  assert.equal(toHttpError({ name: 'MongoServerError', code: 2, message: 'BadValue' }).status, 500);
});

test('HttpError and other 4xx pass through; anything else is a bare 500', () => {
  assert.deepEqual(toHttpError(new HttpError(404, 'nope')), { status: 404, body: { error: 'nope' } });
  assert.equal(toHttpError({ status: 415, expose: true, message: 'unsupported charset "X"' }).status, 415);
  const boom = toHttpError(new TypeError('secret internals at /app/src/x.js:1'));
  assert.deepEqual(boom, { status: 500, body: { error: 'internal error' } });
  assert.deepEqual(toHttpError(undefined), { status: 500, body: { error: 'internal error' } });
});

test('the real driver errors for an unreachable server map to 503', async () => {
  // Nothing listens on port 9: real mongoose, real driver, no server.
  const conn = mongoose.createConnection('mongodb://127.0.0.1:9/items', {
    serverSelectionTimeoutMS: 300, bufferCommands: false,
  });
  const connectError = await conn.asPromise().then(() => undefined, (err) => err);
  assert.ok(connectError, 'connecting must fail');
  assert.equal(toHttpError(connectError).status, 503, connectError.name);

  // bufferCommands: false — an operation without a connection fails at once instead of queueing.
  const Model = conn.model('Item', Item.schema);
  const opError = await Model.find().then(() => undefined, (err) => err);
  assert.ok(opError, 'the query must fail');
  assert.equal(toHttpError(opError).status, 503, `${opError.name}: ${opError.message}`);
  await conn.close().catch(() => {});
});
