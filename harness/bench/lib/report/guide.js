// docs/decision-guide.md: opens with the decision flow (a Mermaid flowchart from the verdicts),
// then why each strategy wins or loses, what a million requests cost, the published experiments'
// answers, how it was measured, every verdict, and a glossary. From results.json alone.
import { fmt, fmtX, fmtCi } from './format.js';
import { verdictTable, sideName } from './verdict-table.js';
import { decisionFlow, flowTable, anchorOf, labelText } from './flowchart.js';
import { labelOf, budgetOf, budgetsOf, ruleOf, mainVerdicts, shownVerdicts, generatorOf, skippedOf, skippedStrategies, saturatedCpu, isControlTopology } from './labels.js';
import { costTable, priceNote } from './cost.js';
import { seedSection } from './seeds.js';
import { shortReason, cleanText } from './sanitize.js';
import { extraSections } from './sections.js';
import { slugOf } from './slug.js';
import { placementText } from './method.js';

const esc = (s) => String(s ?? '').replaceAll('|', '\\|').replaceAll('\n', ' ');
const STRATEGY_TITLE = { reuseport: 'reusePort', pm2: 'PM2', cluster: 'Cluster', replicas: 'Replicas' };

// Plain reasons, one per strategy; the figures are in the flow and the tables, not repeated here.
const WHY = [
  ['One process', 'One Node process runs your JavaScript on one thread. It is the cheapest in memory and the simplest to run; where nothing measured beats it, keep it. It cannot be replaced without a gap: a crash or a deploy drops requests unless a second process is there to take them.'],
  ['Cluster', 'The cluster module forks workers that share one listening port. On two or more cores they compute at the same time, which is where a cluster pays. On one core they take turns on it: no more CPU, and every worker carries its own heap.'],
  ['reusePort', 'Separate Node processes each open the same port with SO_REUSEPORT, and the kernel spreads new connections over them: no primary process hands connections out. The spread is per connection, so a few long-lived connections can load one process more than another.'],
  ['PM2', 'PM2\'s cluster mode runs the cluster module under a process manager: the same shared port, plus restarts, logs and a reload command. The manager is one more process holding memory.'],
  ['Replicas behind nginx', 'Separate processes, each with its own slice of the CPU, and nginx spreading requests over them. They buy isolation and rolling restarts: a new replica starts and is checked before an old one stops. On one host they add no CPU, and a small slice per replica is throttled sooner in a burst.'],
  ['.NET thread pool', 'One ASP.NET Core process already spreads requests over every core it is given, through its thread pool: it needs no cluster. Replicas of it split the same cores between processes that each keep a pool, a JIT and a heap.'],
];

const GLOSSARY = [
  ['CFS quota', 'Linux caps a group of processes at so much CPU time per period (100 ms): a quota of one CPU allows 100 ms of it per period, shared by every thread of the group. Once it is spent, every thread waits for the next period, which is called being throttled. Docker\'s `cpus:` sets such a quota.'],
  ['PSS', 'Proportional set size: a process\'s memory with each page it shares divided among the processes sharing it, so the processes of one topology add up without counting a shared page twice.'],
  ['Coordinated omission', 'A load generator that waits for each answer before sending the next stops sending while the server stalls, so a stall shows as one slow request instead of every request that should have been sent. The paced generator times each request from when it was due, which avoids that.'],
  ['Slices', 'Each measured window is cut into one-second slices taken in turn with the other topologies of the round, so a pause of the shared machine lands on every topology alike instead of on one.'],
  ['Held rate', 'A window at a fixed rate counts only if the generator really sent at that rate. One that fell behind measured a lighter load than asked, so it is flagged.'],
];

function header(doc, { resultsLink, reportLink }) {
  const m = doc.meta.machine;
  const { margin } = ruleOf(doc);
  const pct = `${fmt(margin * 100)}%`;
  return [
    '# When clustering, replicas or thread pools win', '',
    `> From [results.json](${resultsLink}): a ${doc.mode} run started ${doc.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}). `
      + `Run \`make bench\` and this page is rewritten with your machine's figures. Every chart: [report.md](${reportLink}).`, '',
    `Each answer rests on a verdict: **wins** when the whole 95% interval lies beyond a ${pct} difference, **equal** when it lies within ±${pct}, **can't tell** when it crosses that line.`, '',
  ];
}

function warnings(doc) {
  const out = [];
  if (!doc.isolation.pinned) out.push(`> ⚠ **Unpinned run**: ${cleanText(doc.isolation.reason)}. The load generator competed with the servers for CPU.`, '');
  if (doc.box?.busy) out.push(`> ⚠ **Busy machine**: ${cleanText(doc.box.busyWhy)}. Expect wider intervals.`, '');
  return out;
}

function coresNote(doc) {
  const budgets = budgetsOf(doc);
  const largest = budgets[budgets.length - 1];
  if (largest === 1) return ['Two or more cores were not measured by this run: every topology had one CPU. Measure them with `make bench BUDGETS=1,2`.', ''];
  return [`More than ${largest} cores were not measured: the answers for 2+ cores are those at ${largest} CPUs, the largest budget this machine could give.`, ''];
}

function why(doc) {
  const out = ['## Why each strategy wins or loses', ''];
  for (const [title, text] of WHY) out.push(`**${title}.** ${text}`, '');
  for (const s of skippedStrategies(doc)) out.push(`**${esc(STRATEGY_TITLE[s.strategy] ?? s.strategy)}** was not run here: ${cleanText(s.why)}. Its verdicts are left out of the tables below.`, '');
  return out;
}

function cost(doc) {
  const table = costTable(doc);
  if (!table.length) return [];
  return ['## What a million requests cost', '',
    'CPU is the whole topology\'s CPU per request at a fixed rate below capacity, nginx included: its microseconds per request are its core-seconds per million. Memory is the whole topology\'s, held for as long as a million requests take at its measured capacity.', '',
    priceNote(doc), '', ...table, ''];
}

function notMeasured(doc) {
  const missing = mainVerdicts(doc).filter((v) => labelOf(v, doc) === null && !skippedOf(v, doc));
  const out = [];
  const mongo = missing.filter((v) => shortReason(v.reasons?.[0]) === 'no MongoDB server could be had');
  if (mongo.length) out.push('Not measured here, because no MongoDB server could be had: the Node side of the database-bound workload (`make setup` downloads MongoDB where the network allows; else set `MONGOD_BIN`, see the README\'s MONGOD_BIN section).', '');
  const other = new Map();
  for (const v of missing.filter((x) => !mongo.includes(x))) {
    const why = shortReason(v.reasons?.[0] ?? 'missing');
    other.set(why, [...(other.get(why) ?? []), v.id]);
  }
  for (const [why, ids] of other) out.push(`Not measured (${ids.length} verdicts, e.g. [\`${ids[0]}\`](#${anchorOf(ids[0])})): ${why}.`, '');
  const suspect = mainVerdicts(doc).filter((v) => labelOf(v, doc) !== null && v.suspect);
  if (suspect.length) out.push(`Kept out as suspect (${suspect.length}): ${suspect.map((v) => `[\`${v.id}\`](#${anchorOf(v.id)})`).join(', ')}; the reasons are in the table below.`, '');
  return out.length ? ['## Not measured here', '', ...out] : [];
}

function method(doc, { reportLink }) {
  const pr = doc.protocol;
  const budgets = budgetsOf(doc);
  const { confidence, margin } = ruleOf(doc);
  return ['## How it was measured', '',
    `- Every topology of a question got the same CPU budget (${budgets.map((b) => `${b} CPU`).join(', ')}), enforced as a CFS quota on the whole topology, nginx included.`,
    `- Placement: ${placementText(doc)}.`,
    `- ${pr.rounds} interleaved rounds of ${pr.windowS} s per cell${pr.sliceS ? `, taken in ${pr.sliceS} s slices` : ''}. Throughput is saturated; p99 and CPU per request are taken at a fixed rate below every side's capacity.`,
    `- A verdict is the ratio of medians with its ${fmt(confidence * 100)}% interval, judged against a ${fmt(margin * 100)}% margin.`,
    `- Machine, versions, ceilings and the exact command: [report.md](${reportLink}#${slugOf('How it was measured')}).`, ''];
}

// Beside a verdict whose topologies shared the generator's CPUs: its share of the machine, flagged
// over the limit; where it had a CPU of its own it took none of theirs.
function generatorText(v, doc) {
  const g = generatorOf(v);
  if (!g) return v.generator ? '— (its own CPU)' : '—';
  const limit = g.limit ?? doc.protocol?.generatorShareLimit;
  return `${fmt(g.share * 100)}%${g.bound ? ` ⚠ over its ${Number.isFinite(limit) ? `${fmt(limit * 100)}% ` : ''}limit` : ''}`;
}

function noteOf(doc, v) {
  const l = labelOf(v, doc);
  const notes = [];
  // Our words, not v.control's: the page says "equal", never "tie".
  if (saturatedCpu(v)) notes.push('CPU per request at saturation, the published experiment\'s own measure');
  if (v.control) notes.push(`control: ${doc.cells.find((c) => c.topology.id === v.a)?.topology.processes ?? 'more'} processes sharing ${budgetOf(v, doc)} CPU, so at best equal to one process`);
  if (l === null) notes.push(shortReason(v.reasons?.[0] ?? 'not measured'));
  else if (v.suspect) notes.push(`suspect: ${v.reasons.map(cleanText).join('; ')}`);
  else if (v.floorKnown === false) notes.push('spread between runs unknown');
  return notes.join('; ');
}

function everyVerdict(doc, { reportLink }) {
  const vs = shownVerdicts(doc).filter((v) => !skippedOf(v, doc));
  const charts = reportLink.includes('/') ? reportLink.slice(0, reportLink.lastIndexOf('/') + 1) : '';
  const out = ['## Every verdict', '', `![Every verdict's ratio and interval, one panel per question](${charts}verdicts.svg)`, ''];
  for (const b of budgetsOf(doc)) {
    const grid = verdictTable(doc, { budget: b });
    if (grid.length) out.push(`### ${b} CPU budget`, '', ...grid, '');
  }
  out.push('Each row: the first topology ÷ the second; throughput higher is better, the rest lower is better.', '');
  // The generator's share exists where it shared CPUs with the topologies (schema 3); else no column.
  const gen = vs.some((v) => v.generator);
  out.push(`| verdict | budget | label | ratio | 95% interval |${gen ? ' generator share |' : ''} note |`, `| --- | --- | --- | --- | --- |${gen ? ' --- |' : ''} --- |`);
  for (const v of vs) {
    const l = labelOf(v, doc);
    out.push(`| <a id="${anchorOf(v.id)}"></a>\`${v.id}\` | ${budgetOf(v, doc)} | ${labelText(doc, v)} | ${l === null ? '—' : fmtX(v.ratio)} | ${l === null ? '—' : fmtCi(v.ci95)} |${gen ? ` ${generatorText(v, doc)} |` : ''} ${esc(noteOf(doc, v))} |`);
  }
  return [...out, ''];
}

function scaling(doc) {
  const order = Object.keys(doc.workloads ?? {});
  const topo = (id) => doc.cells.find((c) => c.topology.id === id)?.topology;
  const rows = (doc.scaling ?? []).filter((s) => s.measured !== false && !skippedOf(s, doc))
    .sort((x, y) => order.indexOf(x.workload) - order.indexOf(y.workload) || y.budget - x.budget);
  if (!rows.length) return [];
  // The cluster of 2 on 1 CPU is said to be the control it is.
  const name = (s) => `${sideName(topo(s.topology))}${isControlTopology(doc, s.topology, s.budget) ? ` on ${s.budget} CPU (control)` : ''}`;
  const eff = (s) => (s.suspect ? `⚠ suspect ${fmt(s.efficiency, 2)}${s.why ? `: ${esc(cleanText(s.why))}` : ''}` : `${fmt(s.efficiency, 2)}${Array.isArray(s.ci95) ? ` (${fmt(s.ci95[0], 2)}–${fmt(s.ci95[1], 2)})` : ''}`);
  return ['## How throughput grew with cores', '',
    'Efficiency is throughput at a budget ÷ (the budget × the same app\'s one process at 1 CPU): 1 means every added core paid in full; at 1 CPU it is what the strategy\'s manager costs.', '',
    '| workload | topology | CPU budget | req/s | efficiency (95%) |', '| --- | --- | --- | --- | --- |',
    ...rows.map((s) => `| ${esc(doc.workloads?.[s.workload]?.title ?? s.workload)} | ${esc(name(s))} | ${s.budget} | ${fmt(s.rps)} | ${eff(s)} |`), ''];
}

function seeds(doc, reportLink) {
  const lines = seedSection(doc, { anchor: (id) => (doc.verdicts.some((v) => v.id === id) ? `#${anchorOf(id)}` : `${reportLink}#${slugOf(doc.scenarios.find((s) => id.startsWith(`${s.name}:`))?.title ?? '')}`) });
  return lines.length ? ['## The published experiments, answered', '', ...lines] : [];
}

export function renderGuide(doc, { reportLink = 'results/report.md', resultsLink = 'results/results.json' } = {}) {
  const { mermaid, rows } = decisionFlow(doc);
  const lines = [
    ...header(doc, { resultsLink, reportLink }),
    ...warnings(doc),
    '## Decide', '',
    'Follow your workload, your core count and what constrains you. Each box quotes the verdict it rests on; the table under the chart links each one to its row (GitHub does not follow links inside a chart).', '',
    ...mermaid, '',
    ...flowTable(doc, rows), '',
    ...coresNote(doc),
    ...why(doc),
    ...cost(doc),
    ...scaling(doc),
    ...seeds(doc, reportLink),
    ...extraSections(doc, 'guide'),
    ...notMeasured(doc),
    ...method(doc, { reportLink }),
    ...everyVerdict(doc, { reportLink }),
    '## Glossary', '',
    ...GLOSSARY.flatMap(([term, text]) => [`**${term}.** ${text}`, '']),
  ];
  return lines.join('\n');
}

export { fmt };
