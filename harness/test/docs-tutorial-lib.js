// Reading a tutorial's runnable examples: a ```console block right after `<!-- tutorial: ENGINE
// [CONDITION] -->` holds `$ command` lines, each followed by the output it prints, trimmed. The
// blocks of one page run in order as one session. Output lines are matched in order, as a
// subsequence of what the command printed: runs of whitespace are one space, a number of 4 or
// more digits (a pid, a port) stands for any, and `…` for anything.
import { codeOf } from './docs-lib.js';

const MARK = /<!--\s*tutorial:\s*(\w+)((?:\s+[\w-]+)*)\s*-->/;

/** [{ engine, conditions, line, steps: [{ command, expected: [line] }] }] of a Markdown text. */
export function tutorialBlocks(md) {
  const lines = md.split('\n');
  return codeOf(md).filter((c) => c.block && c.lang === 'console').flatMap((c) => {
    let i = c.line - 2;
    while (i >= 0 && !lines[i].trim()) i -= 1;
    const m = MARK.exec(lines[i] ?? '');
    if (!m) return [];
    return [{ engine: m[1], conditions: m[2].trim().split(/\s+/).filter(Boolean), line: c.line, steps: stepsOf(c.code) }];
  });
}

/** `$ command` lines (a trailing `\` continues one) and the output lines after each. */
export function stepsOf(code) {
  const steps = [];
  let continuing = false;
  for (const line of code.split('\n')) {
    if (continuing) { steps.at(-1).command += `\n${line}`; continuing = /\\$/.test(line); continue; }
    if (line.startsWith('$ ')) { steps.push({ command: line.slice(2), expected: [] }); continuing = /\\$/.test(line); continue; }
    if (steps.length && line.trim() && line.trim() !== '…') steps.at(-1).expected.push(line);
  }
  return steps;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pattern an expected output line stands for. */
export function linePattern(line) {
  const parts = line.trim().split('…').map((part) => escape(part)
    .replace(/─+/g, '─+')
    .replace(/\s+/g, '\\s+')
    .replace(/\d{4,}/g, '\\d+'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/** The expected lines not found, in order, among the printed ones: [] when the output matches. */
export function missingLines(expected, printed) {
  const lines = printed.split('\n').map((l) => l.trim()).filter(Boolean);
  const missing = [];
  let at = 0;
  for (const e of expected) {
    const re = linePattern(e);
    const found = lines.findIndex((l, i) => i >= at && re.test(l));
    if (found < 0) missing.push(e); else at = found + 1;
  }
  return missing;
}
