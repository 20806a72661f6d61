// Where a local mongod comes from, in this order: MONGOD_BIN, a `mongod` on PATH, then
// mongodb-memory-server-core's cache (downloading MongoDB MONGODB_VERSION there if it is missing,
// which needs access to MongoDB's downloads). Shared by the mongo service's local command
// (run-mongod.js), the tests and the benchmark.
//   import { findMongod } from '<repo>/node-cluster/scripts/find-mongod.js';
//   const { path, source } = await findMongod();   // throws an Error with a one-line reason
// As a command (`node scripts/find-mongod.js`): prints where mongod is, or why there is none (exit 1).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The same release as the compose file's mongo image (a test keeps the two equal).
export const MONGODB_VERSION = '8.0.30';

export const HOW_TO_GET_ONE = 'set MONGOD_BIN or put mongod on PATH (node-cluster/README.md, "Where mongod comes from")';

function isExecutableFile(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function fromEnvVar(value) {
  const file = path.resolve(value);
  if (!fs.existsSync(file)) throw new Error(`MONGOD_BIN=${value} does not exist`);
  if (!isExecutableFile(file)) throw new Error(`MONGOD_BIN=${value} is not an executable file`);
  return { path: file, source: /** @type {const} */ ('MONGOD_BIN') };
}

function fromPath(searchPath = '') {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, 'mongod');
    if (isExecutableFile(file)) return { path: file, source: /** @type {const} */ ('PATH') };
  }
  return undefined;
}

// The library's own error carries the cause on its last line (e.g. "getaddrinfo ENOTFOUND ...").
// The cause in one line, without the download site's host name (it lands in logs and results).
function oneLine(err) {
  const line = (err.msg ?? err.message ?? String(err)).trim().split('\n').filter(Boolean).at(-1);
  return line.replace(/\b(?:[a-z0-9-]+\.)+(?:org|com|net|io)\b/gi, "MongoDB's download site");
}

async function fromMemoryServer() {
  let MongoBinary;
  try {
    ({ MongoBinary } = await import('mongodb-memory-server-core'));
  } catch {
    throw new Error(`no mongod: MONGOD_BIN unset, none on PATH, and mongodb-memory-server-core is not installed (make setup); ${HOW_TO_GET_ONE}`);
  }
  try {
    return { path: await MongoBinary.getPath({ version: MONGODB_VERSION }), source: /** @type {const} */ ('mongodb-memory-server') };
  } catch (err) {
    throw new Error(`no mongod: MONGOD_BIN unset, none on PATH, and MongoDB ${MONGODB_VERSION} could not be downloaded (${oneLine(err)}); ${HOW_TO_GET_ONE}`, { cause: err });
  }
}

/** @returns {Promise<{path: string, source: 'MONGOD_BIN' | 'PATH' | 'mongodb-memory-server'}>} */
export async function findMongod(env = process.env) {
  if (env.MONGOD_BIN) return fromEnvVar(env.MONGOD_BIN);
  return fromPath(env.PATH) ?? fromMemoryServer();
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const found = await findMongod();
    console.log(`mongod: ${found.path} (from ${found.source})`);
  } catch (err) {
    console.error(err.message);
    process.exitCode = 1;
  }
}
