// Reading and running a tutorial's examples: a ```console block right after `<!-- tutorial: ENGINE
// -->` (processes or docker) holds `$ command` lines, each followed by the output it prints, trimmed. The
// blocks of one page run in order as one session. Output lines are matched in order, as a
// subsequence of what the command printed: runs of whitespace are one space, a number of 4 or
// more digits (a pid, a port) stands for any, and `…` for anything.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../lib/repo-root.js';
import { codeOf } from './docs-lib.js';

export const BIN = path.join(REPO_ROOT, 'harness', 'node_modules', '.bin');
// Commands that only read: run again (a bounded number of times) while what they read settles,
// e.g. `make ps` right after a kill, until the restart policy has the instance back.
const READS = /^(make ps|curl|cat|grep|tail)\b/;
const TRIES = 20;

const MARK = /<!--\s*tutorial:\s*(\w+)\s*-->/;

/** [{ engine, line, steps: [{ command, expected: [line] }] }] of a Markdown text. */
export function tutorialBlocks(md) {
  const lines = md.split('\n');
  return codeOf(md).filter((c) => c.block && c.lang === 'console').flatMap((c) => {
    let i = c.line - 2;
    while (i >= 0 && !lines[i].trim()) i -= 1;
    const m = MARK.exec(lines[i] ?? '');
    if (!m) return [];
    return [{ engine: m[1], line: c.line, steps: stepsOf(c.code) }];
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

/** Runs one shell command: { code, signal, output } (stdout and stderr, in order); killed after timeoutMs. */
export function sh(command, env, cwd, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, output }); });
  });
}

/**
 * Runs a page's blocks in order, in cwd, the page's :8080 read as `port`: [problem] (empty when
 * every command printed what the page shows).
 */
export async function runSession({ file, blocks, env, cwd, port }) {
  const local = (s) => s.replace(/\b(localhost|127\.0\.0\.1):8080\b/g, `$1:${port}`);
  for (const block of blocks) {
    for (const step of block.steps) {
      const command = local(step.command);
      const expected = step.expected.map(local);
      let run;
      let missing = [];
      for (let i = 0; i < (READS.test(command) ? TRIES : 1); i += 1) {
        if (i) await sleep(250);
        run = await sh(command, env, cwd, /\b(make up|compose up)\b/.test(command) ? 600_000 : 60_000);
        missing = missingLines(expected, run.output);
        if (!missing.length) break;
      }
      if (missing.length) {
        const exit = run.code ?? run.signal;
        return [
          `${file}:${block.line}: \`${command}\` did not print what the page shows (exit ${exit}); `
            + `missing: ${JSON.stringify(missing)}; it printed:\n${run.output.slice(-2000)}`,
        ];
      }
    }
  }
  return [];
}
