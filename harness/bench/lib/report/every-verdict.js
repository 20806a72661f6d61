// The report's list of every verdict, one row each with its anchor (labels.js anchorOf): the
// guide, the takeaways and the hand-written docs link a verdict here. Its CPUs, label, ratio and
// interval, the load generator's share where it shared the cores, and a note: what bounded it,
// why it was kept out, or why it was not measured. From results.json alone.
import { fmt, fmtX, fmtCi, esc, table, topologyOf } from './format.js';
import { sideName } from './verdict-table.js';
import {
  labelOf,
  LABEL_TEXT,
  budgetOf,
  shownVerdicts,
  generatorOf,
  skippedOf,
  saturatedCpu,
  anchorOf,
} from './labels.js';
import { shortReason, cleanText } from './sanitize.js';
import { boundText } from './bound-text.js';


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
  const won = l === 'wins' ? `${sideName(topologyOf(doc, v.winner))} wins` : LABEL_TEXT[l];
  return [
    `<a id="${anchorOf(v.id)}"></a>\`${v.id}\``,
    budgetOf(v, doc),
    won,
    l === null ? '—' : fmtX(v.ratio),
    l === null ? '—' : fmtCi(v.ci95),
    ...(gen ? [generatorText(v, doc)] : []),
    esc(noteOf(doc, v)),
  ];
}

/** Markdown lines: "## Every verdict", a sentence on how to read a row, and the table. */
export function everyVerdict(doc) {
  const vs = shownVerdicts(doc).filter((v) => !skippedOf(v, doc));
  if (!vs.length) return [];
  const gen = vs.some((v) => v.generator);
  return [
    '## Every verdict',
    '',
    'Each row: the first topology ÷ the second; throughput and capacity higher is better, the rest lower is better.',
    '',
    table(
      ['verdict', 'CPUs', 'label', 'ratio', '95% interval', ...(gen ? ['generator share'] : []), 'note'],
      vs.map((v) => verdictRow(doc, v, gen)),
    ),
    '',
  ];
}
