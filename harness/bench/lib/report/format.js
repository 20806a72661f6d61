import { labelOf as verdictLabel, LABEL_TEXT } from './labels.js';
import { shortReason, cleanText } from './sanitize.js';

// Number and verdict formatting for the report, the guide and quoted docs: a missing number
// prints as "n/a", never as NaN.
export function fmt(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Text for a cell of a Markdown table: its pipes escaped, on one line. */
export const esc = (s) =>
  String(s ?? '')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');
/** The same for a text that may carry a machine's path or a log line (sanitize.js cleanText). */
export const escText = (s) => esc(cleanText(s));
/** "a, b and c". */
export const andList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);
/** A row of a Markdown table. */
export const row = (cells) => `| ${cells.join(' | ')} |`;
/** A Markdown table: its header row, the rule, a row each. */
export const table = (head, rows) => [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
/** A whole number with thousands separators, or n/a. */
export const num = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
/** "4 cores (<model>), 16 GiB": the machine a run measured on (results.json meta.machine). */
export const machineText = (m) => `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB`;
/** "1 CPU", "2 CPUs". */
export const cpus = (b) => `${b} CPU${b === 1 ? '' : 's'}`;

export const fmtX = (r, digits = 2) => (Number.isFinite(r) ? `×${fmt(r, digits)}` : 'n/a');
export const fmtCi = (ci, digits = 2) =>
  (Array.isArray(ci) ? `×${fmt(ci[0], digits)}–×${fmt(ci[1], digits)}` : 'no interval');

/** A topology of the results' cells, found by its id. */
export const topologyOf = (doc, id) => doc.cells.find((c) => c.topology?.id === id)?.topology;
/** A topology's label, found by id among the results' cells. */
export const labelOf = (doc, topologyId) => topologyOf(doc, topologyId)?.label ?? topologyId;

/**
 * A verdict in words: "<winner> wins: <a> ÷ <b> = ×1.45 (95%: ×1.30–×1.62)", "equal: …",
 * "can't tell: …", or why there is none.
 */
export function verdictSentence(doc, v) {
  const label = verdictLabel(v, doc);
  if (label === null) return `not measured (${shortReason(v.reasons?.[0] ?? 'missing')})`;
  if (v.suspect) return `suspect, kept out: ${v.reasons.map(cleanText).join('; ')}`;
  const ratio = `${labelOf(doc, v.a)} ÷ ${labelOf(doc, v.b)} = ${fmtX(v.ratio)} (95%: ${fmtCi(v.ci95)})`;
  return label === 'wins' ? `${labelOf(doc, v.winner)} wins: ${ratio}` : `${LABEL_TEXT[label]}: ${ratio}`;
}
