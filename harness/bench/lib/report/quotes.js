// Numbers quoted in hand-written Markdown come from results.json through markers the benchmark
// refreshes on every run:   <!-- q PATH FORMAT -->current text<!-- /q -->
// PATH: verdicts[<id>].<field> | cells[<id>].<field>... | checks[<id>]... | <top-level key>.<field>...
// A marker whose PATH doesn't resolve is an error, so a doc can't quietly keep a stale number.
// Which files carry markers, and the rendered blocks beside them: refresh-docs.js.
import { fmt, fmtX, fmtCi, verdictSentence } from './format.js';
import { LABEL_TEXT } from './labels.js';

export const MARKER = /<!-- q (\S+)(?: (\w+))? -->([\s\S]*?)<!-- \/q -->/g;

/** Resolves `verdicts[light.cluster.throughput].ci95` in a results document; undefined if absent. */
export function resolve(doc, p) {
  // One step a match: a name, [<id>] or an index, after an optional dot.
  const re = /\.?(?:([A-Za-z_$][\w$-]*)|\[([^\]]+)\]|(\d+))/y;
  let cur = doc;
  while (re.lastIndex < p.length) {
    const m = re.exec(p);
    if (!m || cur === null || cur === undefined) return undefined;
    const [, name, id, index] = m;
    if (name !== undefined) cur = cur[name];
    else if (id !== undefined) cur = Array.isArray(cur) ? cur.find((e) => e?.id === id || e?.name === id) : cur[id];
    else cur = cur[Number(index)];
  }
  return cur;
}

const FORMATS = {
  x: (v) => fmtX(v),
  ci: (v) => fmtCi(v),
  int: (v) => fmt(v, 0),
  num: (v) => fmt(v, 1),
  ms: (v) => `${fmt(v, v < 10 ? 1 : 0)} ms`,
  us: (v) => `${fmt(v, v < 100 ? 1 : 0)} µs`,
  mib: (v) => `${fmt(v, 0)} MiB`,
  pct: (v) => `${fmt(v, 1)}%`,
  text: (v) => String(v),
  label: (v) => LABEL_TEXT[v] ?? String(v),
};

/**
 * The text a marker should hold, or throws naming the path. A shorter run than the full one (the
 * default `make bench`) doesn't ask every question: what it didn't measure reads "n/a"; a full run
 * asks them all, so there a missing path is an error (a typo, or a question that no longer exists).
 */
export function render(doc, p, format = 'text') {
  const v = resolve(doc, p);
  if (v === undefined) {
    if (doc.mode === 'full') throw new Error(`"${p}" is not in results.json`);
    return `n/a (not measured by this ${doc.mode} run; make bench FULL=1 measures it)`;
  }
  if (format === 'verdict') {
    if (!v || typeof v !== 'object' || !('winner' in v)) {
      throw new Error(`"${p}" is not a verdict (use verdicts[<id>] with format verdict)`);
    }
    return verdictSentence(doc, v);
  }
  const f = FORMATS[format];
  if (!f) {
    throw new Error(`unknown quote format "${format}" (one of: ${[...Object.keys(FORMATS), 'verdict'].join(', ')})`);
  }
  if (v === null) return format === 'label' ? LABEL_TEXT.null : 'n/a';
  return f(v);
}

/** A marker of the figure at path `p`, holding its current text (render() throws for a bad path). */
export const quote = (doc, p, format = 'text') =>
  `<!-- q ${p}${format !== 'text' ? ` ${format}` : ''} -->${render(doc, p, format)}<!-- /q -->`;

/** Rewrites every marker of a Markdown text. Returns { text, problems: [message] }. */
export function refresh(text, doc) {
  const problems = [];
  const out = text.replace(MARKER, (whole, p, format = 'text') => {
    try {
      return quote(doc, p, format);
    } catch (e) {
      problems.push(e.message);
      return whole;
    }
  });
  return { text: out, problems };
}
