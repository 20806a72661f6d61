// Every tutorial command marked runnable here does what its page says: each page's
// `<!-- tutorial: processes -->` console blocks run in order, as one session from the repository
// root (one `make up` shared by a page's commands), and each command must print the lines the page
// shows. The run's nginx gets a free port (HTTP_PORT) and a page's :8080 is read as that port.
// Docker tutorials run in the Docker suite (test/docker/docs-tutorials.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { freePort } from '../lib/ports.js';
import { proseFiles } from './docs-lib.js';
import { tutorialBlocks, stepsOf, linePattern, missingLines, runSession, sh, BIN } from './docs-tutorial-lib.js';

const pages = proseFiles()
  .map((f) => ({
    file: path.relative(REPO_ROOT, f),
    blocks: tutorialBlocks(fs.readFileSync(f, 'utf8')).filter((b) => b.engine === 'processes'),
  }))
  .filter((p) => p.blocks.length);

test('some pages mark their commands runnable here', () => {
  assert.ok(pages.length >= 3, `${pages.length} pages: ${pages.map((p) => p.file).join(', ')}`);
});

for (const { file, blocks } of pages) {
  test(`${file}: its commands print what the page shows`, async (t) => {
    if (fs.existsSync(path.join(REPO_ROOT, '.run', 'state.json'))) {
      t.skip('a run is up in .run of this checkout: make down first');
      return;
    }
    const port = await freePort();
    const env = { ...process.env, ENGINE: 'processes', HTTP_PORT: String(port), PATH: `${BIN}:${process.env.PATH}` };
    try {
      for (const problem of await runSession({ file, blocks, env, cwd: REPO_ROOT, port })) assert.fail(problem);
    } finally {
      await sh('make down', env, REPO_ROOT, 60_000);
    }
  });
}

test('the tutorial reader catches what it is for', () => {
  const md =
    'Hand run, 2026-11-27:\n\n<!-- tutorial: processes -->\n```console\n$ make up SAMPLE=x \\\n  REPLICAS=2\nup: http://127.0.0.1:18080\n…\n$ make ps\n│ app     │ 1        │ 25522 │ running │\n```\n\n```console\n$ not marked\n```\n';
  const [b] = tutorialBlocks(md);
  assert.deepEqual({ engine: b.engine, steps: b.steps.length }, { engine: 'processes', steps: 2 });
  assert.equal(b.steps[0].command, 'make up SAMPLE=x \\\n  REPLICAS=2');
  assert.deepEqual(b.steps[0].expected, ['up: http://127.0.0.1:18080']);
  assert.equal(tutorialBlocks(md).length, 1, 'an unmarked block is not run');
  assert.ok(
    linePattern('│ app │ 1 │ 25522 │ running │').test('│ app     │ 1        │ 31337 │ running │'),
    'pids and ports stand for any',
  );
  assert.ok(
    !linePattern('│ app │ 1 │ 25522 │ running │ 1 │').test('│ app │ 1 │ 25522 │ running │ 0 │'),
    'small numbers must match',
  );
  assert.ok(linePattern('replaced in … (start-first)').test('replaced in 1.0 s (start-first)'));
  assert.deepEqual(missingLines(['a', 'b'], 'x\na\ny\nb\n'), []);
  assert.deepEqual(missingLines(['b', 'a'], 'a\nb\n'), ['a'], 'in order');
  assert.deepEqual(
    stepsOf('$ curl -s x\n{"a":1}\n$ make down\n').map((s) => s.expected.length),
    [1, 0],
  );
});
