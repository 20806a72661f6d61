// The decision guide's first screen: a flowchart generated from results.json (change a verdict and
// the chart changes), schema 3 read as SCHEMA.md describes it (labels, budgets, the generator's
// share, scaling), cost and the experiments' answers, and short paragraphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { renderGuide } from '../bench/lib/report/guide.js';
import { renderReport } from '../bench/lib/report/markdown.js';
import { charts } from '../bench/lib/report/charts.js';
import { decisionFlow, recommend } from '../bench/lib/report/flowchart.js';
import { labelOf } from '../bench/lib/report/labels.js';
import { costOf } from '../bench/lib/report/cost.js';
import { seedAnswers } from '../bench/lib/report/seeds.js';
import { withPrices } from '../bench/lib/report/cost.js';
import { anchorsOf } from '../bench/lib/report/slug.js';

// The committed FULL run of 2026-11-25 (schema 2, one 1-CPU budget), kept as a fixture: these tests
// change its verdicts and read the guide again, and build a schema-3 document from it.
const committed = () => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'harness', 'test', 'fixtures', 'results-schema2.json'), 'utf8'));
const mermaidOf = (guide) => /```mermaid\n([\s\S]*?)```/.exec(guide)[1];

// A schema-3 document from the committed one: every question asked again at a 2-CPU budget (ids
// 'b2.<group>'), with labels stored, the generator's share where it shared CPUs, and scaling rows.
function schema3() {
  const doc = committed();
  doc.schema = 3;
  doc.protocol.rule = { confidence: 0.95, margin: 0.1 };
  doc.protocol.budgets = [1, 2];
  doc.protocol.generatorShareLimit = 0.15;
  const main = doc.verdicts.filter((v) => doc.workloads[v.workload]);
  const adapt = (v, budget) => ({ ...v, label: labelOf(v, doc), winner: labelOf(v, doc) === 'wins' ? v.winner : null, budget, comparison: `b${budget}.${v.comparison}`, id: `${v.workload}.b${budget}.${v.comparison}.${v.metric}`, generator: budget === 1 ? null : { share: 0.12, bound: false }, floorKnown: true });
  const b1 = main.map((v) => adapt(v, 1));
  const b2 = main.map((v) => adapt(v, 2));
  // At 2 CPUs the cluster pays on CPU-bound work; replicas can't be told apart; one verdict's generator was over its share.
  const set = (id, fields) => Object.assign(b2.find((v) => v.id === id), fields);
  set('pi.b2.cluster.throughput', { label: 'wins', winner: 'express-cluster-2-nginx', ratio: 1.8, ci95: [1.6, 2.0] });
  set('pi.b2.replicas.throughput', { label: 'cant-tell', winner: null, ratio: 1.3, ci95: [0.95, 1.7] });
  set('light.b2.cluster.throughput', { label: 'equal', winner: null, ratio: 1.02, ci95: [0.95, 1.08], generator: { share: 0.2, bound: true } });
  // At 1 CPU the cluster of 2 is kept only as a labelled control; here it even "wins" on pi.
  const control = (v) => (v.comparison === 'b1.cluster' ? { ...v, comparison: 'b1.cluster-control', id: v.id.replace('.b1.cluster.', '.b1.cluster-control.') } : v);
  const b1c = b1.map(control);
  Object.assign(b1c.find((v) => v.id === 'pi.b1.cluster-control.throughput'), { label: 'wins', winner: 'express-cluster-2-nginx', ratio: 3, ci95: [2.5, 3.5] });
  doc.verdicts = [...b1c, ...b2, ...doc.verdicts.filter((v) => !doc.workloads[v.workload])];
  doc.scaling = [{ workload: 'pi', sample: 'node-cluster', strategy: 'cluster', topology: 'express-cluster-2-nginx', budget: 2, rps: 1540, efficiency: 0.9, ci95: [0.8, 0.97] }];
  doc.skipped = [{ strategy: 'pm2', why: 'PM2 is not installed (/work/x/node_modules/.bin/pm2 missing)' }];
  return doc;
}

test('the flowchart comes from results.json: change a verdict and the chart changes', () => {
  const doc = committed();
  const before = mermaidOf(renderGuide(doc));
  assert.match(before, /light_c1_memory\["<b>Express 1 process \(nothing measured better\)<\/b><br\/>Express cluster of 2 ÷ Express 1 process: Express 1 process wins ×2\.15/);
  const v = doc.verdicts.find((x) => x.id === 'light.cluster.memory');
  Object.assign(v, { winner: v.a, ratio: 0.5, ci95: [0.45, 0.55] });
  const after = mermaidOf(renderGuide(doc));
  assert.notEqual(after, before);
  assert.match(after, /light_c1_memory\["<b>Express cluster of 2<\/b><br\/>Express cluster of 2 ÷ Express 1 process: Express cluster of 2 wins ×0\.50 \(×0\.45–×0\.55\)/);
});

test('the committed guide: every branch links a row that exists, no "tie", no paragraph over 80 words', () => {
  const guide = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'decision-guide.md'), 'utf8');
  const anchors = anchorsOf(guide);
  const clicks = [...mermaidOf(guide).matchAll(/click \w+ "#([^"]+)"/g)].map((m) => m[1]);
  assert.ok(clicks.length >= 12, `${clicks.length} linked branches`);
  for (const a of clicks) assert.ok(anchors.has(a), a);
  assert.doesNotMatch(guide, /\btie\b/i);
  const prose = guide.replace(/```[\s\S]*?```/g, '').split(/\n\s*\n|\n(?=- )/).filter((p) => !/^\s*\|/.test(p) && !/^#/.test(p.trim()));
  const long = prose.map((p) => /** @type {[number, string]} */ ([p.trim().split(/\s+/).length, p.trim().slice(0, 80)])).filter(([n]) => n > 80);
  assert.deepEqual(long, []);
  assert.equal(guide.match(/Not measured here, because no MongoDB server could be had/g)?.length, 1);
});

test('schema 3: labels, budgets, the generator\'s share, a control, scaling and a skipped strategy', async () => {
  const doc = schema3();
  const guide = renderGuide(doc);
  const flow = mermaidOf(guide);
  // The 2+ cores branch is the largest measured budget, and says where more cores weren't measured.
  assert.match(flow, /pi -->\|"2\+ cores \(measured at 2 CPUs; more cores not measured\)"\| pi_cN\{/);
  // CPU-bound, 2+ cores, zero-downtime deploys: the cluster, resting on its 2-CPU verdict.
  assert.match(flow, /pi_cN_deploy\["<b>Express cluster of 2 behind nginx \(a rollout needs 2\+ processes\)<\/b><br\/>Express cluster of 2 ÷ Express 1 process: Express cluster of 2 wins ×1\.80 \(×1\.60–×2\.00\)"\]/);
  assert.match(flow, /click pi_cN_deploy "#v-pi-b2-cluster-throughput"/);
  assert.equal(recommend(doc, 'pi', 1, 'deploy').verdict.budget, 1);
  // A rollout needs a second process: at 1 CPU the pick is a topology of 2 processes, never one process.
  const deploy1 = recommend(doc, 'pi', 1, 'deploy').verdict;
  assert.ok(doc.cells.find((c) => c.topology.id === deploy1.a).topology.processes >= 2, deploy1.id);
  // The control is evidence for the baseline (memory at 1 CPU), never a recommendation of its own side.
  assert.match(flow, /pi_c1_memory\["<b>Express 1 process \(nothing measured better\)<\/b>[^\]]*"\]\n {2}click pi_c1_memory "#v-pi-b1-cluster-control-memory"/);
  assert.doesNotMatch(flow, /pi_c1_\w+\["<b>Express cluster of 2/);
  assert.match(guide, /### 2 CPU budget/);
  assert.match(guide, /\| <a id="v-light-b2-cluster-throughput"><\/a>`light\.b2\.cluster\.throughput` \| 2 \| equal \| ×1\.02 \| ×0\.95–×1\.08 \| 20% ⚠ over its 15% limit \|/);
  assert.match(guide, /\| <a id="v-pi-b2-replicas-throughput"><\/a>`pi\.b2\.replicas\.throughput` \| 2 \| can't tell \|/);
  assert.match(guide, /\| CPU-bound \(pi\) \| Express cluster of 2 \| 2 \| 1,540 \| 0\.90 \(0\.80–0\.97\) \|/);
  assert.match(guide, /\*\*PM2\*\* was not run here: PM2 is not installed \(…\/pm2 missing\)\./);
  assert.doesNotMatch(guide, /\btie\b|\/work\//);
  const { rows } = decisionFlow(doc);
  assert.equal(rows.length, 8);
  // The report and the charts read it too.
  const report = renderReport(doc, {});
  assert.match(report, /\*\*2 CPU budget\*\*/);
  const c = charts(doc);
  assert.ok(c['verdicts.svg'].spec.data.values.some((v) => /, 2 CPU$/.test(v.group)));
});

test('cost per million requests: CPU at a fixed rate as core-seconds, memory as GiB-hours; money only with prices', () => {
  const cell = { topology: { processes: 2 }, paced: { cpuPerRequestUs: { median: 250 } }, memoryMiB: { median: 512 }, rps: { median: 1000 } };
  const k = costOf(cell);
  assert.equal(k.coreSeconds, 250);
  assert.equal(k.gib, 0.5);
  assert.equal(k.perInstanceGib, 0.25);
  assert.ok(Math.abs(k.gibHours - (0.5 * 1000) / 3600) < 1e-9);
  assert.equal(k.money, null);
  const priced = costOf(cell, { vcpuHour: 0.036, gibHour: 0.0072 });
  assert.ok(Math.abs(priced.money - (0.036 * 250 / 3600 + 0.0072 * k.gibHours)) < 1e-12);
  const doc = committed();
  assert.doesNotMatch(renderGuide(doc), /cost per 1M requests/);
  withPrices(doc, { vcpuHour: 0.04, gibHour: 0.005 });
  assert.match(renderGuide(doc), /\| cost per 1M requests \(your currency\) \|/);
  assert.ok(!('prices' in JSON.parse(JSON.stringify(doc))), 'prices are never written to results.json');
});

test('the five experiments each get an answer and the control that decides it', () => {
  const doc = committed();
  const answers = seedAnswers(doc);
  assert.equal(answers.length, 5);
  for (const a of answers) {
    assert.match(a.answer, /^(confirmed|refuted|not testable on this machine)/, a.id);
    assert.ok(a.control, a.id);
    assert.ok(doc.verdicts.some((v) => v.id === a.control) || doc.cells.some((c) => c.id === a.control), a.control);
  }
  // Flip the compose-replicas control: the answer follows the data.
  const ctrl = doc.verdicts.find((v) => v.id === 'exp-compose-replicas.fixed-500');
  const before = answers.find((a) => a.id === 'exp-compose-replicas').answer;
  Object.assign(ctrl, { winner: ctrl.a, ratio: 5, ci95: [4, 6] });
  assert.notEqual(seedAnswers(doc).find((a) => a.id === 'exp-compose-replicas').answer, before);
});
