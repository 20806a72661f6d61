// What the docs tests read the Markdown with: which files a reader copies from, their code blocks
// and their paragraphs. Not a test itself; docs-*.test.js import it.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';

const SKIP = new Set(['node_modules', '.git', '.run', '.tools', 'bin', 'obj', 'out']);

function walk(dir, keep, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(full, keep, out);
    else if (keep(full)) out.push(full);
  }
  return out;
}

/** docs/ (Markdown, SVG, results.json) and every README of the repository. */
export function readerFiles(repo = REPO_ROOT) {
  const docs = walk(path.join(repo, 'docs'), (f) => /\.(md|svg|json)$/.test(f));
  const readmes = walk(repo, (f) => path.basename(f) === 'README.md' && !f.startsWith(path.join(repo, 'docs')));
  return [...docs, ...readmes].sort();
}

/** The pages a person reads as prose: the root README, docs/ but what the bench generates, the samples' READMEs. */
export function proseFiles(repo = REPO_ROOT) {
  const docs = fs.readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'decision-guide.md')
    .map((f) => path.join(repo, 'docs', f));
  const samples = ['node-cluster', 'node-replicas', 'dotnet-api', 'proxy']
    .map((s) => path.join(repo, s, 'README.md'))
    .filter((f) => fs.existsSync(f));
  return [path.join(repo, 'README.md'), ...docs, ...samples].sort();
}

/**
 * The user-facing Markdown whose length is held down: the root README, docs/*.md (the rendered guide
 * included, docs/results/ aside) and the READMEs of the samples and proxy/.
 */
export function userFacingMarkdown(repo = REPO_ROOT) {
  const docs = fs.readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(repo, 'docs', f));
  return [...new Set([...proseFiles(repo), ...docs])].sort();
}

/** The lines of a text as `wc -l` counts them. */
export const lineCount = (text) => (text.match(/\n/g) ?? []).length;

/**
 * Why a set of files is too long, or null: their total against `max`, naming the longest `name` of
 * them, longest first. counts: [{ file, lines }].
 */
export function lengthProblem(counts, max, name = 3) {
  const total = counts.reduce((sum, c) => sum + c.lines, 0);
  if (total <= max) return null;
  const longest = [...counts].sort((a, b) => b.lines - a.lines).slice(0, name);
  const named = longest.map((c) => `${c.file} (${c.lines})`).join(', ');
  return `${total} lines, ${total - max} over ${max}; the longest: ${named}`;
}

/** Fenced code blocks and inline code spans of a Markdown text: [{ code, line, block, lang, end }]. */
export function codeOf(md) {
  const out = [];
  const lines = md.split('\n');
  let fence = null;
  for (let i = 0; i < lines.length; i += 1) {
    const l = lines[i];
    if (/^\s*(```|~~~)/.test(l)) {
      if (fence) { out.push({ code: fence.body.join('\n'), line: fence.line, block: true, lang: fence.lang, end: i + 1 }); fence = null; } else fence = { line: i + 1, body: [], lang: l.replace(/^\s*(```|~~~)/, '').trim() };
      continue;
    }
    if (fence) { fence.body.push(l); continue; }
    for (const m of l.matchAll(/(`+)([^`]+?)\1/g)) out.push({ code: m[2], line: i + 1, block: false });
  }
  return out;
}

/** The words a reader sees in a piece of Markdown prose (quote markers and link targets left out; a dash counts). */
export function wordsOf(text) {
  const plain = text
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ');
  return plain.split(/\s+/).filter(Boolean);
}

/**
 * The paragraphs of a Markdown text, [{ line, words, text }]: runs of prose lines between blank
 * lines, each list item its own; code blocks, tables, headings and HTML comments aside.
 */
export function paragraphsOf(md) {
  const out = [];
  let cur = null;
  let fence = false;
  const close = () => { if (cur) { out.push({ ...cur, words: wordsOf(cur.text).length }); cur = null; } };
  md.split('\n').forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) { close(); fence = !fence; return; }
    if (fence) return;
    if (!l.replace(/<!--[\s\S]*?-->/g, '').trim() || /^\s*(#|\|)/.test(l)) { close(); return; }
    if (/^\s*([-*+]|\d+\.)\s/.test(l)) close();
    if (cur) cur.text += ` ${l.trim()}`;
    else cur = { line: i + 1, text: l.trim() };
  });
  close();
  return out;
}

/** The cells of every Markdown table outside code: [{ line, column, words, text }], header and --- rows left out. */
export function tableCellsOf(md) {
  const out = [];
  let fence = false;
  let row = 0;
  md.split('\n').forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    if (fence || !/^\s*\|/.test(l)) { row = 0; return; }
    row += 1;
    if (row <= 2) return; // the header and the --- row
    const cells = l.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/);
    cells.forEach((c, column) =>
      out.push({ line: i + 1, column, words: wordsOf(c.replace(/<br>/g, ' ')).length, text: c.trim() }),
    );
  });
  return out;
}

const LOG_LINE = /^\s*(\{"|ℹ |\[\d{4}-\d\d-\d\d|Requests\/sec:)|\d\d:\d\d:\d\d/;
const DATE = /\b20\d\d-\d\d-\d\d\b/;
export const OUTPUT_LIMITS = { lines: 15, width: 200, dateWithin: 8 };

/**
 * Where a page shows output the wrong way: [{ line, why }]. A ```console block is a short example:
 * it starts with the `$ command` that printed it, stays within OUTPUT_LIMITS, and has a date near
 * it (the hand run's). Any other block that reads like a log (JSON lines, timestamps, test output)
 * is a raw dump.
 */
export function outputProblems(md) {
  const lines = md.split('\n');
  const out = [];
  for (const b of codeOf(md).filter((c) => c.block)) {
    const body = b.code.split('\n');
    if (b.lang === 'console') {
      if (!/^\$ /.test(body.find((l) => l.trim()) ?? '')) out.push({ line: b.line, why: 'a console block starts with the $ command that printed it' });
      if (body.length > OUTPUT_LIMITS.lines) {
        out.push({ line: b.line, why: `${body.length} lines of output (at most ${OUTPUT_LIMITS.lines}: trim it)` });
      }
      const wide = body.find((l) => l.length > OUTPUT_LIMITS.width);
      const wideWhy = (w) => `a line of ${w.length} characters (at most ${OUTPUT_LIMITS.width}): ${w.slice(0, 60)}…`;
      if (wide) out.push({ line: b.line, why: wideWhy(wide) });
      const before = lines.slice(Math.max(0, b.line - 1 - OUTPUT_LIMITS.dateWithin), b.line - 1);
      const near = [...before, ...lines.slice(b.end, b.end + 4)];
      if (!near.some((l) => DATE.test(l))) out.push({ line: b.line, why: 'no date of the run beside the output' });
    } else if (body.filter((l) => LOG_LINE.test(l)).length >= 3) {
      const why = 'a raw log dump: show a few trimmed lines in a console block, with the command and date';
      out.push({ line: b.line, why });
    }
  }
  return out;
}
