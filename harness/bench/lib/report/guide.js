// The decision guide (docs/decision-guide.md, or <out>/decision-guide.md): its first screen (what it
// answers, for which run, how to get yours), how to read it, one small chart per workload with the
// table under it, then why each strategy wins or loses, cost at capacity, scaling, the experiments,
// the drills, what wasn't measured, the method, every verdict and a glossary. From results.json
// alone; its prose is in templates/.
import { fmt, fmtX, fmtCi } from './format.js';
import { verdictTable, sideName } from './verdict-table.js';
import { decideSection } from './decide.js';
import {
  labelOf,
  LABEL_TEXT,
  budgetOf,
  budgetsOf,
  mainVerdicts,
  shownVerdicts,
  generatorOf,
  skippedOf,
  skippedStrategies,
  saturatedCpu,
  anchorOf,
} from './labels.js';
import { costSection } from './cost.js';
import { seedSection } from './seeds.js';
import { shortReason, cleanText } from './sanitize.js';
import { extraSections } from './sections.js';
import { slugOf } from './slug.js';
import { placementText } from './method.js';
import { fill } from './template.js';
import { firstScreen, howToRead, engineText, andList } from './guide-intro.js';
import { boundText } from './bound-text.js';
import { verdictChartFile } from './charts.js';

const esc = (s) =>
  String(s ?? '')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');
const cpus = (b) => `${b} CPU${b === 1 ? '' : 's'}`;

function warnings(doc) {
  const out = [];
  if (!doc.isolation.pinned)
    out.push(
      `> ⚠ **Unpinned run**: ${cleanText(doc.isolation.reason)}. ` +
        'The load generator competed with the servers for CPU.',
      '',
    );
  if (doc.box?.busy) out.push(`> ⚠ **Busy machine**: ${cleanText(doc.box.busyWhy)}. Expect wider intervals.`, '');
  return out;
}

function coresNote(doc) {
  const largest = budgetsOf(doc).at(-1);
  return [
    `More than ${cpus(largest)} was not measured by this run: on a bigger machine \`make bench\` sweeps its cores.`,
    '',
  ];
}

// The strategy records' own paragraphs (results.json `strategies`), and the ones this machine could not run.
function why(doc) {
  const records = doc.strategies ?? [];
  if (!records.length) return [];
  const out = ['## Why each strategy wins or loses', ''];
  for (const s of records) out.push(`**${s.title}.** ${s.why}`, '');
  for (const s of skippedStrategies(doc)) {
    const title = records.find((r) => r.key === s.strategy)?.title ?? s.strategy;
    out.push(
      `**${esc(title)}** was not run here: ${cleanText(s.why)}. Its verdicts are left out of the tables below.`,
      '',
    );
  }
  return out;
}

function scaling(doc) {
  const order = Object.keys(doc.workloads ?? {});
  const topo = (id) => doc.cells.find((c) => c.topology?.id === id)?.topology;
  const rows = (doc.scaling ?? [])
    .filter((s) => s.measured !== false && !skippedOf(s, doc))
    .sort((x, y) => order.indexOf(x.workload) - order.indexOf(y.workload) || x.budget - y.budget);
  if (!rows.length) return [];
  const eff = (s) => fmt(efficiencyOf(s), 2);
  // An efficiency says what the strategy scales to only where its cell was strategy-bound.
  const boundOf = (id) => doc.cells.find((c) => c.id === id)?.bound?.by ?? '—';
  const ci = (s) =>
    s.suspect
      ? `⚠ suspect${s.why ? `: ${esc(cleanText(s.why))}` : ''}`
      : Array.isArray(s.ci95)
        ? `${fmt(s.ci95[0], 2)}–${fmt(s.ci95[1], 2)}`
        : 'no interval';
  return [
    ...fill('guide-scaling'),
    '',
    '| workload | topology | CPUs | req/s (median) | one process at 1 CPU, req/s (median) | efficiency ' +
      '| 95% interval ' +
      '| what bounded it |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (s) =>
        `| ${[
          esc(doc.workloads?.[s.workload]?.title ?? s.workload),
          esc(sideName(topo(s.topology))),
          s.budget,
          fmt(s.rps),
          fmt(s.baseRps),
          eff(s),
          ci(s),
          boundOf(s.cell),
        ].join(' | ')} |`,
    ),
    '',
  ];
}

/** Efficiency as the guide defines and shows it: median req/s ÷ (budget × one process's median req/s at 1 CPU). */
export const efficiencyOf = (s) => (s.rps > 0 && s.baseRps > 0 ? s.rps / (s.budget * s.baseRps) : null);

function seeds(doc, reportLink) {
  const report = (id) => `${reportLink}#${slugOf(doc.scenarios.find((s) => id.startsWith(`${s.name}:`))?.title ?? '')}`;
  const lines = seedSection(doc, {
    anchor: (id) => (doc.verdicts.some((v) => v.id === id) ? `#${anchorOf(id)}` : report(id)),
  });
  return lines.length ? ['## The published experiments, answered', '', ...lines] : [];
}

function notMeasured(doc) {
  const missing = mainVerdicts(doc).filter((v) => labelOf(v, doc) === null && !skippedOf(v, doc));
  const byWhy = new Map();
  for (const v of missing) {
    const w = shortReason(v.reasons?.[0] ?? 'missing');
    byWhy.set(w, [...(byWhy.get(w) ?? []), v.id]);
  }
  const out = [...byWhy].map(
    ([w, ids]) =>
      `- ${ids.length} verdict${ids.length > 1 ? 's' : ''} (e.g. [\`${ids[0]}\`](#${anchorOf(ids[0])})): ${w}.`,
  );
  const suspect = mainVerdicts(doc).filter((v) => labelOf(v, doc) !== null && v.suspect);
  if (suspect.length)
    out.push(
      `- Kept out as suspect (${suspect.length}): ` +
        `${suspect.map((v) => `[\`${v.id}\`](#${anchorOf(v.id)})`).join(', ')}; ` +
        'the reasons are in the table below.',
    );
  return out.length ? ['## Not measured here', '', ...out, ''] : [];
}

function method(doc, reportLink) {
  const pr = doc.protocol;
  return [
    ...fill('guide-method', {
      budgets: andList(budgetsOf(doc).map(cpus)),
      engine: engineText(doc),
      placement: placementText(doc),
      rounds: pr.rounds,
      window: `${pr.windowS} s${pr.sliceS ? ` (in ${pr.sliceS} s slices)` : ''}`,
      load: pr.latency?.load ?? 'a fraction',
      report: `${reportLink}#${slugOf('How it was measured')}`,
    }),
    '',
  ];
}

// Beside a verdict whose topologies shared the generator's CPUs: its share of the machine.
function generatorText(v, doc) {
  const g = generatorOf(v);
  if (!g) return v.generator ? '— (its own CPU)' : '—';
  const limit = g.limit ?? doc.protocol?.generatorShareLimit;
  const over = g.bound ? ` ⚠ over its ${Number.isFinite(limit) ? `${fmt(limit * 100)}% ` : ''}limit` : '';
  return `${fmt(g.share * 100)}%${over}`;
}

function noteOf(doc, v) {
  const l = labelOf(v, doc);
  if (l === null) return shortReason(v.reasons?.[0] ?? 'not measured');
  if (l === 'bounded')
    return `${boundText(doc, v).long}${v.statLabel ? `; the interval alone: ${LABEL_TEXT[v.statLabel]}` : ''}`;
  if (saturatedCpu(v)) return "CPU per request at saturation, the published experiment's own measure";
  if (v.suspect) return `suspect: ${v.reasons.map(cleanText).join('; ')}`;
  return v.floorKnown === false ? 'spread between runs unknown' : '';
}

function verdictRow(doc, v, gen) {
  const l = labelOf(v, doc);
  const won =
    l === 'wins' ? `${sideName(doc.cells.find((c) => c.topology?.id === v.winner)?.topology)} wins` : LABEL_TEXT[l];
  const cells = [
    `<a id="${anchorOf(v.id)}"></a>\`${v.id}\``,
    budgetOf(v, doc),
    won,
    l === null ? '—' : fmtX(v.ratio),
    l === null ? '—' : fmtCi(v.ci95),
  ];
  return `| ${[...cells, ...(gen ? [generatorText(v, doc)] : []), esc(noteOf(doc, v))].join(' | ')} |`;
}

function everyVerdict(doc, reportLink) {
  const vs = shownVerdicts(doc).filter((v) => !skippedOf(v, doc));
  const charts = reportLink.includes('/') ? reportLink.slice(0, reportLink.lastIndexOf('/') + 1) : '';
  const out = ['## Every verdict', ''];
  for (const b of budgetsOf(doc)) {
    const grid = verdictTable(doc, { budget: b });
    if (!grid.length) continue;
    out.push(
      `### ${cpus(b)} budget`,
      '',
      `![Every verdict at ${cpus(b)}: its ratio and 95% interval](${charts}${verdictChartFile(b)})`,
      '',
      ...grid,
      '',
    );
  }
  out.push(
    'Each row: the first topology ÷ the second; throughput and capacity higher is better, the rest lower is better.',
    '',
  );
  const gen = vs.some((v) => v.generator);
  out.push(
    `| verdict | CPUs | label | ratio | 95% interval |${gen ? ' generator share |' : ''} note |`,
    `| --- | --- | --- | --- | --- |${gen ? ' --- |' : ''} --- |`,
  );
  return [...out, ...vs.map((v) => verdictRow(doc, v, gen)), ''];
}

/**
 * @param {any} doc
 * @param {{ reportLink?: string, resultsLink?: string, docsLink?: string }} [links] each relative to the guide's folder
 */
export function renderGuide(
  doc,
  { reportLink = 'results/report.md', resultsLink = 'results/results.json', docsLink = '' } = {},
) {
  return [
    ...firstScreen(doc, { reportLink, resultsLink, docsLink }),
    '',
    ...warnings(doc),
    ...howToRead(doc),
    '',
    ...fill('guide-decide'),
    '',
    ...coresNote(doc),
    ...decideSection(doc),
    ...why(doc),
    ...costSection(doc),
    ...scaling(doc),
    ...seeds(doc, reportLink),
    ...extraSections(doc, 'guide', {}, { docsLink }),
    ...notMeasured(doc),
    ...method(doc, reportLink),
    ...everyVerdict(doc, reportLink),
    ...fill('glossary'),
    '',
  ].join('\n');
}

export { fmt };
