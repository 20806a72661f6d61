// What the docs say that is neither a results.json figure nor a config value, checked against what
// decides it: the README's statement of what `make bench` runs (the default plan itself), figures
// quoted from others' published files (a copy of the entries quoted, fixtures/), the one way the
// labels' band is written, and the README's first screen: the findings and the words they use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { readerFiles, proseFiles, paragraphsOf } from './docs-lib.js';
import { defaultPlanText, PLAN_MARKER } from './docs-plan-lib.js';

const read = (f) => fs.readFileSync(path.join(REPO_ROOT, f), 'utf8');
const rel = (f) => path.relative(REPO_ROOT, f);

test("the README's account of what make bench runs is the default plan's", () => {
  const m = PLAN_MARKER.exec(read('README.md'));
  assert.ok(m, 'README.md states what make bench runs between <!-- plan --> markers');
  assert.equal(m[1], defaultPlanText(), 'README.md: write the plan as the plan has it');
  // Nowhere else claims every strategy at every budget for the default run.
  const bad = proseFiles().flatMap((f) =>
    paragraphsOf(fs.readFileSync(f, 'utf8'))
      .filter((p) => /make bench\b(?! FULL)[^.]{0,60}every strategy at (?:budgets|every budget)/i.test(p.text))
      .map((p) => `${rel(f)}:${p.line}: ${p.text.slice(0, 80)}`),
  );
  assert.deepEqual(bad, []);
});

// HttpArena's entries as its files record them (fixtures/httparena-349945e.json): the table's figures
// and the run length the page gives.
const arena = JSON.parse(read('harness/test/fixtures/httparena-349945e.json'));
const MIB = (m) => (m.endsWith('GiB') ? `${m.replace('GiB', '')} GiB` : `${m.replace('MiB', '')} MiB`);
const MS = (s) => `${Number.parseFloat(s).toFixed(1)} ms`;

test("beyond-two-cores.md quotes HttpArena's files as they are, run length included", () => {
  const page = read('docs/beyond-two-cores.md');
  const [four, sixteen] = ['site/data/api-4-256.json', 'site/data/api-16-1024.json'].map((f) => arena.files[f]);
  for (const entry of four) {
    const other = sixteen.find((e) => e.framework === entry.framework);
    const row = page.split('\n').find((l) => l.startsWith(`| \`${entry.framework}\` |`));
    assert.ok(row, `a row for ${entry.framework}`);
    const want = [entry, other].flatMap((e) => [e.rps.toLocaleString('en-US'), MS(e.p99_latency), MIB(e.memory)]);
    assert.deepEqual(row.split('|').slice(2, -1).map((c) => c.trim()), want, entry.framework);
  }
  const lengths = new Set([...four, ...sixteen].map((e) => e.duration));
  assert.deepEqual([...lengths], ['5s']);
  // The run length the page states is the files' own; no other length is claimed for their runs.
  assert.match(page, /5 s long \(`"duration": "5s"`\)/);
  assert.doesNotMatch(page, /for 1[05] s\b|\b15 s\b/);
});

// "±10%", "below ×0.91", "×0.91–×1.10": the band written another way than the rule's ×0.909–×1.10.
const BAND = /±\s?10\s?%|×0\.91\s?[–-]\s?×1\.10?\b|(?:below|under) ×0\.91\b/;

test('the labels band is written one way everywhere: ×0.909–×1.10', () => {
  const bad = [];
  for (const f of readerFiles().filter((x) => x.endsWith('.md'))) {
    fs.readFileSync(f, 'utf8')
      .split('\n')
      .forEach((l, i) => {
        if (BAND.test(l)) bad.push(`${rel(f)}:${i + 1}: ${l.trim().slice(0, 100)}`);
      });
  }
  assert.deepEqual(bad, []);
});

test("the README's first screen states the findings, after the words they use", () => {
  const first = read('README.md').split('\n').slice(0, 60).join('\n');
  const words = first.indexOf('<!-- words -->');
  const findings = first.indexOf('<!-- takeaways ');
  assert.ok(words > 0 && findings > words, 'the words, then the findings, in the first 60 lines');
  assert.ok(first.includes('<!-- /takeaways -->'), 'the findings end within the first 60 lines');
  const items = first.slice(findings).split('\n').filter((l) => l.startsWith('- **'));
  assert.ok(items.length >= 1 && items.length <= 8, `${items.length} findings`);
  for (const term of ['**wins**', '**equal**', "**can't tell**", '**bounded**', '**not measured**', '**capacity**',
    '**CPU budget**']) {
    const at = first.indexOf(term);
    assert.ok(at > words && at < findings, `${term} is defined before the findings`);
  }
});
