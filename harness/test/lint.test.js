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
  assert.ok(
    problems.some(
      (p) => p.startsWith(`${FILE}:${line}:`) && p.includes("'leftover'") && p.endsWith('(no-unused-vars)'),
    ),
    problems.join('\n'),
  );
});

test('a wrong type in a harness file fails the TypeScript check, naming the file and line', () => {
  // timeoutMs is documented as a number: a string there is what the checker must refuse.
  const broken = `${original}\nexport const misuse = () => waitFor(() => true, { timeoutMs: '5 s' });\n`;
  const problems = typecheck({ overrides: { [FILE]: broken } });
  const line = broken.trimEnd().split('\n').length;
  assert.ok(problems.some((p) => p.startsWith(`${FILE}:${line}:`) && p.endsWith('(TS2322)')), problems.join('\n'));
});

test('outside harness/runner, an import of a runner internal fails ESLint; inside it, or through index.js, it ' +
  'passes', async () => {
  const inside = 'harness/runner/test/units.test.js';
  const insideText = fs.readFileSync(path.join(REPO_ROOT, inside), 'utf8');
  const reach = [
    "export { up } from '../runner/up.js';",
    "export const cpus = () => import('../runner/cgroup.js');",
    "export const face = new URL('../runner/index.js', import.meta.url);",
    "export const supervisor = new URL('../runner/supervisor-main.js', import.meta.url);",
  ];
  const problems = await lint({
    overrides: {
      [FILE]: `${original}${reach.join('\n')}\n`,
      [inside]: `${insideText}export { up } from '../up.js';\n`,
    },
  });
  const first = original.trimEnd().split('\n').length + 1;
  const flagged = problems.filter((p) => p.endsWith('(scaling-lab/runner-interface)'));
  assert.deepEqual(
    flagged.map((p) => p.split(' ')[0]),
    [`${FILE}:${first}:1`, `${FILE}:${first + 1}:27`, `${FILE}:${first + 3}:27`],
    problems.join('\n'),
  );
  assert.match(flagged[0], /harness\/runner\/up\.js is internal to the runner: use harness\/runner\/index\.js/);
});
