// The sample's own description of itself, as the Docker backend reads it: its compose files'
// x-bench (which service is its proxy) and each service's x-local and healthcheck, compose.lab.yaml
// merged on top (common/compose.js readCompose).
import { parseHealthcheck, readCompose } from '../common/compose.js';

export function sampleFile(sampleDir) {
  return readCompose(sampleDir);
}

/** A service's healthcheck as the runner checks it (common/compose.js parseHealthcheck). */
export const healthcheckOf = (record, service) =>
  parseHealthcheck(sampleFile(record.sampleDir).services?.[service]?.healthcheck);
