// Every tutorial command marked runnable here does what its page says: each page's
// `<!-- tutorial: processes -->` console blocks run in order, as one session from the repository
// root (one `make up` shared by a page's commands), and each command must print the lines the page
// shows. The run's nginx gets a free port (HTTP_PORT) and a page's :8080 is read as that port.
// Docker tutorials run in the Docker suite (test/docker/docs-tutorials.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../lib/repo-root.js';
import { proseFiles } from './docs-lib.js';
import { tutorialBlocks, stepsOf, linePattern, missingLines } from './docs-tutorial-lib.js';

const BIN = path.join(REPO_ROOT, 'harness', 'node_modules', '.bin');
// Commands that only read: run again (a bounded number of times) while what they read settles,
// e.g. `make ps` right after a kill, until the restart policy has the instance back.
const READS = /^(make ps|curl|cat|grep|tail)\b/;
const TRIES = 20;

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = /** @type {import('node:net').AddressInfo} */ (s.address()); s.close(() => resolve(port)); });
  s.on('error', reject);
});

/** Runs one shell command from the repository root: { code, output } (stdout and stderr, in order). */
function sh(command, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, output }); });
  });
}

const mongodFound = async (env) => (await sh('node node-cluster/scripts/find-mongod.js', env, 60_000)).code === 0;

const pages = proseFiles().map((f) => ({ file: path.relative(REPO_ROOT, f), blocks: tutorialBlocks(fs.readFileSync(f, 'utf8')).filter((b) => b.engine === 'processes') })).filter((p) => p.blocks.length);

test('some pages mark their commands runnable here', () => {
  assert.ok(pages.length >= 3, `${pages.length} pages: ${pages.map((p) => p.file).join(', ')}`);
});

for (const { file, blocks } of pages) {
  test(`${file}: its commands print what the page shows`, async (t) => {
    if (fs.existsSync(path.join(REPO_ROOT, '.run', 'state.json'))) { t.skip('a run is up in .run of this checkout: make down first'); return; }
    const port = await freePort();
    const env = { ...process.env, ENGINE: 'processes', HTTP_PORT: String(port), PATH: `${BIN}:${process.env.PATH}` };
    const local = (s) => s.replace(/\b(localhost|127\.0\.0\.1):8080\b/g, `$1:${port}`);
    try {
      for (const block of blocks) {
        if (block.conditions.includes('no-mongod') && await mongodFound(env)) { t.diagnostic(`${file}:${block.line}: a mongod is there, so this block's "no mongod" output can't be seen`); continue; }
        for (const step of block.steps) {
          const command = local(step.command);
          const expected = step.expected.map(local);
          let run;
          let missing = [];
          for (let i = 0; i < (READS.test(command) ? TRIES : 1); i += 1) {
            if (i) await sleep(250);
            run = await sh(command, env, /\bmake up\b/.test(command) ? 180_000 : 60_000);
            missing = missingLines(expected, run.output);
            if (!missing.length) break;
          }
          assert.deepEqual(missing, [], `${file}:${block.line}: \`${command}\` did not print what the page shows (exit ${run.code ?? run.signal}):\n${run.output.slice(-2000)}`);
        }
      }
    } finally {
      await sh('make down', env, 60_000);
    }
  });
}

test('the tutorial reader catches what it is for', () => {
  const md = 'Hand run, 2026-11-27:\n\n<!-- tutorial: processes no-mongod -->\n```console\n$ make up SAMPLE=x \\\n  REPLICAS=2\nup: http://127.0.0.1:18080\n…\n$ make ps\n│ app     │ 1        │ 25522 │ running │\n```\n\n```console\n$ not marked\n```\n';
  const [b] = tutorialBlocks(md);
  assert.deepEqual({ engine: b.engine, conditions: b.conditions, steps: b.steps.length }, { engine: 'processes', conditions: ['no-mongod'], steps: 2 });
  assert.equal(b.steps[0].command, 'make up SAMPLE=x \\\n  REPLICAS=2');
  assert.deepEqual(b.steps[0].expected, ['up: http://127.0.0.1:18080']);
  assert.equal(tutorialBlocks(md).length, 1, 'an unmarked block is not run');
  assert.ok(linePattern('│ app │ 1 │ 25522 │ running │').test('│ app     │ 1        │ 31337 │ running │'), 'pids and ports stand for any');
  assert.ok(!linePattern('│ app │ 1 │ 25522 │ running │ 1 │').test('│ app │ 1 │ 25522 │ running │ 0 │'), 'small numbers must match');
  assert.ok(linePattern('replaced in … (start-first)').test('replaced in 1.0 s (start-first)'));
  assert.deepEqual(missingLines(['a', 'b'], 'x\na\ny\nb\n'), []);
  assert.deepEqual(missingLines(['b', 'a'], 'a\nb\n'), ['a'], 'in order');
  assert.deepEqual(stepsOf('$ curl -s x\n{"a":1}\n$ make down\n').map((s) => s.expected.length), [1, 0]);
});
