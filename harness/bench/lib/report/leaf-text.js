// The words of a guide leaf: short names of the options, a verdict's label and ratio with its
// direction, and what a leaf says when it has no answer (bounded, suspect, not measured).
import { labelOf, LABEL_TEXT } from './labels.js';
import { fmtX, topologyOf as topoOf } from './format.js';
import { shortReason, cleanText } from './sanitize.js';
import { baselineSample } from './options.js';
import { boundText } from './bound-text.js';
import { strategyWords } from './verdict-table.js';

/** "cluster of 2" for the baseline app's topologies, ".NET 1 process" for another app's. */
export function shortName(doc, t) {
  const own = t && t.sample === baselineSample(doc);
  const name = t ? (t.label ?? t.id) : '?';
  return own ? strategyWords(t) : `${name.split(',')[0]} ${strategyWords(t)}`;
}

export const nameOf = (doc, id) => shortName(doc, topoOf(doc, id));

/** "wins ×1.62 (cluster of 2 ÷ 1 process)": a verdict's label and ratio, its direction a ÷ b. */
export function citeLine(doc, v) {
  if (!v) return 'no verdict between them';
  const l = labelOf(v, doc);
  const dir = `${nameOf(doc, v.a)} ÷ ${nameOf(doc, v.b)}`;
  if (l === null) return 'not measured';
  const word = l === 'wins' ? `${nameOf(doc, v.winner)} wins` : LABEL_TEXT[l];
  return `${word} ${fmtX(v.ratio)} (${dir})${v.suspect ? ', suspect' : ''}`;
}

/**
 * Why no answer: the verdicts were bounded (said plainly, with what to measure on), suspect, or not
 * measured; or none was asked (notAsked says why).
 */
export function absent(doc, key, title, verdicts, notAsked) {
  const leaf = (lines, answer, cites, note) => ({ key, title, lines, answer, cites, note });
  const bounded = verdicts.find((v) => labelOf(v, doc) === 'bounded');
  if (bounded) {
    const b = boundText(doc, bounded);
    return leaf([b.short, citeLine(doc, bounded)], 'none: the strategies were not the bottleneck', [bounded], b.long);
  }
  const suspect = verdicts.find((v) => labelOf(v, doc) !== null && v.suspect);
  if (suspect) {
    const why = cleanText(suspect.reasons?.[0] ?? 'suspect');
    const note = `not measured here, because the verdict was kept out as suspect: ${why}`;
    return leaf(['kept out as suspect', citeLine(doc, suspect)], 'none', [suspect], note);
  }
  const missing = verdicts.find((v) => labelOf(v, doc) === null);
  const because = missing ? shortReason(missing.reasons?.[0] ?? 'a cell did not run') : notAsked;
  const note = `not measured here, because ${because}`;
  return leaf(['not measured here', because], 'none', missing ? [missing] : [], note);
}

/** "a, b or c". */
export const orList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`);
