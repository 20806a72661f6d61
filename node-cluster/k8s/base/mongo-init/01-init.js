// Run once by the official mongo image (docker-entrypoint-initdb.d, with mongosh) on an empty
// data volume: creates the app's user, the unique index on name, and the seed items.
// The local runner seeds with node-cluster/scripts/seed.js from the same items.json.
const fs = require('fs');

const dbName = process.env.MONGO_INITDB_DATABASE || 'items';
const target = db.getSiblingDB(dbName);

// The app's password is a compose secret: MONGO_APP_PASSWORD_FILE names the file.
const appPasswordFile = process.env.MONGO_APP_PASSWORD_FILE;
const appPassword = appPasswordFile
  ? fs.readFileSync(appPasswordFile, 'utf8').replace(/\r?\n$/, '')
  : process.env.MONGO_APP_PASSWORD;
if (process.env.MONGO_APP_USERNAME && appPassword) {
  // readWrite on this one database: no admin rights, no other database.
  target.createUser({
    user: process.env.MONGO_APP_USERNAME,
    pwd: appPassword,
    roles: [{ role: 'readWrite', db: dbName }],
  });
}

target.items.createIndex({ name: 1 }, { unique: true });
const items = JSON.parse(fs.readFileSync('/docker-entrypoint-initdb.d/items.json', 'utf8'));
const now = new Date();
for (const item of items) {
  target.items.updateOne(
    { name: item.name },
    { $setOnInsert: { ...item, createdAt: now, updatedAt: now } },
    { upsert: true },
  );
}
print(`seeded ${items.length} items into ${dbName}.items`);
