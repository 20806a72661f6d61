#!/usr/bin/env node
// Prints a sample's compose.yaml without `depends_on`, for Docker Swarm:
//   node ../harness/docker/swarm-base.js | docker stack deploy -c - -c compose.swarm.yaml <stack>
// Swarm ignores depends_on but its loader accepts only the short list form, while `docker compose
// up` and the local runner need compose.yaml's long form (condition: service_healthy,
// service_completed_successfully); so the stack is deployed from this copy. Run it in the sample's
// folder, or name the folder: `swarm-base.js node-replicas`.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const dir = path.resolve(process.argv[2] ?? '.');
const file = path.join(dir, 'compose.yaml');
if (!fs.existsSync(file)) {
  console.error(`swarm-base: no compose.yaml in ${dir}`);
  process.exit(2);
}
const doc = YAML.parseDocument(fs.readFileSync(file, 'utf8'));
const services = /** @type {any} */ (doc.get('services'));
for (const svc of services?.items ?? []) svc.value.delete('depends_on');
process.stdout.write(doc.toString());
