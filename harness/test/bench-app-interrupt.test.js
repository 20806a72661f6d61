// make bench APP=… stopped with Ctrl-C (SIGINT to the bench) once it is measuring: it exits 130,
// and leaves nothing — no process of the app or of the run, no cgroup, nothing in the app's folder.
// The app reads its port from the argument its start script gives it (`--port ${PORT:-3000}`), so
// every process the bench starts must have had the word expanded by sh with its own PORT.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { runProcesses } from '../runner/index.js';
import { REPO_ROOT } from '../lib/repo-root.js';
import { userFolder, removeFolders, cgroupsLeft, folderState, processesIn } from './bench-app-helpers.js';

after(removeFolders);

const SERVER = `const http = require('node:http');
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const server = http.createServer((req, res) => res.end(JSON.stringify({ ok: true })));
server.listen(port, '127.0.0.1', () => console.log('listening on', port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** Resolves once `child`'s output matches `re` (rejects if it exits first or after `ms`). */
function waitOutput(child, re, ms) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${re} within ${ms / 1000} s:\n${seen.slice(-2000)}`)), ms);
    const on = (chunk) => {
      seen += chunk;
      if (re.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before ${re}:\n${seen.slice(-2000)}`));
    });
  });
}

test('Ctrl-C mid-run: exit 130, no process, no cgroup, nothing in the app folder', { timeout: 300_000 }, async () => {
  const dir = userFolder('interrupt', {
    'package.json': JSON.stringify({
      name: 'interrupt-api', scripts: { start: 'node server.js --port ${PORT:-3000}' },
    }),
    'server.js': SERVER,
  });
  const before = folderState(dir);
  const out = path.join(userFolder('interrupt-out', {}), 'run');
  const cli = spawn(process.execPath, [
    path.join(REPO_ROOT, 'harness/bench/cli.js'), '--app', dir, '--out', out,
    '--budgets', '1', '--rounds', '1', '--window', '1', '--warmup', '0', '--rewarm', '0', '--no-latency',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => cli.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    await waitOutput(cli, /bench: warm-up /, 240_000);
    assert.ok(runProcesses(path.join(out, 'run')).length + processesIn(dir).length > 0, 'the app runs now');
    cli.kill('SIGINT');
    assert.deepEqual(await exited, { code: 130, signal: null });
  } finally {
    if (cli.exitCode === null) cli.kill('SIGKILL');
  }
  assert.deepEqual(processesIn(dir), [], "no process left in the app's folder");
  assert.deepEqual(runProcesses(out, { marker: out }), [], 'no process of the run left');
  assert.deepEqual(cgroupsLeft('interrupt-api'), []);
  assert.deepEqual(folderState(dir), before, "nothing written into the app's folder");
});
