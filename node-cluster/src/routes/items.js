// /api/items: CRUD on the Item model. Express 5 forwards rejected promises to the error handler.
import { Router } from 'express';
import { Item } from '../models/item.js';
import { HttpError } from '../errors.js';
import { isConnected } from '../db.js';
import { assertObjectId, parseListQuery, pickItemFields } from '../validation.js';

export const items = Router();

// Answer at once while the database is away instead of waiting for server selection.
items.use((_req, res, next) => {
  if (isConnected()) return next();
  res.set('Retry-After', '2');
  return next(new HttpError(503, 'database unavailable'));
});

const notFound = () => new HttpError(404, 'item not found');

items.get('/', async (req, res) => {
  const { filter, limit, skip } = parseListQuery(req.query);
  const docs = await Item.find(filter).sort({ _id: 1 }).skip(skip).limit(limit);
  res.json({ items: docs, limit, skip });
});

items.get('/:id', async (req, res) => {
  const doc = await Item.findById(assertObjectId(req.params.id));
  if (!doc) throw notFound();
  res.json(doc);
});

items.post('/', async (req, res) => {
  const doc = await Item.create(pickItemFields(req.body, { create: true }));
  res.status(201).location(`${req.baseUrl}/${doc.id}`).json(doc);
});

// PUT and PATCH both update the given fields (validators run on the new values).
const update = async (req, res) => {
  const id = assertObjectId(req.params.id);
  const fields = pickItemFields(req.body);
  if (Object.keys(fields).length === 0) {
    throw new HttpError(400, 'nothing to update: give name, description or quantity');
  }
  const doc = await Item.findByIdAndUpdate(id, { $set: fields }, { returnDocument: 'after', runValidators: true });
  if (!doc) throw notFound();
  res.json(doc);
};
items.put('/:id', update);
items.patch('/:id', update);

items.delete('/:id', async (req, res) => {
  const doc = await Item.findByIdAndDelete(assertObjectId(req.params.id));
  if (!doc) throw notFound();
  res.status(204).end();
});
