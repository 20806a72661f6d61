// Reasons stored in results.json can carry a start-up error as the machine wrote it: an absolute
// path of its checkout and the last line of a log. The docs get a short, repo-relative form.

// Paths under the roots a checkout or a temporary folder lives in; routes such as /api/items are left alone.
// Not /opt, /var, /etc or /run: the docs name paths inside the images (/opt/mssql-tools18, /run/secrets).
const ROOTS = 'work|tmp|root|home|Users|mnt|private';
const ABSOLUTE = new RegExp(`(?<![\\w.:/])/(?:${ROOTS})/(?:[\\w.@+-]+/)*[\\w.@+-]*`, 'g');
const NO_DATABASE = /no database here|no mongod|MongoDB .*could not be (?:downloaded|had)/i;

/** "no MongoDB server could be had" for every missing-database reason; else the text without paths or log lines. */
export function shortReason(text) {
  return NO_DATABASE.test(String(text ?? '')) ? 'no MongoDB server could be had' : cleanText(text);
}

/** A text without absolute paths (kept from `.run/` or the last two parts on) and without quoted log lines. */
export function cleanText(text) {
  let s = String(text ?? '')
    .replace(/\s*\(log: [^)]*\)/g, '')
    .replace(ABSOLUTE, (p) => {
      const run = p.indexOf('/.run/');
      if (run >= 0) return p.slice(run + 1).replace(/^(\.run\/[^/]+)\/.*\/([^/]+)$/, '$1/…/$2');
      const parts = p.split('/').filter(Boolean);
      return `…/${parts.slice(-1)[0] ?? ''}`;
    });
  const cut = s.search(/;?\s*last log line:/);
  if (cut >= 0) {
    s = s.slice(0, cut);
    const open = (s.match(/\(/g) ?? []).length - (s.match(/\)/g) ?? []).length;
    s += ')'.repeat(Math.max(0, open));
  }
  return s.replace(/\(\s*\)/g, '').replace(/\s{2,}/g, ' ').trim();
}

/** True where a text still holds an absolute path of a machine. */
export const hasAbsolutePath = (text) => new RegExp(`(?<![\\w.:/])/(?:${ROOTS})/[\\w.@+-]`).test(String(text));

/** The results document with every stored reason, error and command line in the short form (in place). */
export function sanitizeDoc(doc) {
  const clean = (s) => (hasAbsolutePath(s) || /last log line:|\(log: /.test(s) ? cleanText(s) : s);
  const walk = (x) => {
    if (Array.isArray(x)) return x.map((e) => (typeof e === 'string' ? clean(e) : walk(e)));
    if (x && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) x[k] = typeof v === 'string' ? clean(v) : walk(v);
    }
    return x;
  };
  return walk(doc);
}
