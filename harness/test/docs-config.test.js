// The docs can't drift from the configs they describe: every configuration value a doc or README
// quotes (<!-- cfg FILE SELECTOR FORMAT -->…<!-- /cfg -->) is what its file sets, and every snippet
// of nginx or compose config (<!-- snippet FILE -->) is that file's own lines (docs-config-lib.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { readerFiles } from './docs-lib.js';
import { configValue, configQuoteProblems, snippetProblems, unmarkedConfigBlocks } from './docs-config-lib.js';

const rel = (f) => path.relative(REPO_ROOT, f);
const markdown = () => readerFiles().filter((f) => f.endsWith('.md') && !rel(f).startsWith('docs/results/'));

test('every configuration value a doc quotes is what its file sets', (t) => {
  const bad = [];
  let quoted = 0;
  for (const f of markdown()) {
    const { problems, count } = configQuoteProblems(fs.readFileSync(f, 'utf8'));
    quoted += count;
    bad.push(...problems.map((p) => `${rel(f)}:${p.line}: ${p.problem}`));
  }
  t.diagnostic(`${quoted} configuration values checked`);
  assert.ok(quoted >= 20, `${quoted} quoted values`);
  assert.deepEqual(bad, []);
});

test("every config snippet in the docs is its file's own lines, and names its file", (t) => {
  const bad = [];
  let snippets = 0;
  for (const f of markdown()) {
    const md = fs.readFileSync(f, 'utf8');
    const { problems, count } = snippetProblems(md);
    snippets += count;
    bad.push(...problems.map((p) => `${rel(f)}:${p.line}: ${p.problem}`));
    bad.push(...unmarkedConfigBlocks(md).map((l) => `${rel(f)}:${l}: a config block without <!-- snippet FILE -->`));
  }
  t.diagnostic(`${snippets} snippets checked`);
  assert.ok(snippets >= 4, `${snippets} snippets`);
  assert.deepEqual(bad, []);
});

test('the checks catch what they are for', () => {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-config-'));
  try {
    fs.writeFileSync(path.join(repo, 'compose.yaml'), 'services:\n  app:\n    stop_grace_period: 1m30s\n' +
      '    environment: ["DELAY=12000"]\n    deploy:\n      replicas: ${REPLICAS:-4}\n');
    fs.writeFileSync(path.join(repo, 'n.conf'), 'http {\n    resolver x valid=10s;\n    keepalive 64;\n}\n');
    assert.equal(configValue('compose.yaml', 'services.app.stop_grace_period', 's', repo), '90 s');
    assert.equal(configValue('compose.yaml', 'services.app.environment.DELAY', 'ms-s', repo), '12 s');
    assert.equal(configValue('compose.yaml', 'services.app.deploy.replicas', 'int', repo), '4');
    assert.equal(configValue('n.conf', '/valid=(\\d+s)/', 's', repo), '10 s');
    assert.throws(() => configValue('compose.yaml', 'services.app.nope', 's', repo), /no services\.app\.nope/);
    assert.throws(() => configValue('gone.yaml', 'a', 's', repo), /no such file/);
    const doc =
      'Grace <!-- cfg compose.yaml services.app.stop_grace_period s -->15 s<!-- /cfg -->, valid ' +
      '<!-- cfg n.conf /valid=(\\d+s)/ s -->10 s<!-- /cfg -->.\n';
    const { problems, count } = configQuoteProblems(doc, repo);
    assert.equal(count, 2);
    assert.deepEqual(
      problems.map((p) => p.problem),
      ['shows "15 s", compose.yaml services.app.stop_grace_period says "90 s"'],
    );
    const snippet = (body) => `Text.\n\n<!-- snippet n.conf -->\n\`\`\`nginx\n${body}\n\`\`\`\n`;
    assert.equal(snippetProblems(snippet('resolver x valid=10s;\nkeepalive 64;'), repo).problems.length, 0);
    assert.equal(snippetProblems(snippet('http {\n…\n}'), repo).problems.length, 0, 'runs apart, by …');
    assert.equal(snippetProblems(snippet('resolver x valid=5s;'), repo).problems.length, 1, 'a changed value');
    assert.equal(snippetProblems(snippet('keepalive 64; # idle ones'), repo).problems.length, 1, 'a comment added');
    assert.deepEqual(unmarkedConfigBlocks('Text.\n\n```nginx\nkeepalive 64;\n```\n'), [3]);
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
});
