// The mongo service's local command (compose.yaml x-local): finds a mongod (find-mongod.js: one
// that answers `--version` as mongod does), checks the two things that most often stop one from
// starting — its port and its data folder — then runs it in the foreground, passing signals on and
// its log through. Whatever goes wrong ends with one line on stderr naming the cause and a
// non-zero exit, so the runner can show it.
//   node scripts/run-mongod.js --bind_ip 127.0.0.1 --port 27017 --dbpath /path/to/data [mongod options]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { findMongod } from './find-mongod.js';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

function fail(message, code = 1) {
  console.error(`run-mongod: ${message}`);
  process.exit(code);
}

function checkDataDir(dir) {
  if (!dir) throw new Error('--dbpath <folder> is required');
  const probe = path.join(dir, `.run-mongod-${process.pid}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
  } catch (err) {
    throw new Error(`data folder ${dir} is not writable (${err.code ?? err.message})`, { cause: err });
  }
}

function checkPortFree(host, port) {
  if (!/^\d+$/.test(port ?? '')) throw new Error(`--port must be a port number (got '${port ?? ''}')`);
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (/** @type {NodeJS.ErrnoException} */ err) => reject(new Error(err.code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use`
      : `cannot listen on ${host}:${port} (${err.code ?? err.message})`)));
    probe.listen(Number(port), host, () => probe.close(resolve));
  });
}

// mongod logs one JSON object per line; the first error ("s": "E") or fatal ("F") one names the cause.
function errorOf(line) {
  let entry;
  try { entry = JSON.parse(line); } catch { return undefined; }
  if (entry.s !== 'E' && entry.s !== 'F') return undefined;
  const detail = entry.attr?.error?.errmsg ?? entry.attr?.error?.reason ?? entry.attr?.error ?? entry.attr?.reason;
  return typeof detail === 'string' ? `${entry.msg}: ${detail}` : entry.msg;
}

let mongod;
try {
  mongod = await findMongod();
  checkDataDir(option('--dbpath'));
  await checkPortFree(option('--bind_ip') ?? '127.0.0.1', option('--port'));
} catch (err) {
  fail(err.message);
}
console.log(`run-mongod: ${mongod.path} (MongoDB ${mongod.version}, from ${mongod.source})`);

const child = spawn(mongod.path, args, { stdio: ['ignore', 'pipe', 'inherit'] });
let firstError;
readline.createInterface({ input: child.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  firstError ??= errorOf(line);
});
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) process.on(signal, () => child.kill(signal));
child.once('error', (/** @type {NodeJS.ErrnoException} */ err) => fail(`cannot run ${mongod.path} (${err.code ?? err.message})`));
// 'close': after mongod has exited and its last log lines have been read.
child.once('close', (code, signal) => {
  if (code === 0) process.exit(0);
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  fail(`mongod ${how}${firstError ? `: ${firstError}` : ''}`, code || 1);
});
