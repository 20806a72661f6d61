// The decision guide as a reader meets it: short paragraphs and table cells, links that land,
// templates whose placeholders are all filled, cost at capacity (the report's), the experiments'
// answers; and the committed guide, once it is rendered from a schema-4 run, checked with Mermaid's
// own parser and held to 400 lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { renderGuide } from '../bench/lib/report/guide.js';
import { costOf, withPrices } from '../bench/lib/report/cost.js';
import { seedAnswers } from '../bench/lib/report/seeds.js';
import { anchorsOf } from '../bench/lib/report/slug.js';
import { fill, placeholdersOf } from '../bench/lib/report/template.js';
import { schema4Doc } from './fixtures/schema4-doc.js';
import { parseFlowchart, mermaidBlocks } from './mermaid-parse.js';
import { paragraphsOf, tableCellsOf } from './docs-lib.js';
import { renderReport } from '../bench/lib/report/markdown.js';

const TEMPLATES = path.join(REPO_ROOT, 'harness', 'bench', 'lib', 'report', 'templates');
const fixture2 = () =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'harness', 'test', 'fixtures', 'results-schema2.json'), 'utf8'));

// Paragraphs over 80 words and table cells over 60 (docs-lib: quote markers and link targets count as none).
const tooLong = (markdown) => [
  ...paragraphsOf(markdown).filter((p) => p.words > 80).map((p) => [p.words, p.text.slice(0, 80)]),
  ...tableCellsOf(markdown).filter((c) => c.words > 60).map((c) => [c.words, c.text.slice(0, 80)]),
];
// Every in-page link (#anchor) of a Markdown text, and whether the page defines it.
const deadLinks = (markdown) =>
  [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]).filter((a) => !anchorsOf(markdown).has(a));

test('the guide reads in short paragraphs, every in-page link lands, and nothing is left unfilled', () => {
  const guide = renderGuide(schema4Doc());
  assert.deepEqual(tooLong(guide), []);
  assert.deepEqual([...new Set(deadLinks(guide))], []);
  assert.doesNotMatch(guide, /\{\{\w+\}\}|\btie\b/);
  // Prose lives in the templates: the guide's sentences are theirs.
  assert.ok(guide.includes(fill('guide-decide', { charts: 'x', every: 'y' })[2]));
});

test('a template without a value for one of its placeholders, or given one it lacks, is an error', () => {
  for (const f of fs.readdirSync(TEMPLATES).filter((x) => x.endsWith('.md')))
    assert.doesNotThrow(() => placeholdersOf(f.replace(/\.md$/, '')));
  assert.throws(() => fill('guide-how-to-read', {}), /template guide-how-to-read: no value for confidence, up, down/);
  assert.throws(() => fill('glossary', { stray: 1 }), /template glossary: it has no \{\{stray\}\}/);
});

test('cost per 1M requests at capacity: saturated CPU, GiB-hours at capacity, the low rate beside', () => {
  const cell = {
    topology: { processes: 2 },
    cpuPerRequestUs: { median: 90 },
    paced: { rate: 1000, cpuPerRequestUs: { median: 250 } },
    memoryMiB: { median: 512 },
    capacity: { rps: 2000 },
    rounds: [{ processes: 4 }, { processes: 4 }, { processes: 4 }],
  };
  const k = costOf(cell);
  assert.equal(k.coreSeconds, 90);
  assert.equal(k.processes, 4);
  assert.equal(k.perProcessMiB, 128);
  assert.ok(Math.abs(k.gibHours - (0.5 * 1e6) / 2000 / 3600) < 1e-12);
  assert.deepEqual(k.lowRate, { rate: 1000, us: 250 });
  assert.equal(k.money, null);
  const priced = costOf(cell, { vcpuHour: 0.036, gibHour: 0.0072 });
  assert.ok(Math.abs(priced.money - ((0.036 * 90) / 3600 + 0.0072 * k.gibHours)) < 1e-12);
  assert.equal(costOf({ ...cell, capacity: { rps: null } }).gibHours, null, 'no capacity held: no GiB-hours');
  const doc = schema4Doc();
  assert.doesNotMatch(renderReport(doc, {}), /cost per 1M at capacity \(your currency\)/);
  withPrices(doc, { vcpuHour: 0.04, gibHour: 0.005 });
  assert.match(renderReport(doc, {}), /\| cost per 1M at capacity \(your currency\) \|/);
  assert.ok(!('prices' in JSON.parse(JSON.stringify(doc))), 'prices are never written to results.json');
});

test('the five experiments each get an answer and the control that decides it', () => {
  const doc = fixture2();
  const answers = seedAnswers(doc);
  assert.equal(answers.length, 5);
  for (const a of answers) {
    assert.match(a.answer, /^(confirmed|refuted|not testable on this machine)/, a.id);
    assert.ok(doc.verdicts.some((v) => v.id === a.control) || doc.cells.some((c) => c.id === a.control), a.control);
  }
  const ctrl = doc.verdicts.find((v) => v.id === 'exp-compose-replicas.fixed-500');
  const before = answers.find((a) => a.id === 'exp-compose-replicas').answer;
  Object.assign(ctrl, { winner: ctrl.a, ratio: 5, ci95: [4, 6] });
  assert.notEqual(seedAnswers(doc).find((a) => a.id === 'exp-compose-replicas').answer, before);
});

const committed = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'docs', 'results', 'results.json'), 'utf8'));
const renderedFrom4 =
  committed.schema === 4
    ? false
    : `the committed reference run is schema ${committed.schema}: its guide is checked once a schema-4 run is rendered`;

test(
  "the committed guide: every chart parses with Mermaid's parser and stays small, short paragraphs, links land",
  { skip: renderedFrom4 },
  async () => {
    const guide = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'decision-guide.md'), 'utf8');
    const blocks = mermaidBlocks(guide);
    assert.ok(blocks.length >= 2, `${blocks.length} charts`);
    for (const src of blocks) assert.ok((await parseFlowchart(src)).nodes.length <= 15);
    assert.deepEqual(tooLong(guide), []);
    assert.deepEqual([...new Set(deadLinks(guide))], []);
    const lines = guide.split('\n').length - 1;
    assert.ok(lines <= 400, `${lines} lines (at most 400: the rest belongs in the report)`);
  },
);
