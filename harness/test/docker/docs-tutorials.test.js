// The tutorials' Docker commands, as a reader runs them: each page's `<!-- tutorial: docker -->`
// console blocks run in order in the page's own folder, against the suite's engine, and each
// command must print the lines the page shows (harness/test/docs-tutorial-lib.js). The project
// gets a name and a free port of its own (COMPOSE_PROJECT_NAME, HTTP_PORT) and is taken down after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/repo-root.js';
import { proseFiles } from '../docs-lib.js';
import { tutorialBlocks, runSession, sh } from '../docs-tutorial-lib.js';
import { engine, freePort, STAND_INS } from './helpers.js';

const { skip, failed } = await engine();

const dockerBlocks = (f) => tutorialBlocks(fs.readFileSync(f, 'utf8')).filter((b) => b.engine === 'docker');
const pages = proseFiles().map((f) => ({ file: f, blocks: dockerBlocks(f) })).filter((p) => p.blocks.length);

test(`some pages mark Docker commands to run ${STAND_INS}`, () => {
  assert.ok(pages.length >= 1, 'a page with <!-- tutorial: docker --> blocks');
});

for (const { file, blocks } of pages) {
  const rel = path.relative(REPO_ROOT, file);
  test(`${rel}: its Docker commands print what the page shows ${STAND_INS}`, { skip }, async () => {
    if (failed) throw new Error(failed);
    const port = await freePort();
    const project = `docs-${path.basename(path.dirname(file))}`;
    const env = { ...process.env, HTTP_PORT: String(port), COMPOSE_PROJECT_NAME: project };
    const cwd = path.dirname(file);
    try {
      for (const problem of await runSession({ file: rel, blocks, env, cwd, port })) assert.fail(problem);
    } finally {
      await sh('docker compose down -v --remove-orphans', env, cwd, 120_000);
    }
  });
}
