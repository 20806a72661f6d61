// Where a local mongod comes from, in this order: MONGOD_BIN, a `mongod` on PATH, then
// mongodb-memory-server-core's cache (downloading MongoDB MONGODB_VERSION there if it is missing,
// which needs access to MongoDB's downloads). Whichever it is must answer `--version` as mongod
// does ("db version v8.0.30"), at MIN_SERVER_VERSION or later. Shared by the mongo service's local
// command (run-mongod.js), the tests and the benchmark.
//   import { findMongod } from '<repo>/node-cluster/scripts/find-mongod.js';
//   const { path, source, version } = await findMongod();   // throws an Error with a one-line reason
// As a command (`node scripts/find-mongod.js`): prints where mongod is, or why there is none (exit 1).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The same release as the compose file's mongo image (a test keeps the two equal).
export const MONGODB_VERSION = '8.0.30';

// The oldest server the MongoDB driver under mongoose 9 talks to (its MIN_SUPPORTED_SERVER_VERSION).
export const MIN_SERVER_VERSION = '4.4';

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
  return { path: file, source: /** @type {const} */ ('MONGOD_BIN'), given: value };
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

function describe(found) {
  if (found.source === 'MONGOD_BIN') return `MONGOD_BIN=${found.given}`;
  return found.source === 'PATH' ? `mongod on PATH (${found.path})` : `the downloaded mongod (${found.path})`;
}

// "8.0.30" against "4.4", number by number.
const atLeast = (version, min) => version.localeCompare(min, 'en', { numeric: true }) >= 0;

// Runs `<file> --version` in a process group of its own, bounded in time; whatever it started is
// killed with it, so a program that is not mongod leaves nothing behind.
function askVersion(file, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(file, ['--version'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    const keep = (chunk) => { if (out.length < 4096) out += chunk; };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = () => { try { process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL'); } catch { /* gone */ } };
    const timer = setTimeout(() => { killGroup(); resolve({ timedOut: true, out }); }, timeoutMs);
    child.once('error', (/** @type {NodeJS.ErrnoException} */ err) => { clearTimeout(timer); resolve({ error: err.code ?? err.message, out }); });
    child.once('close', (code, signal) => { clearTimeout(timer); killGroup(); resolve({ code, signal, out }); });
  });
}

/** What `found` says it is: its mongod version, or an Error naming what was found instead. */
async function checkIsMongod(found, { timeoutMs = 10_000 } = {}) {
  const what = describe(found);
  const fix = found.source === 'MONGOD_BIN' ? 'point MONGOD_BIN at a mongod (node-cluster/README.md, "Where mongod comes from")' : HOW_TO_GET_ONE;
  const res = await askVersion(found.path, timeoutMs);
  const version = /^db version v(\d+\.\d+\.\d+)/m.exec(res.out)?.[1];
  if (version && atLeast(version, MIN_SERVER_VERSION)) return version;
  let said;
  if (version) said = `is MongoDB ${version}, older than the ${MIN_SERVER_VERSION} mongoose's driver needs`;
  else if (res.timedOut) said = `is not mongod: \`--version\` did not answer within ${timeoutMs / 1000} s (stopped)`;
  else if (res.error) said = `cannot be run (${res.error})`;
  else {
    const first = res.out.trim().split('\n')[0]?.trim().slice(0, 80);
    const how = res.signal ? `killed by ${res.signal}` : `exit ${res.code}`;
    said = `is not mongod: \`--version\` ${first ? `answered "${first}"` : 'printed nothing'} (${how}), not "db version v…"`;
  }
  throw new Error(`${what} ${said}; ${fix}`);
}

/**
 * @param {NodeJS.ProcessEnv} [env] @param {{ timeoutMs?: number }} [options] how long `--version` may take
 * @returns {Promise<{path: string, source: 'MONGOD_BIN' | 'PATH' | 'mongodb-memory-server', version: string}>}
 */
export async function findMongod(env = process.env, options = {}) {
  const found = env.MONGOD_BIN ? fromEnvVar(env.MONGOD_BIN) : fromPath(env.PATH) ?? await fromMemoryServer();
  const version = await checkIsMongod(found, options);
  return { path: found.path, source: found.source, version };
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const found = await findMongod();
    console.log(`mongod: ${found.path} (MongoDB ${found.version}, from ${found.source})`);
  } catch (err) {
    console.error(err.message);
    process.exitCode = 1;
  }
}
