// The static checks that `make test` runs (harness/bin/lint.js) catch a mistake in a harness file:
// the real ESLint and the real TypeScript checker run over the repository with one file's text
// replaced by a broken copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { lint, typecheck } from '../lint/checks.js';
import { REPO_ROOT } from '../lib/repo-root.js';

const FILE = 'harness/lib/poll.js';
const original = fs.readFileSync(path.join(REPO_ROOT, FILE), 'utf8');
const CALL = 'const value = await check();';

test('an unused variable in a harness file fails ESLint, naming the file, line and rule', async () => {
  assert.ok(original.includes(CALL));
  const broken = original.replace(CALL, `${CALL}\n    const leftover = value;`);
  const problems = await lint({ overrides: { [FILE]: broken } });
  const line = original.slice(0, original.indexOf(CALL)).split('\n').length + 1;
  assert.ok(problems.some((p) => p.startsWith(`${FILE}:${line}:`) && p.includes("'leftover'") && p.endsWith('(no-unused-vars)')), problems.join('\n'));
});

test('a wrong type in a harness file fails the TypeScript check, naming the file and line', () => {
  // timeoutMs is documented as a number: a string there is what the checker must refuse.
  const broken = `${original}\nexport const misuse = () => waitFor(() => true, { timeoutMs: '5 s' });\n`;
  const problems = typecheck({ overrides: { [FILE]: broken } });
  const line = broken.trimEnd().split('\n').length;
  assert.ok(problems.some((p) => p.startsWith(`${FILE}:${line}:`) && p.endsWith('(TS2322)')), problems.join('\n'));
});
