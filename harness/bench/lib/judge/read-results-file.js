// The results file `--from` names, read and checked before the re-render's modules are loaded: one
// that is missing, not a results file of this benchmark or of another schema is one line, exit 2.
import { readFile } from 'node:fs/promises';
import { SCHEMA } from './index.js';

/** A usage error of the re-render: one line, exit 2. */
export class RerenderError extends Error {}

/** The results document in `from`, of the schema the re-render reads; else a RerenderError. */
export async function readResults(from) {
  let doc;
  try {
    doc = JSON.parse(await readFile(from, 'utf8'));
  } catch (e) {
    throw new RerenderError(`--from ${from}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  if (!Array.isArray(doc?.cells) || !Number.isInteger(doc?.schema)) {
    throw new RerenderError(`--from ${from}: not a results file of this benchmark`);
  }
  if (doc.schema !== SCHEMA) {
    throw new RerenderError(`--from ${from}: results schema ${doc.schema}; `
      + `the re-render needs schema ${SCHEMA} (measure again with make bench)`);
  }
  return doc;
}
