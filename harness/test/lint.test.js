// The static checks that `make test` runs (harness/bin/lint.js) catch a mistake in a harness file:
// the real ESLint and the real TypeScript checker, under the repository's own configuration, run
// over a broken copy of one file's text (the checker with what it imports; the whole repository is
// the static suite's run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lint, typecheck } from '../lint/checks.js';
import { dependencyProblems } from '../lint/dependencies.js';
import { composeProblems } from '../lint/compose.js';
import { REPO_ROOT } from '../lib/repo-root.js';

const FILE = 'harness/lib/poll.js';
const original = fs.readFileSync(path.join(REPO_ROOT, FILE), 'utf8');
const CALL = 'const value = await check();';

test('an unused variable in a harness file fails ESLint, naming the file, line and rule', async () => {
  assert.ok(original.includes(CALL));
  const broken = original.replace(CALL, `${CALL}\n    const leftover = value;`);
  const problems = await lint({ overridesOnly: true, overrides: { [FILE]: broken } });
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
  const problems = typecheck({ overridesOnly: true, overrides: { [FILE]: broken } });
  const line = broken.trimEnd().split('\n').length;
  assert.ok(problems.some((p) => p.startsWith(`${FILE}:${line}:`) && p.endsWith('(TS2322)')), problems.join('\n'));
  // A file the configuration leaves out is said to be out, not found clean.
  const outside = 'database/mongo/broken.js';
  assert.deepEqual(typecheck({ overridesOnly: true, overrides: { [outside]: broken } }), [
    `${outside} is not in tsconfig.json's files`,
  ]);
});

test('outside harness/runner, an import of a runner internal fails ESLint; inside it, or through index.js, it ' +
  'passes', async () => {
  const inside = 'harness/runner/test/units.test.js';
  const insideText = fs.readFileSync(path.join(REPO_ROOT, inside), 'utf8');
  const reach = [
    "export { up } from '../runner/processes/up.js';",
    "export const cpus = () => import('../runner/common/cgroup.js');",
    "export const face = new URL('../runner/index.js', import.meta.url);",
    "export const supervisor = new URL('../runner/processes/supervisor-main.js', import.meta.url);",
  ];
  const problems = await lint({
    overridesOnly: true,
    overrides: {
      [FILE]: `${original}${reach.join('\n')}\n`,
      [inside]: `${insideText}export { up } from '../processes/up.js';\n`,
    },
  });
  const first = original.trimEnd().split('\n').length + 1;
  const flagged = problems.filter((p) => p.endsWith('(scaling-lab/runner-interface)'));
  assert.deepEqual(
    flagged.map((p) => p.split(' ')[0]),
    [`${FILE}:${first}:1`, `${FILE}:${first + 1}:27`, `${FILE}:${first + 3}:27`],
    problems.join('\n'),
  );
  assert.match(flagged[0], /runner\/processes\/up\.js is internal to the runner: use harness\/runner\/index\.js/);
});

test('a function over 80 lines or a line over 120 characters fails ESLint in the harness folders held to ' +
  'them', async () => {
  const long = `export function long() {\n${'  void 0;\n'.repeat(80)}}\n`;
  const wide = `export const wide = ${'1 + '.repeat(30)}1;\n`;
  const problems = await lint({ overridesOnly: true, overrides: { [FILE]: `${original}${long}${wide}` } });
  const first = original.trimEnd().split('\n').length + 1;
  const mine = problems.filter((p) => p.startsWith(`${FILE}:`)).map((p) => `${p.split(' ')[0]} ${p.split(' ').at(-1)}`);
  assert.deepEqual(mine, [`${FILE}:${first}:8 (max-lines-per-function)`, `${FILE}:${first + 82}:1 (max-len)`]);
});

test('the import-graph check names a cycle, an import between the runner\'s backends, the runner reaching the '
  + 'test engine and a sample reaching the harness outside its tests', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-imports-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const files = {
    'package.json': '{ "type": "module" }',
    'harness/a.js': "import './b.js';",
    'harness/b.js': "import './a.js';",
    'harness/runner/processes/x.js': "import '../docker/y.js';",
    'harness/runner/docker/y.js': 'export const y = 1;',
    'harness/runner/common/z.js': "import '../../bench/w.js';",
    'harness/bench/w.js': 'export const w = 1;',
    'harness/runner/index.js': "import '../test-engine/e.js';",
    'harness/test-engine/e.js': 'export const e = 1;',
    'harness/runner/test/u.test.js': "import '../../test-engine/e.js';",
    'node-cluster/src/s.js': "import '../../harness/bench/w.js';",
    'node-cluster/test/s.test.js': "import '../../harness/bench/w.js';",
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), `${text}\n`);
  }
  const problems = await dependencyProblems({ root, roots: ['harness', 'node-cluster'] });
  assert.deepEqual(problems.sort(), [
    'harness/a.js -> harness/b.js via harness/b.js -> harness/a.js (no-cycle)',
    'harness/runner/common/z.js -> harness/bench/w.js (runner-not-tests)',
    'harness/runner/index.js -> harness/test-engine/e.js (runner-not-tests)',
    'harness/runner/processes/x.js -> harness/runner/docker/y.js (backends-apart)',
    'node-cluster/src/s.js -> harness/bench/w.js (sample-not-harness)',
  ]);
});

test('dclint over the compose files: a port published on every interface and an untagged image fail it; '
  + 'the rules switched off in harness/lint/dclint.yaml do not', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dclint-'));
  try {
    const file = path.join(dir, 'compose.yaml');
    fs.writeFileSync(file, [
      'services:',
      '  app:',
      '    build: .',
      '    image: example/app:local',
      '  web:',
      '    image: nginx',
      '    ports:',
      '      - "8080:80"',
      '',
    ].join('\n'));
    const problems = composeProblems({ root: dir, files: [file] });
    assert.deepEqual(problems.map((p) => /\((\S+)\)$/.exec(p)?.[1]).sort(), [
      'no-unbound-port-interfaces',
      'service-image-require-explicit-tag',
    ], problems.join('\n'));
    assert.ok(problems.every((p) => p.startsWith('compose.yaml:')), problems.join('\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
