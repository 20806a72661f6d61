// The report's "How throughput grew with cores": each strategy's median req/s at a budget of B CPUs
// against B × the same app's one process at 1 CPU (its efficiency), with the interval and what
// bounded the cell. From results.json alone; the prose is templates/report-scaling.md.
import { fmt, esc, table, topologyOf } from './format.js';
import { sideName } from './verdict-table.js';
import { skippedOf } from './labels.js';
import { cleanText } from './sanitize.js';
import { fill } from './template.js';


/** Efficiency as the report defines and shows it: median req/s ÷ (budget × one process's median req/s at 1 CPU). */
export const efficiencyOf = (s) => (s.rps > 0 && s.baseRps > 0 ? s.rps / (s.budget * s.baseRps) : null);

/** Markdown lines of the section, or none where the run measured no scaling. */
export function scalingSection(doc) {
  const order = Object.keys(doc.workloads ?? {});
  const rows = (doc.scaling ?? [])
    .filter((s) => s.measured !== false && !skippedOf(s, doc))
    .sort((x, y) => order.indexOf(x.workload) - order.indexOf(y.workload) || x.budget - y.budget);
  if (!rows.length) return [];
  // An efficiency says what the strategy scales to only where its cell was strategy-bound.
  const boundOf = (id) => doc.cells.find((c) => c.id === id)?.bound?.by ?? '—';
  const ci = (s) =>
    s.suspect
      ? `⚠ suspect${s.why ? `: ${esc(cleanText(s.why))}` : ''}`
      : Array.isArray(s.ci95)
        ? `${fmt(s.ci95[0], 2)}–${fmt(s.ci95[1], 2)}`
        : 'no interval';
  return [
    ...fill('report-scaling'),
    '',
    table(
      ['workload', 'topology', 'CPUs', 'req/s (median)', 'one process at 1 CPU, req/s (median)', 'efficiency',
        '95% interval', 'what bounded it'],
      rows.map((s) => [
        esc(doc.workloads?.[s.workload]?.title ?? s.workload),
        esc(sideName(topologyOf(doc, s.topology))),
        s.budget,
        fmt(s.rps),
        fmt(s.baseRps),
        fmt(efficiencyOf(s), 2),
        ci(s),
        boundOf(s.cell),
      ]),
    ),
    '',
  ];
}
