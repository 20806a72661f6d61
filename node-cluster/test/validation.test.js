import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertObjectId, parseListQuery, pickItemFields, PAGING } from '../src/validation.js';
import { HttpError } from '../src/errors.js';
import { Item } from '../src/models/item.js';

// The validation error of a document, or undefined when it is valid (no database needed).
const invalid = (doc) => doc.validate().then(() => undefined, (err) => err);

const is400 = (fn) => assert.throws(fn, (err) => err instanceof HttpError && err.status === 400);

test('list paging: defaults, bounds, and rejected values', () => {
  assert.deepEqual(parseListQuery({}), { filter: {}, limit: PAGING.defaultLimit, skip: 0 });
  assert.deepEqual(parseListQuery({ limit: '5', skip: '10', name: 'Anvil' }), { filter: { name: 'Anvil' }, limit: 5, skip: 10 });
  is400(() => parseListQuery({ limit: '0' }));
  is400(() => parseListQuery({ limit: String(PAGING.maxLimit + 1) }));
  is400(() => parseListQuery({ limit: '-1' }));
  is400(() => parseListQuery({ limit: '1e3' }));
  is400(() => parseListQuery({ skip: String(PAGING.maxSkip + 1) }));
  is400(() => parseListQuery({ limit: ['1', '2'] }));
  // With the extended query parser `?name[$ne]=x` becomes an object: refused, not passed on.
  is400(() => parseListQuery({ name: { $ne: 'x' } }));
  // With Express 5's default (simple) parser the same URL arrives as an unknown key.
  is400(() => parseListQuery({ 'name[$ne]': 'x' }));
  is400(() => parseListQuery({ sort: 'name' }));
});

test('ObjectId check', () => {
  assert.equal(assertObjectId('0123456789abcdef01234567'), '0123456789abcdef01234567');
  is400(() => assertObjectId('123'));
  is400(() => assertObjectId('zzzzzzzzzzzzzzzzzzzzzzzz'));
  is400(() => assertObjectId('aaaaaaaaaaaa')); // 12 chars: valid for mongoose, not for this API
});

test('only the model fields are taken from a body; operators and _id are dropped', () => {
  assert.deepEqual(
    pickItemFields({ name: 'a', quantity: 2, _id: 'x', $set: { name: 'b' }, $where: '1', extra: 1 }),
    { name: 'a', quantity: 2 },
  );
  is400(() => pickItemFields(null));
  is400(() => pickItemFields([{ name: 'a' }]));
  is400(() => pickItemFields('name'));
});

test('model validation names the failing fields', async () => {
  const missing = await invalid(new Item({}));
  assert.ok(missing.errors.name, 'name is required');

  const long = await invalid(new Item({ name: 'x'.repeat(101), quantity: -1 }));
  assert.deepEqual(Object.keys(long.errors).sort(), ['name', 'quantity']);

  assert.ok((await invalid(new Item({ name: 'ok', quantity: 1.5 }))).errors.quantity);
  assert.ok((await invalid(new Item({ name: '   ' }))).errors.name, 'blank after trim');

  // An operator object where a string belongs is a cast error, never a query.
  const injected = await invalid(new Item({ name: { $ne: null } }));
  assert.equal(injected.errors.name.name, 'CastError');

  assert.equal(await invalid(new Item({ name: 'Lamp', quantity: 3 })), undefined);
});

test('POST takes a requestId: a string of 1-64 safe characters, never cast; PUT/PATCH ignore it', async () => {
  assert.deepEqual(pickItemFields({ name: 'a', requestId: 'drill-1:2.3_x' }, { create: true }), { name: 'a', requestId: 'drill-1:2.3_x' });
  assert.deepEqual(pickItemFields({ name: 'a', requestId: 'x' }), { name: 'a' }, 'an update leaves it out');
  for (const bad of ['', 'a b', "quote'", 'x'.repeat(65), 42, true, null, ['a'], { $ne: null }]) {
    is400(() => pickItemFields({ name: 'a', requestId: bad }, { create: true }));
  }
  // The model says the same to anything that reaches it another way, and the id is not unique.
  assert.ok((await invalid(new Item({ name: 'a', requestId: 'x'.repeat(65) }))).errors.requestId);
  assert.ok((await invalid(new Item({ name: 'a', requestId: 'a;b' }))).errors.requestId);
  assert.equal(await invalid(new Item({ name: 'a', requestId: 'drill-7' })), undefined);
  const path = Item.schema.path('requestId');
  assert.equal(path.options.unique, undefined, 'requestId is not unique');
  assert.equal(path.options.index, true, 'requestId is indexed for the count by prefix');
});
