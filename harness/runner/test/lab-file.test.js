// A sample's lab file (compose.lab.yaml): what only the harness reads, merged on top of compose.yaml
// and compose.override.yaml by both backends — the processes backend reads the merged result
// (common/compose.js), the docker backend passes the file to `docker compose` after the others.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LAB_FILE, loadTopology, readCompose } from '../common/compose.js';
import { composeFiles } from '../docker/up.js';
import { tempRunDir } from '../../test/helpers.js';

const root = tempRunDir('lab-file');
after(() => fs.rmSync(root, { recursive: true, force: true }));

function sampleWith(name, files) {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

const COMPOSE = `
services:
  app:
    image: example
    environment:
      PORT: "3000"
      DRAIN_DELAY_MS: "12000"
    depends_on: [db]
  db:
    image: example-db
`;
const OVERRIDE = `
services:
  app:
    depends_on:
      db:
        condition: service_healthy
`;
const LAB = `
services:
  app:
    environment:
      DELAY_MS: \${DELAY_MS:-0}
    x-local:
      command: ["node", "server.js"]
      environment:
        DRAIN_DELAY_MS: "0"
  db:
    x-local:
      command: ["db", "--port", "{port}"]
x-bench:
  app: app
`;

test('the merged file: compose.yaml, the override, then the lab file; its env and x- fields on top', () => {
  const dir = sampleWith('merged', { 'compose.yaml': COMPOSE, 'compose.override.yaml': OVERRIDE, [LAB_FILE]: LAB });
  const doc = readCompose(dir);
  assert.deepEqual(doc['x-bench'], { app: 'app' });
  assert.deepEqual(doc.services.app.environment, { PORT: '3000', DRAIN_DELAY_MS: '12000', DELAY_MS: '${DELAY_MS:-0}' });
  assert.deepEqual(doc.services.app.depends_on, { db: { condition: 'service_healthy' } });
  assert.equal(doc.services.app.image, 'example');

  const topology = loadTopology(dir, { DELAY_MS: '25' });
  const app = topology.services.app;
  assert.deepEqual(app.environment, { PORT: '3000', DRAIN_DELAY_MS: '12000', DELAY_MS: '25' });
  assert.deepEqual(app.local.command, ['node', 'server.js']);
  assert.deepEqual(app.local.environment, { DRAIN_DELAY_MS: '0' });
  assert.deepEqual(app.dependsOn, { db: 'service_healthy' });
  assert.deepEqual(topology.services.db.local.command, ['db', '--port', '{port}']);
});

test('without a lab file the sample reads as before: no x-local, the compose file alone', () => {
  const dir = sampleWith('plain', { 'compose.yaml': COMPOSE });
  const topology = loadTopology(dir, {});
  assert.equal(topology.services.app.local.command, undefined);
  assert.deepEqual(topology.services.app.dependsOn, { db: 'service_started' });
  assert.equal(readCompose(dir)['x-bench'], undefined);
});

test('the docker backend passes the lab file last, once, after COMPOSE_FILE or its own and the extra files', () => {
  const dir = sampleWith('files', { 'compose.yaml': COMPOSE, 'compose.override.yaml': OVERRIDE, [LAB_FILE]: LAB });
  assert.deepEqual(composeFiles(dir, {}), ['compose.yaml', 'compose.override.yaml', LAB_FILE]);
  const own = ['compose.yaml', 'compose.override.yaml'];
  assert.deepEqual(composeFiles(dir, {}, ['extra.yaml']), [...own, 'extra.yaml', LAB_FILE]);
  assert.deepEqual(
    composeFiles(dir, { COMPOSE_FILE: 'compose.yaml:compose.postgres.yaml' }),
    ['compose.yaml', 'compose.postgres.yaml', LAB_FILE],
  );
  assert.deepEqual(composeFiles(dir, { COMPOSE_FILE: `compose.yaml:${LAB_FILE}` }), ['compose.yaml', LAB_FILE]);
  const plain = sampleWith('files-plain', { 'compose.yaml': COMPOSE });
  assert.deepEqual(composeFiles(plain, {}), ['compose.yaml']);
});
