// The hand-written docs' parts that come from results.json, refreshed by every whole run (and by
// --from the committed results): the quote markers (quotes.js), and two rendered blocks a README
// carries on its first screen, the words the findings use and the findings themselves:
//   <!-- words -->…<!-- /words -->          the guide's "How to read this", without its heading
//   <!-- takeaways LINK -->…<!-- /takeaways -->   takeaways.js, linking the report at LINK
// A block holds exactly what the renderer makes of the run, so it can't go stale.
import fs from 'node:fs';
import path from 'node:path';
import { refresh as refreshQuotes } from './quotes.js';
import { takeaways } from './takeaways.js';
import { howToRead } from './guide-intro.js';

export const BLOCK = /<!-- (words|takeaways)(?: (\S+))? -->\n[\s\S]*?<!-- \/\1 -->/g;

const blockLines = (doc, kind, link) =>
  kind === 'words' ? howToRead(doc).slice(2) : takeaways(doc, { reportLink: link ?? 'docs/results/report.md' });

/** Rewrites every marker and block of a Markdown text. Returns { text, problems: [message] }. */
export function refresh(text, doc) {
  const problems = [];
  const blocks = text.replace(BLOCK, (whole, kind, link) => {
    try {
      const open = `<!-- ${kind}${link ? ` ${link}` : ''} -->`;
      return [open, ...blockLines(doc, kind, link), `<!-- /${kind} -->`].join('\n');
    } catch (e) {
      problems.push(`${kind} block: ${e.message}`);
      return whole;
    }
  });
  const quoted = refreshQuotes(blocks, doc);
  return { text: quoted.text, problems: [...problems, ...quoted.problems] };
}

/** Markdown files that may quote results: docs/ (but the generated results/ folder) and every README. */
export function quotingFiles(repo) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', '.git', '.run', '.tools', 'bin', 'obj', 'results'].includes(e.name)) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.md')) out.push(full);
    }
  };
  walk(repo);
  return out.sort();
}

/** Refreshes every quoting file in place. Returns { changed: [files], problems: ["file: message"] }. */
export function refreshDocs(repo, doc) {
  const changed = [];
  const problems = [];
  for (const file of quotingFiles(repo)) {
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('<!-- q ') && text.search(BLOCK) < 0) continue;
    const r = refresh(text, doc);
    problems.push(...r.problems.map((m) => `${path.relative(repo, file)}: ${m}`));
    if (r.text !== text) {
      fs.writeFileSync(file, r.text);
      changed.push(file);
    }
  }
  return { changed, problems };
}
