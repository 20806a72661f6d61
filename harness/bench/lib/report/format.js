import { labelOf as verdictLabel, LABEL_TEXT } from './labels.js';
import { shortReason, cleanText } from './sanitize.js';

// Number and verdict formatting for the report, the guide and quoted docs: a missing number
// prints as "n/a", never as NaN.
export function fmt(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export const fmtX = (r, digits = 2) => (Number.isFinite(r) ? `×${fmt(r, digits)}` : 'n/a');
/** "light JSON: 5; other workloads: 3": the latency rounds per workload of a protocol's `latency`. */
export function latencyRoundsText({ rounds, roundsByWorkload = {} }, titleOf = (w) => w) {
  const per = Object.entries(roundsByWorkload).map(([w, n]) => `${titleOf(w)}: ${n}`);
  per.push(rounds ? `${per.length ? 'other workloads' : 'every workload'}: ${rounds}` : 'no other workload');
  return per.join('; ');
}

export const fmtCi = (ci, digits = 2) => (Array.isArray(ci) ? `×${fmt(ci[0], digits)}–×${fmt(ci[1], digits)}` : 'no interval');

/** A topology's label, found by id among the results' cells. */
export function labelOf(doc, topologyId) {
  return doc.cells.find((c) => c.topology?.id === topologyId)?.topology.label ?? topologyId;
}

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
