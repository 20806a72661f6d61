// GitHub's heading anchors: lower case, markup and punctuation dropped, spaces to hyphens; a
// repeated heading gets -1, -2 ... Used to link headings and by the test that every anchor resolves.
export function slugOf(heading) {
  return String(heading)
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*~]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text defines: its headings' slugs (deduplicated as GitHub does) and <a id|name>. */
export function anchorsOf(markdown) {
  const out = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) { fence = !fence; continue; }
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slugOf(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}
