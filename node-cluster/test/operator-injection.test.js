// Operator injection and casting, shown without a server: the app's mongoose settings (src/db.js:
// sanitizeFilter) and the Item model on a connection to a port nothing listens on, with
// bufferCommands: false as the app has it. A query that passes casting fails with "before initial
// connection is complete" (it would have been sent); one that casting refuses fails with a
// CastError before that, so the operator never reaches a server. mongo.test.js shows the same
// against a real mongod.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import '../src/db.js';
import { Item } from '../src/models/item.js';
import { toHttpError } from '../src/errors.js';

/** @type {import('mongoose').Connection} */
let conn;
/** @type {typeof Item} */
let Model;
before(async () => {
  conn = mongoose.createConnection('mongodb://127.0.0.1:9/items', { serverSelectionTimeoutMS: 300, bufferCommands: false });
  await conn.asPromise().catch(() => {}); // nothing listens on port 9: it fails, as meant
  Model = conn.model('Item', Item.schema);
});
after(() => conn.close().catch(() => {}));

const failure = (promise) => promise.then(() => assert.fail('expected a rejection'), (err) => err);
// The error of an operation that passed casting and would have gone to the server.
const wouldBeSent = (err) => err.name === 'MongooseError' && /before initial connection is complete/.test(err.message);

// Deliberately what a typed caller could not write: the values come from user input.
/** @type {Array<[string, any]>} */
const OPERATORS = [
  ['name', { $ne: null }],
  ['name', { $gt: '' }],
  ['name', { $regex: '.*' }],
  ['name', { $in: ['Anvil', 'Lamp'] }],
  ['quantity', { $gte: 0 }],
  ['_id', { $ne: null }],
];

test('an operator in a filter value is a CastError before any query, answered 400 naming the field', async () => {
  for (const [path, value] of OPERATORS) {
    for (const op of ['find', 'findOne', 'countDocuments', 'deleteMany']) {
      const err = await failure(Model[op]({ [path]: value }));
      assert.equal(err.name, 'CastError', `${op}({ ${path}: ${JSON.stringify(value)} }): ${err.message}`);
      assert.equal(err.path, path);
      assert.deepEqual(toHttpError(err), { status: 400, body: { error: `invalid value for ${path}`, fields: { [path]: `invalid value for ${path}` } } });
    }
  }
});

test('the same filter made trusted passes casting: sanitizeFilter is what refuses it', async () => {
  for (const [path, value] of OPERATORS) {
    const err = await failure(Model.countDocuments({ [path]: mongoose.trusted(value) }));
    assert.ok(wouldBeSent(err), `${path}: ${err.name}: ${err.message}`);
  }
});

test('plain values, and an explicit $eq, are queried as given', async () => {
  /** @type {any[]} */
  const filters = [{ name: 'Anvil' }, { name: { $eq: 'Anvil' } }, { quantity: 3 }, { _id: '0123456789abcdef01234567' }];
  for (const filter of filters) {
    const err = await failure(Model.find(filter));
    assert.ok(wouldBeSent(err), `${JSON.stringify(filter)}: ${err.name}: ${err.message}`);
    assert.equal(toHttpError(err).status, 503);
  }
  // $eq with an object is still cast to the path's type.
  assert.equal((await failure(Model.find(/** @type {any} */ ({ name: { $eq: { $ne: null } } })))).name, 'CastError');
});

test('$where and $expr are refused outright with sanitizeFilter, before any query', async () => {
  for (const filter of [{ $where: 'sleep(1000) || true' }, { $expr: { $gt: ['$quantity', 0] } }]) {
    const err = await failure(Model.find(filter));
    assert.match(err.message, /is not allowed with sanitizeFilter/);
  }
});

test('an operator in an update value, or in a new document, is refused before any query: 400', async () => {
  const id = '0123456789abcdef01234567';
  const update = await failure(Model.findByIdAndUpdate(id, { $set: { name: { $ne: null } } }, { returnDocument: 'after', runValidators: true }));
  assert.equal(update.name, 'CastError', update.message);
  assert.equal(toHttpError(update).status, 400);

  const qty = await failure(Model.findByIdAndUpdate(id, { $set: { quantity: { $gt: 1 } } }, { runValidators: true }));
  assert.deepEqual([qty.name, qty.path, toHttpError(qty).status], ['CastError', 'quantity', 400]);

  const created = await failure(Model.create(/** @type {any} */ ({ name: { $ne: null } })));
  assert.equal(created.name, 'ValidationError');
  assert.deepEqual(toHttpError(created), { status: 400, body: { error: 'validation failed', fields: { name: 'invalid value for name' } } });

  const plain = await failure(Model.findByIdAndUpdate(id, { $set: { name: 'Lamp' } }, { runValidators: true }));
  assert.ok(wouldBeSent(plain), `${plain.name}: ${plain.message}`);
});
