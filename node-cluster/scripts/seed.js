// Seeds the items collection from database/mongo/items.json (idempotent: upserts by name) and
// builds the model's indexes. Used by the local runner's post_start; the Docker image seeds with
// database/mongo/01-init.js instead.
import fs from 'node:fs';
import mongoose from 'mongoose';
import { Item } from '../src/models/item.js';

const uri = process.env.MONGODB_URI || 'mongodb://127.0.0.1:27017/items';
const file = new URL('../../database/mongo/items.json', import.meta.url);
const items = JSON.parse(fs.readFileSync(file, 'utf8'));

await mongoose.connect(uri, { serverSelectionTimeoutMS: 10_000 });
try {
  await Item.syncIndexes();
  const result = await Item.bulkWrite(items.map((item) => ({
    updateOne: { filter: { name: item.name }, update: { $setOnInsert: item }, upsert: true },
  })));
  console.log(JSON.stringify({ msg: 'seeded', items: items.length, inserted: result.upsertedCount }));
} finally {
  await mongoose.disconnect();
}
