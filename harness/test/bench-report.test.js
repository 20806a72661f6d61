// The report, charts and decision guide from a synthetic schema-4 run (fixtures/schema4-doc.js,
// built through the real plan and results code): the guide's first screen and "how to read" come
// before any chart and state the rule's own bounds; every chart parses with Mermaid's own parser and
// stays small; no leaf rests on a bounded verdict or picks between options the verdicts can't tell
// apart; every derived column reproduces from the fields it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeOutputs, writeResults } from '../bench/lib/report/write-folder.js';
import { MIN_DIFFERENCE } from '../bench/lib/judge/stats.js';
import { SPENT } from '../bench/lib/judge/bottleneck.js';
import { fmt } from '../bench/lib/report/format.js';
import { labelOf } from '../bench/lib/report/labels.js';
import { decisions } from '../bench/lib/report/decide.js';
import { charts, scaleTypeOf } from '../bench/lib/report/charts.js';
import { costCells } from '../bench/lib/report/cost.js';
import { schema4Doc } from './fixtures/schema4-doc.js';
import { parseFlowchart, mermaidBlocks } from './mermaid-parse.js';
import { takeaways } from '../bench/lib/report/takeaways.js';
import { refresh } from '../bench/lib/report/quotes.js';
import { rejudge } from '../bench/lib/judge/results-document.js';
import { resultsFolder } from '../bench/lib/run-setup.js';
import { readResults } from '../bench/lib/judge/read-results-file.js';
import { wordsOf } from './docs-lib.js';

const REPORT_DIR = path.join(import.meta.dirname, '..', 'bench', 'lib', 'report');
const REPO = path.join(REPORT_DIR, '..', '..', '..', '..');

async function rendered(doc = schema4Doc()) {
  const out = mkdtempSync(path.join(tmpdir(), 'bench-report-'));
  try {
    const files = await writeOutputs(doc, { outDir: out, guidePath: path.join(out, 'decision-guide.md'), repo: REPO });
    const read = (f) => readFileSync(path.join(out, f), 'utf8');
    return {
      doc,
      files,
      guide: read('decision-guide.md'),
      report: read('report.md'),
      svgs: readdirSync(out).filter((f) => f.endsWith('.svg')),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
const leafOf = (doc, workload, budget, key) =>
  decisions(doc)
    .filter((c) => c.workload === workload)
    .flatMap((c) => c.budgets)
    .find((b) => b.budget === budget)
    ?.leaves.find((l) => l.key === key);

test('the guide opens with what its words mean, the findings, the run, how to get yours; then charts', async () => {
  const { guide, report } = await rendered();
  for (const text of [guide, report]) assert.doesNotMatch(text, /NaN|undefined|\[object Object\]|\{\{/);
  const at = (s) => guide.indexOf(s);
  const order = [
    '# When clustering',
    '## How to read this',
    '## What this run found',
    '**Measured here**',
    '`make bench`',
    '`make report`',
    'make bench APP=',
    '## Decide',
    '```mermaid',
  ].map(at);
  assert.ok(
    order.every((x, i) => x >= 0 && (i === 0 || x > order[i - 1])),
    `in order: ${order}`,
  );
  // The answer on the first screen: the findings end within the first 60 lines.
  assert.ok(guide.split('\n').slice(0, 60).join('\n').includes('**Measured here**'), 'the findings fit one screen');
  assert.match(guide, /- engine: processes on 127\.0\.0\.1, each in a cgroup[^\n]*\n/);
  assert.match(guide, /- machine: 2 cores \(cpu\), 4 GiB[^\n]*; Node 24\.21\.0, \.NET 10\.0\.1/);
  assert.match(guide, /\(a default run, 2026-01-01 00:00 UTC, 13 min 45 s\)/);
  assert.match(guide, /\[benchmark-your-own-service\.md\]\([^)]*docs\/benchmark-your-own-service\.md\)/);
  // The labels' bounds are judge/stats.js's own, and "bounded" and the budget's threshold are judge/bottleneck.js's.
  const read = guide.slice(at('## How to read this'), at('## What this run found'));
  const up = `×${fmt(1 + MIN_DIFFERENCE, 2)}`;
  const down = `×${fmt(1 / (1 + MIN_DIFFERENCE), 3)}`;
  assert.equal(up, '×1.10');
  assert.equal(down, '×0.909');
  assert.ok(read.replace(/\s+/g, ' ').includes(`lies above ${up} or below ${down}`), read);
  assert.ok(read.replace(/\s+/g, ' ').includes(`within ${down}–${up}`), read);
  assert.ok(read.replace(/\s+/g, ' ').includes(`at least ${fmt(SPENT * 100)}% of its budget`), read);
  // Every word the findings and the charts use is defined before them.
  for (const term of ['**A ÷ B', '**wins**', '**equal**', "**can't tell**", '**bounded**', '**not measured**',
    '**capacity**', '**CPU budget**', '**spread between runs**']) {
    assert.ok(read.includes(term), term);
  }
  // Every verdict is listed, with its anchor, in the report; the guide links it there.
  assert.match(report, /## Every verdict/);
  assert.match(report, /<a id="v-pi-b2-cluster-capacity"><\/a>/);
  assert.doesNotMatch(guide, /<a id="v-/);
  assert.match(guide, /\]\([^)]*report\.md#v-pi-b2-cluster-capacity\)/);
});

test("every chart parses with Mermaid's parser, has <= 15 nodes, each leaf a label and ratio or why not", async () => {
  const { guide } = await rendered();
  const blocks = mermaidBlocks(guide);
  assert.equal(blocks.length, 3, 'light JSON, CPU-bound and slow I/O');
  for (const src of blocks) {
    const chart = await parseFlowchart(src);
    assert.ok(chart.nodes.length <= 15, `${chart.nodes.length} nodes`);
    const leaves = chart.nodes.filter((n) => !chart.edges.some((e) => e.start === n.id));
    assert.ok(leaves.length >= 5);
    for (const l of leaves) {
      assert.ok(l.text.split(/\s+/).length <= 25, l.text);
      assert.match(
        l.text,
        /(wins|equal|can't tell|bounded) ×\d|not measured here|not drilled in this run|lost nothing/,
        l.text,
      );
    }
  }
});

test('light JSON at the shared 2 CPUs is machine-bound: the leaf says so, cites the bound, recommends nothing', () => {
  const doc = schema4Doc();
  const leaf = leafOf(doc, 'light', 2, 'throughput');
  assert.equal(leaf.lines[0], 'machine-bound here: measure on ≥ 3 cores');
  assert.equal(labelOf(leaf.cites[0], doc), 'bounded');
  assert.equal(leaf.cites[0].bound.by, 'machine');
  assert.match(
    leaf.note,
    new RegExp(
      'the load generator, nginx and the kernel share these 2 cores — ' +
        'measure on at least 3 cores',
    ),
  );
  assert.match(leaf.answer, /^none/);
});

test("where the verdicts can't tell cluster and replicas apart, the leaf names both and what else decides", () => {
  const doc = schema4Doc();
  const v = doc.verdicts.find((x) => x.id === 'pi.b2.cluster-vs-replicas.capacity');
  assert.equal(v.label, 'cant-tell');
  const leaf = leafOf(doc, 'pi', 2, 'throughput');
  assert.equal(leaf.lines[0], 'cluster of 2 or 2 replicas');
  assert.match(leaf.lines[1], /^can't tell ×1\.01 \(cluster of 2 ÷ 2 replicas\)$/);
  assert.equal(leaf.lines[2], 'memory, operations decide');
  assert.equal(leaf.cites[0].id, v.id);
  // The runtime leaf rests on the direct verdicts, .NET against each of them, not through the baseline.
  const runtime = leafOf(doc, 'pi', 2, 'runtime');
  assert.deepEqual(runtime.cites.map((x) => x.id).sort(), [
    'pi.b2.dotnet-vs-cluster.capacity',
    'pi.b2.dotnet-vs-replicas.capacity',
  ]);
  // Memory: one process, and what it gives up against the throughput pick.
  const memory = leafOf(doc, 'pi', 2, 'memory');
  assert.equal(memory.lines[0], '1 process');
  assert.match(memory.lines.at(-1), /^capacity: cluster of 2 wins ×1\.9\d \(cluster of 2 ÷ 1 process\)$/);
  // Without drills, the deploy leaf says how to get them.
  assert.deepEqual(leafOf(doc, 'pi', 2, 'deploy').lines, [
    'not drilled in this run',
    'make bench SCENARIO=drills (or FULL=1)',
  ]);
  // The tail leaf says the rate and its fraction of the weakest capacity.
  assert.match(leafOf(doc, 'pi', 2, 'tail').note, /^p99 at 500 req\/s: 0\.8 of the weakest capacity \([\d,]+ req\/s, /);
});

test('no answer rests on a bounded or suspect verdict, even where one side won', () => {
  const doc = schema4Doc();
  // Make the cluster win the CPU-bound question at 2 CPUs with a machine-bound one process: bounded.
  for (const v of doc.verdicts.filter((x) => x.id.startsWith('pi.b2.') && x.metric === 'capacity'))
    Object.assign(v, { label: 'bounded', winner: null, bound: { by: 'machine', why: 'test' } });
  let answers = 0;
  for (const chart of decisions(doc)) {
    for (const { leaves } of chart.budgets) {
      for (const l of leaves.filter((x) => !/^none/.test(x.answer) && x.key !== 'deploy')) {
        answers += 1;
        const basis = l.cites[0];
        assert.ok(
          basis && !['bounded', null].includes(labelOf(basis, doc)) && !basis.suspect,
          `${chart.workload} ${l.key}: ${basis?.id}`,
        );
      }
    }
  }
  assert.ok(answers >= 6, `${answers} answers checked`);
  assert.match(leafOf(doc, 'pi', 2, 'throughput').lines[0], /^machine-bound here/);
});

// Drill records as the drills write them (report/drill-verdict.js reads drill.strategy, app, budget).
function drillCell(kind, strategy, budget, failedGets = 0) {
  const part = (requests, failed) => ({ requests, failed, retried: 0, errors: {} });
  const drill = {
    kind,
    strategy,
    processes: 2,
    budget,
    app: 'node-cluster',
    engine: 'processes',
    how: 'worker',
    kills: [{}],
    get: part(500, failedGets),
    post: part(100, 0),
    latencyMs: { p50: 1, p90: 2, p99: 50, max: 60 },
    backMs: { median: 1, max: 1 },
    outageMs: { median: 0, max: 0, total: 0 },
    durationS: 10,
    rate: 100,
    mix: { get: '/', post: { path: '/p' }, postShare: 0.2 },
    writes: { counted: false, why: 'no store here' },
  };
  return {
    id: `${kind}:${strategy}@${budget}`,
    scenario: 'drills',
    kind,
    strategy,
    processes: 2,
    budget,
    status: 'ok',
    drill,
  };
}

test('a deploy leaf names only strategies whose crash and rollout drills both lost nothing', () => {
  const doc = schema4Doc();
  doc.cells.push(drillCell('fault', 'cluster', 1), drillCell('rollout', 'cluster', 1));
  doc.cells.push(drillCell('fault', 'replicas', 1), drillCell('rollout', 'replicas', 1, 3));
  const leaf = leafOf(doc, 'pi', 1, 'deploy');
  assert.deepEqual(leaf.lines, ['cluster of 2', 'lost nothing when crashed or rolled out']);
  assert.match(leaf.note, /replicas lost something/);
  assert.match(leafOf(doc, 'pi', 2, 'deploy').lines[1], /drilled at another CPU budget/);
});

// A Markdown table's rows under the heading that starts with `heading`, as arrays of cells.
function tableAfter(text, heading) {
  const at = text.indexOf(heading);
  assert.ok(at >= 0, heading);
  const lines = text.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('| '));
  const rows = [];
  for (const l of lines.slice(start)) {
    if (!l.startsWith('|')) break;
    rows.push(
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  const [head, , ...body] = rows;
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

test('every derived column reproduces from the results.json fields it names', async () => {
  const { doc, report } = await rendered();
  const cells = costCells(doc);
  const cost = tableAfter(report, '## What a million requests cost');
  assert.equal(cost.length, cells.length);
  for (const [i, c] of cells.entries()) {
    const row = cost[i];
    const processes = c.rounds[0].processes;
    assert.equal(row['core-seconds per 1M at capacity'], fmt(c.cpuPerRequestUs.median, 1), c.id);
    assert.equal(row['capacity req/s'], fmt(c.capacity.rps), c.id);
    assert.equal(row['memory MiB, whole topology (processes)'], `${fmt(c.memoryMiB.median, 1)} (${processes})`, c.id);
    assert.equal(row['MiB per process'], fmt(c.memoryMiB.median / processes, 1), c.id);
    assert.equal(
      row['GiB-hours per 1M at capacity'],
      fmt(((c.memoryMiB.median / 1024) * (1e6 / c.capacity.rps)) / 3600, 4),
      c.id,
    );
    assert.equal(
      row['low rate: CPU per request'],
      `${fmt(c.paced.cpuPerRequestUs.median, 1)} µs at ${fmt(c.paced.rate)} req/s`,
      c.id,
    );
  }
  // Efficiency: the strategy's median req/s ÷ (budget × the one process's at 1 CPU), both shown.
  const scaling = tableAfter(report, '## How throughput grew with cores');
  assert.ok(scaling.length >= 4);
  for (const row of scaling) {
    const s = doc.scaling.find((x) => fmt(x.rps) === row['req/s (median)'] && String(x.budget) === row.CPUs);
    const [cell, base] = [s.cell, s.base].map((id) => doc.cells.find((c) => c.id === id));
    assert.equal(row['req/s (median)'], fmt(cell.rps.median));
    assert.equal(row['one process at 1 CPU, req/s (median)'], fmt(base.rps.median));
    assert.equal(row.efficiency, fmt(cell.rps.median / (s.budget * base.rps.median), 2));
  }
});

test('one verdict chart per budget, linear near 1; the report explains it and keeps no raw log', async () => {
  const { doc, report, svgs } = await rendered();
  assert.deepEqual(svgs.filter((f) => f.startsWith('verdicts')).sort(), ['verdicts-b1.svg', 'verdicts-b2.svg']);
  const spec = charts(doc)['verdicts-b2.svg'].spec;
  for (const panel of spec.hconcat) {
    const metric = panel.transform[0].filter.equal;
    const type = panel.layer[0].encoding.x.scale.type;
    assert.equal(type, scaleTypeOf(spec.data.values.filter((v) => v.metric === metric)), metric);
  }
  assert.ok(spec.hconcat.some((p) => p.layer[0].encoding.x.scale.type === 'linear'));
  assert.equal(
    scaleTypeOf([
      { lo: 0.9, hi: 1.2 },
      { lo: 1.7, hi: 2.1 },
    ]),
    'log',
  );
  assert.equal(
    scaleTypeOf([
      { lo: 0.9, hi: 1.2 },
      { lo: 1.7, hi: 1.9 },
    ]),
    'linear',
  );
  assert.match(report, /a panel's scale is linear where every interval lies\s+within ×0\.5–×2, logarithmic/);
  for (const f of ['verdicts-b1.svg', 'throughput.svg', 'memory.svg']) assert.ok(report.includes(`](${f})`), f);
  // No raw log: no line of ten or more percentages, no per-minute series.
  for (const line of report.split('\n')) assert.doesNotMatch(line, /(\d+%[ ,;]+){10}/);
  assert.doesNotMatch(report, /per minute:/);
  // Capacity and what bounded each cell are in the cells' table.
  assert.match(report, /\| capacity at the p99 target, req\/s \| what bounded it \|/);
  assert.match(report, /\| machine: it spent 1\.4 CPU of its 2-CPU budget/);
});

test('the report, charts and guide import nothing from the plan: results.json is all they read', () => {
  for (const f of readdirSync(REPORT_DIR).filter((x) => x.endsWith('.js'))) {
    const imports = [...readFileSync(path.join(REPORT_DIR, f), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map(
      (m) => m[1],
    );
    // judge/stats.js is pure functions over numbers (the one median); nothing else outside report/.
    for (const i of imports) assert.ok(!i.startsWith('../') || i === '../judge/stats.js', `${f} imports ${i}`);
  }
});

const committed = () =>
  JSON.parse(readFileSync(path.join(REPORT_DIR, '..', '..', '..', '..', 'docs', 'results', 'results.json'), 'utf8'));

test('the findings: at most eight, each quoting its figures from results.json and linking what it rests on', () => {
  const doc = committed();
  const items = takeaways(doc, { reportLink: 'results/report.md' });
  assert.ok(items.length > 0 && items.length <= 8, `${items.length} findings`);
  for (const item of items) {
    assert.match(item, /^- \*\*[^*]+\.\*\* \S/, item);
    assert.ok(wordsOf(item).length <= 80, `${wordsOf(item).length} words: ${item.slice(0, 60)}`);
    assert.doesNotMatch(item, /NaN|undefined|n\/a/, item);
    if (/Not measured in this run/.test(item)) continue;
    assert.match(item, /<!-- q \S+/, `a quoted figure: ${item.slice(0, 60)}`);
    assert.match(item, /\]\(results\/report\.md#[\w-]+\)/, `a link to what it rests on: ${item.slice(0, 60)}`);
    const r = refresh(item, doc);
    assert.deepEqual(r.problems, []);
    assert.equal(r.text, item, 'every quoted figure is current');
  }
  // Where a finding does not hold is said beside it: the budgets and what bounded them.
  assert.match(items[0], /It does not hold elsewhere: .*bounded by the machine/);
});

test('a results.json lacking a question the findings quote: "not measured in this run" with the reason', async () => {
  const doc = committed();
  // The question not asked at all: its verdicts gone.
  const asked = { ...doc, verdicts: doc.verdicts.filter((v) => !v.id.startsWith('pi.b2.')) };
  const [first, second] = takeaways(asked);
  assert.match(first, /^- \*\*CPU-bound work\.\*\* Not measured in this run: this full run did not ask it/);
  assert.match(second, /Not measured in this run: /);
  // Asked, but its cells could not run: the run's own reason.
  const failed = structuredClone(doc);
  for (const v of failed.verdicts.filter((x) => x.id.startsWith('pi.b2.')))
    Object.assign(v, { label: null, winner: null, measured: false, reasons: ['no database here: mongod exited'] });
  assert.match(takeaways(failed)[0], /Not measured in this run: no MongoDB server could be had\./);
  // Nothing to read at all: every finding says so, none is blank, nothing throws.
  const empty = { ...doc, verdicts: [], cells: [], workloads: {} };
  for (const item of takeaways(empty)) assert.match(item, /^- \*\*[^*]+\.\*\* Not measured in this run: \S/);
  // `make report` on such a file: the guide it writes says so too.
  const out = mkdtempSync(path.join(tmpdir(), 'bench-report-'));
  try {
    const fixture = schema4Doc();
    const kept = fixture.cells.filter((c) => !(c.workload === 'pi' && c.topology?.budgetCpus === 2));
    const lacking = { ...fixture, cells: kept };
    writeFileSync(path.join(out, 'results.json'), JSON.stringify(lacking));
    const from = path.join(out, 'results.json');
    await writeResults(rejudge(await readResults(from)), null, resultsFolder({}, out));
    const guide = readFileSync(path.join(out, 'decision-guide.md'), 'utf8');
    assert.match(guide, /- \*\*CPU-bound work\.\*\* Not measured in this run: its cell pi:\S+ is not in results\.json\./);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
