// The guide's "Decide" section: one small Mermaid chart per workload (its CPU budgets two to a
// chart, so no chart passes 15 nodes), each leaf a few words with the verdict's label and ratio,
// and the details in a table under it. From results.json alone.
import { fmtX, fmtCi, esc as mdEsc, cpus, table } from './format.js';
import { labelOf, LABEL_TEXT, budgetOf, mainVerdicts, anchorOf } from './labels.js';
import { strategyOptions } from './options.js';
import { leavesAt } from './leaves.js';
import { slugOf } from './slug.js';
import { drillCellsOf } from './drill-verdict.js';

// Two budgets to a chart: 1 question + 2 budgets + 2 × 5 answers = 13 nodes.
const BUDGETS_PER_CHART = 2;

// Inside a Markdown string of a Mermaid label: no backtick, no double quote.
const labelEsc = (s) => String(s).replaceAll('`', "'").replaceAll('"', "'");
const upperFirst = (t) => t.charAt(0).toUpperCase() + t.slice(1);

/** [{ workload, title, budgets: [{ budget, leaves }] }], a workload's budgets in chunks of two. */
export function decisions(doc) {
  const out = [];
  for (const [workload, w] of Object.entries(doc.workloads ?? {})) {
    // The budgets at which the workload's verdicts were asked, smallest first.
    const asked = new Set(mainVerdicts(doc).filter((v) => v.workload === workload).map((v) => budgetOf(v, doc)));
    const budgets = [...asked].sort((a, b) => a - b).flatMap((budget) => {
      const options = strategyOptions(doc, workload, budget);
      return options.length ? [{ budget, leaves: leavesAt(doc, { workload, budget, options }) }] : [];
    });
    for (let i = 0; i < budgets.length; i += BUDGETS_PER_CHART) {
      out.push({ workload, title: w.title ?? workload, budgets: budgets.slice(i, i + BUDGETS_PER_CHART) });
    }
  }
  return out;
}

/** The Mermaid source of one chart (without its fence). */
export function chartSource(chart) {
  const root = chart.workload.replace(/\W+/g, '_');
  const single = chart.budgets.length === 1;
  const question = single
    ? `${chart.title} at ${cpus(chart.budgets[0].budget)}: what matters most?`
    : `${chart.title}: how many CPUs, what matters most?`;
  const lines = ['flowchart LR', `  ${root}(["${labelEsc(question)}"])`];
  for (const { budget, leaves } of chart.budgets) {
    const from = single ? root : `${root}_b${budget}`;
    if (!single) lines.push(`  ${root} --> ${from}{"${cpus(budget)}"}`);
    for (const leaf of leaves) {
      lines.push(`  ${from} -->|${leaf.title}| ${from}_${leaf.key}["\`${leaf.lines.map(labelEsc).join('\n')}\`"]`);
    }
  }
  return lines.join('\n');
}

// At most this many verdicts beside an answer; the rest are one link away in the report's list.
const CITED = 2;

const cited = (doc, v, link) =>
  `[\`${v.id}\`](${link}#${anchorOf(v.id)}): ${LABEL_TEXT[labelOf(v, doc)] ?? 'not measured'} ` +
  `${fmtX(v.ratio)} (${fmtCi(v.ci95)})`;

/**
 * The table under a chart: each leaf's answer, the verdicts it rests on (the first few), and why.
 * @param {any} doc @param {any} chart @param {string} verdictLink the report, where every verdict is
 */
export function chartTable(doc, chart, verdictLink) {
  // The drills are a section of the guide itself.
  const drills = `[the drills](#${slugOf('When something dies / when you deploy')})`;
  const rows = chart.budgets.flatMap(({ budget, leaves }) => leaves.map((l) => {
    const more = l.cites.length - CITED;
    const rests = l.cites.length
      ? [
          ...l.cites.slice(0, CITED).map((v) => cited(doc, v, verdictLink)),
          ...(more > 0 ? [`and ${more} more in [the list](${verdictLink}#${slugOf('Every verdict')})`] : []),
        ].join('<br>')
      : l.key === 'deploy' && drillCellsOf(doc).length
        ? drills
        : '—';
    return [budget, l.title, mdEsc(l.answer), rests, mdEsc(l.note)];
  }));
  return table(['CPUs', 'what matters', 'answer', 'rests on', 'why, and what else decides'], rows);
}

/**
 * Markdown lines: every chart with its table.
 * @param {any} doc @param {string} verdictLink the report, where every verdict is
 */
export function decideSection(doc, verdictLink) {
  const out = [];
  for (const chart of decisions(doc)) {
    const span = chart.budgets.map((b) => b.budget).join(' and ');
    out.push(
      `### ${chart.title}, ${span} CPU${chart.budgets.length > 1 || chart.budgets[0].budget > 1 ? 's' : ''}`,
      '',
    );
    // A workload none of whose questions was measured gets a sentence, not a chart of "not measured".
    const asked = chart.budgets.flatMap((b) => b.leaves).filter((l) => l.key !== 'deploy');
    if (asked.every((l) => /^none$/.test(l.answer) && l.cites.every((v) => labelOf(v, doc) === null))) {
      const why = asked.find((l) => l.note)?.note ?? 'not measured here';
      const every = `${verdictLink}#${slugOf('Every verdict')}`;
      out.push(`${upperFirst(why)}: no answer for this workload. Its verdicts: [the list](${every}).`, '');
      continue;
    }
    out.push('```mermaid', chartSource(chart), '```', '', chartTable(doc, chart, verdictLink), '');
  }
  return out;
}
