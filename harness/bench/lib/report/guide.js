// The decision guide (docs/decision-guide.md, or <out>/decision-guide.md): what its words mean, the
// run's findings (takeaways.js), for which run and how to get yours, one small chart per workload
// with a short table under it, why each strategy wins or loses, the drills, the experiments' answers
// and what wasn't measured. Every verdict, cost, scaling, the method and the glossary are the
// report's (markdown.js), linked. From results.json alone; its prose is in templates/.
import { decideSection } from './decide.js';
import { labelOf, budgetsOf, mainVerdicts, skippedOf, skippedStrategies, anchorOf } from './labels.js';
import { seedSection } from './seeds.js';
import { shortReason, cleanText } from './sanitize.js';
import { ENGINE_NAME, renderDrills } from './drills.js';
import { drillCellsOf } from './drill-verdict.js';
import { slugOf } from './slug.js';
import { fill } from './template.js';
import { firstScreen, howToRead } from './guide-intro.js';
import { verdictChartFile } from './charts.js';
import { takeaways } from './takeaways.js';
import { esc, cpus, andList } from './format.js';


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

function decideIntro(doc, reportLink) {
  const charts = reportLink.slice(0, reportLink.lastIndexOf('/') + 1);
  const largest = budgetsOf(doc).at(-1);
  return [
    ...fill('guide-decide', {
      charts: andList(budgetsOf(doc).map((b) => `[${cpus(b)}](${charts}${verdictChartFile(b)})`)),
      every: `${reportLink}#${slugOf('Every verdict')}`,
    }),
    '',
    `More than ${cpus(largest)} was not measured by this run: on a bigger machine \`make bench\` sweeps its cores.`,
    '',
  ];
}

// The strategy records' own paragraphs (results.json `strategies`), and the ones this machine could not run.
function why(doc) {
  const records = doc.strategies ?? [];
  if (!records.length) return [];
  const out = ['## Why each strategy wins or loses', ''];
  for (const s of records) out.push(`- **${s.title}.** ${s.why}`);
  for (const s of skippedStrategies(doc)) {
    const title = records.find((r) => r.key === s.strategy)?.title ?? s.strategy;
    out.push(`- **${esc(title)}** was not run here: ${cleanText(s.why)}. Its verdicts are left out of the tables.`);
  }
  return [...out, ''];
}

// Lines of `lines` less each block that starts with a line `title` and ends at its table's or list's end.
function without(lines, title) {
  const at = lines.indexOf(title);
  if (at < 0) return lines;
  let end = at + 2;
  while (end < lines.length && lines[end] !== '') end += 1;
  return without([...lines.slice(0, at), ...lines.slice(end + 1)], title);
}

// The drills' deploy table per engine, the pass line and why requests failed; each drill's own
// counts, which writes were not counted and how each strategy is drilled stay in the report.
// The guide keeps the tables of what users deploy (Docker, Swarm); the local runner's is in the report.
function drills(doc, { reportLink, docsLink }) {
  if (!drillCellsOf(doc).length) return [];
  const local = `### On ${ENGINE_NAME.processes}`;
  const rendered = renderDrills(doc, { docs: docsLink });
  const kept = ['How each strategy is drilled:', 'Each drill:', 'Writes not counted:', local].reduce(without, rendered);
  const at = `${reportLink}#${slugOf('When something dies / when you deploy')}`;
  const more = `Each drill's own counts, which writes it counted, what it does to each strategy${
    rendered.includes(local) ? ', the same drills on the local runner' : ''}: [the report](${at}).`;
  return [...kept, more, ''];
}

function seeds(doc, reportLink) {
  const report = (id) => `${reportLink}#${slugOf(doc.scenarios.find((s) => id.startsWith(`${s.name}:`))?.title ?? '')}`;
  const lines = seedSection(doc, {
    anchor: (id) => (doc.verdicts.some((v) => v.id === id) ? `${reportLink}#${anchorOf(id)}` : report(id)),
  });
  return lines.length ? ['## The published experiments, answered', '', ...lines] : [];
}

function notMeasured(doc, reportLink) {
  const link = (id) => `[\`${id}\`](${reportLink}#${anchorOf(id)})`;
  const missing = mainVerdicts(doc).filter((v) => labelOf(v, doc) === null && !skippedOf(v, doc));
  const byWhy = Map.groupBy(missing, (v) => shortReason(v.reasons?.[0] ?? 'missing'));
  const out = [...byWhy].map(
    ([w, vs]) => `- ${vs.length} verdict${vs.length > 1 ? 's' : ''} (e.g. ${link(vs[0].id)}): ${w}.`,
  );
  const suspect = mainVerdicts(doc).filter((v) => labelOf(v, doc) !== null && v.suspect);
  if (suspect.length) {
    const some = suspect.slice(0, 3).map((v) => link(v.id)).join(', ');
    const rest = suspect.length > 3 ? ` and ${suspect.length - 3} more in [the list](${reportLink}#every-verdict)` : '';
    out.push(`- Kept out as suspect (${suspect.length}): ${some}${rest}.`);
  }
  return out.length ? ['## Not measured here', '', ...out, ''] : [];
}

const more = (reportLink) => [
  ...fill('guide-more', {
    report: reportLink,
    every: `${reportLink}#${slugOf('Every verdict')}`,
    cost: `${reportLink}#${slugOf('What a million requests cost')}`,
    scaling: `${reportLink}#${slugOf('How throughput grew with cores')}`,
    glossary: `${reportLink}#${slugOf('Glossary')}`,
    method: `${reportLink}#${slugOf('How it was measured')}`,
  }),
  '',
];

/**
 * @param {any} doc
 * @param {{ reportLink?: string, resultsLink?: string, docsLink?: string }} [links] each relative to the guide's folder
 */
export function renderGuide(
  doc,
  { reportLink = 'results/report.md', resultsLink = 'results/results.json', docsLink = '' } = {},
) {
  return [
    ...fill('guide-intro'),
    '',
    ...howToRead(doc),
    '',
    '## What this run found',
    '',
    ...takeaways(doc, { reportLink }),
    '',
    ...firstScreen(doc, { reportLink, resultsLink, docsLink }),
    '',
    ...warnings(doc),
    ...decideIntro(doc, reportLink),
    ...decideSection(doc, reportLink),
    ...why(doc),
    ...drills(doc, { reportLink, docsLink }),
    ...seeds(doc, reportLink),
    ...notMeasured(doc, reportLink),
    ...more(reportLink),
  ].join('\n');
}
