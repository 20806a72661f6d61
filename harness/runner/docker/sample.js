// The sample's own description of itself, as the Docker backend reads it: its compose.yaml's
// x-bench (which service is its proxy) and each service's x-local and healthcheck.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { parseHealthcheck } from '../common/compose.js';

export function sampleFile(sampleDir) {
  return YAML.parse(fs.readFileSync(path.join(sampleDir, 'compose.yaml'), 'utf8'));
}

/** A service's healthcheck as the runner checks it (common/compose.js parseHealthcheck). */
export const healthcheckOf = (record, service) =>
  parseHealthcheck(sampleFile(record.sampleDir).services?.[service]?.healthcheck);
