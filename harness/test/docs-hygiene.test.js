// The docs a reader copies from: no machine's absolute path or raw log line, every `make …` names a
// target and variables the Makefile has, every relative link and anchor resolves, a sample's folder
// commands never share a block with the root's `make`; every Markdown file reads in short
// paragraphs and short table cells; the prose pages show their output as short examples beside
// the command and date that produced them; and the user-facing Markdown stays within its lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { hasAbsolutePath } from '../bench/lib/report/sanitize.js';
import { anchorsOf } from '../bench/lib/report/slug.js';
import {
  readerFiles, proseFiles, codeOf, paragraphsOf, tableCellsOf, outputProblems,
  userFacingMarkdown, lineCount, lengthProblem,
} from './docs-lib.js';

const markdownFiles = () => readerFiles().filter((f) => f.endsWith('.md'));
const rel = (f) => path.relative(REPO_ROOT, f);

/** Targets and variables of a Makefile. */
export function makefileNames(text) {
  const targets = new Set();
  for (const m of text.matchAll(/^([A-Za-z0-9_. %/-]+(?: [A-Za-z0-9_. %/-]+)*)\s*:(?!=)/gm))
    for (const t of m[1].split(/\s+/)) if (t && !t.startsWith('.')) targets.add(t);
  const vars = new Set([...text.matchAll(/\$\((?:if |or |filter [^,]*,)?\$?\(?([A-Z][A-Z0-9_]*)\)/g)].map((m) => m[1]));
  for (const m of text.matchAll(/^([A-Z][A-Z0-9_]*)\s*[:?+]?=/gm)) vars.add(m[1]);
  return { targets, vars };
}

/** Every `make …` invocation in a piece of code: [[arg, …]]. */
export function makeCalls(code) {
  const calls = [];
  for (const line of code.split('\n')) {
    const body = line.replace(/\s#.*$/, '');
    for (const part of body.split(/&&|\|\||;|\|/)) {
      // Shell words: a quoted value (PATHS='/a,POST /b {"x":1}') is one argument.
      const words =
        part
          .trim()
          .replace(/^\$\s+/, '')
          .match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [];
      const at = words.indexOf('make');
      if (at !== 0) continue;
      calls.push(
        words
          .slice(1)
          .map((w) => w.replace(/^\[|\]$/g, ''))
          .filter(Boolean),
      );
    }
  }
  return calls;
}

test('no absolute path of a machine and no raw log line in docs/ or any README', () => {
  const found = [];
  for (const f of readerFiles()) {
    const text = fs.readFileSync(f, 'utf8');
    text.split('\n').forEach((l, i) => {
      if (hasAbsolutePath(l)) found.push(`${rel(f)}:${i + 1}: absolute path: ${l.trim().slice(0, 120)}`);
      if (/last log line:|\(log: /.test(l)) found.push(`${rel(f)}:${i + 1}: raw log line: ${l.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(found, []);
});

test('every make invocation in docs/ and the READMEs names a target and variables the Makefile has', () => {
  const { targets, vars } = makefileNames(fs.readFileSync(path.join(REPO_ROOT, 'Makefile'), 'utf8'));
  assert.ok(targets.has('bench') && vars.has('SAMPLE'), 'the Makefile parses');
  const bad = [];
  let seen = 0;
  for (const f of markdownFiles()) {
    for (const { code, line } of codeOf(fs.readFileSync(f, 'utf8'))) {
      for (const args of makeCalls(code)) {
        seen += 1;
        for (const a of args) {
          if (a.startsWith('-'))
            bad.push(`${rel(f)}:${line}: make ${args.join(' ')}: option ${a} (use a Make variable)`);
          else if (a.includes('=')) {
            if (!vars.has(a.split('=')[0]))
              bad.push(`${rel(f)}:${line}: make ${args.join(' ')}: no variable ${a.split('=')[0]} in the Makefile`);
          } else if (!/^[<]/.test(a) && !targets.has(a))
            bad.push(`${rel(f)}:${line}: make ${args.join(' ')}: no target ${a}`);
        }
      }
    }
  }
  assert.ok(seen > 20, `${seen} make invocations found`);
  assert.deepEqual(bad, []);
});

test('every relative link and anchor in docs/ and the READMEs resolves', () => {
  const bad = [];
  const anchors = new Map();
  const anchorsIn = (f) => {
    if (!anchors.has(f)) anchors.set(f, anchorsOf(fs.readFileSync(f, 'utf8')));
    return anchors.get(f);
  };
  for (const f of markdownFiles()) {
    const md = fs.readFileSync(f, 'utf8');
    // Links outside code: inline code and fences are examples, not links.
    const prose = md.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<a\s+href="([^"]+)"/g)) {
      const href = m[1] ?? m[2];
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http:, mailto: …
      const [file, anchor] = href.split('#');
      const target = file ? path.resolve(path.dirname(f), decodeURIComponent(file)) : f;
      if (!fs.existsSync(target)) {
        bad.push(`${rel(f)}: ${href}: no such file`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchorsIn(target).has(anchor))
        bad.push(`${rel(f)}: ${href}: no such anchor`);
    }
  }
  assert.deepEqual(bad, []);
});

test('a block that changes into a sample folder holds no root make command', () => {
  const bad = [];
  for (const f of markdownFiles()) {
    for (const { code, line, block } of codeOf(fs.readFileSync(f, 'utf8'))) {
      if (!block) continue;
      const cd = /(^|\s|&&\s*)cd\s+(node-cluster|node-replicas|dotnet-api)\b/m.exec(code);
      if (cd && makeCalls(code.slice(cd.index)).length)
        bad.push(`${rel(f)}:${line}: cd ${cd[2]} and a root make in one block`);
    }
  }
  assert.deepEqual(bad, []);
});

test('the checks catch what they are for', () => {
  assert.ok(hasAbsolutePath('see /work/main/.run/bench-topologies/x/logs/a.log'));
  assert.ok(!hasAbsolutePath('GET /api/items and harness/bench/cli.js'));
  assert.deepEqual(makeCalls('cd x && make bench --budget 2 # c'), [['bench', '--budget', '2']]);
  assert.deepEqual(makeCalls('make bench --budget 2   # comment'), [['bench', '--budget', '2']]);
  assert.deepEqual(makeCalls('$ make up SAMPLE=a; make ps'), [['up', 'SAMPLE=a'], ['ps']]);
  const { targets, vars } = makefileNames(
    'X := 1\nbench: setup\n\tnode a $(if $(FULL),--full) $(or $(SERVICE),app)\nkill term: \n',
  );
  assert.deepEqual([...targets].sort(), ['bench', 'kill', 'term']);
  assert.ok(vars.has('FULL') && vars.has('SERVICE') && vars.has('X'));
});

test('every Markdown file reads in paragraphs of at most 80 words and table cells of at most 60', () => {
  const long = [];
  for (const f of markdownFiles()) {
    const md = fs.readFileSync(f, 'utf8');
    for (const p of paragraphsOf(md))
      if (p.words > 80) long.push(`${rel(f)}:${p.line}: ${p.words} words: ${p.text.slice(0, 70)}…`);
    for (const c of tableCellsOf(md))
      if (c.words > 60) long.push(`${rel(f)}:${c.line}: a cell of ${c.words} words: ${c.text.slice(0, 70)}…`);
  }
  assert.deepEqual(long, []);
});

// The answer is said once and linked, not repeated in five places (issue 51): the Markdown a user
// reads stays within this many lines.
export const USER_MARKDOWN_MAX_LINES = 3200;

test(`the user-facing Markdown is at most ${USER_MARKDOWN_MAX_LINES} lines`, (t) => {
  const files = userFacingMarkdown().map(rel);
  for (const f of ['README.md', 'docs/decision-guide.md', 'node-cluster/README.md', 'node-replicas/README.md',
    'dotnet-api/README.md', 'proxy/README.md'])
    assert.ok(files.includes(f), `${f} is counted`);
  assert.deepEqual(files.filter((f) => !/^(docs\/[^/]+\.md|README\.md|[\w-]+\/README\.md)$/.test(f)), [], 'docs/results/ is not');
  const counts = files.map((file) => ({ file, lines: lineCount(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')) }));
  t.diagnostic(`${counts.reduce((sum, c) => sum + c.lines, 0)} lines in ${files.length} files`);
  const problem = lengthProblem(counts, USER_MARKDOWN_MAX_LINES);
  assert.equal(problem, null, `the user-facing Markdown is ${problem}: link what a tutorial or the guide already says`);
});

test('the length check catches what it is for', () => {
  assert.equal(lineCount('a\nb\n'), 2, 'as wc -l counts');
  assert.equal(lineCount('a\nb'), 1);
  const counts = [{ file: 'a.md', lines: 5 }, { file: 'b.md', lines: 9 }, { file: 'c.md', lines: 1 }];
  assert.equal(lengthProblem(counts, 15), null);
  assert.equal(lengthProblem(counts, 14), '15 lines, 1 over 14; the longest: b.md (9), a.md (5), c.md (1)');
  assert.equal(lengthProblem(counts, 10, 1), '15 lines, 5 over 10; the longest: b.md (9)');
});

test('the prose pages show output as short examples beside command and date, never raw logs', () => {
  const bad = [];
  for (const f of proseFiles())
    for (const p of outputProblems(fs.readFileSync(f, 'utf8'))) bad.push(`${rel(f)}:${p.line}: ${p.why}`);
  assert.deepEqual(bad, []);
});

test('the paragraph and output checks catch what they are for', () => {
  const wall = Array.from({ length: 81 }, (_, i) => `w${i}`).join(' ');
  assert.deepEqual(
    paragraphsOf(
      `# T\n\n${wall}\n\n| a | b |\n\n\`\`\`\n${wall}\n\`\`\`\n` +
        '- one\n- two <!-- q x -->three<!-- /q --> [four](f.md)\n',
    ).map((p) => p.words),
    [81, 2, 4],
  );
  const quoted = `<!-- q verdicts[a] verdict -->${'x '.repeat(79)}<!-- /q -->`;
  assert.equal(paragraphsOf(quoted)[0].words, 79, 'a quote counts as the words it shows, its marker as none');
  const table = `| a | b |\n|---|---|\n| ${wall} | two [words](x.md)<br>three |\n| a \\| b | c |\n`;
  assert.deepEqual(
    tableCellsOf(table).map((c) => c.words),
    [81, 3, 3, 1],
    'cells, not the header; links and <br> as text; an escaped | stays in its cell',
  );
  assert.deepEqual(outputProblems('Hand run, 2026-11-27:\n\n```console\n$ make ps\nok\n```\n'), []);
  assert.match(
    outputProblems('```console\nok\n```\n')
      .map((p) => p.why)
      .join(),
    /starts with the \$ command.*no date/,
  );
  assert.match(outputProblems(`2026-11-27\n\`\`\`console\n$ x\n${'a\n'.repeat(20)}\`\`\`\n`)[0].why, /lines of output/);
  assert.equal(
    outputProblems('```\n{"pid":1}\n{"pid":2}\n{"pid":3}\n```\n').length,
    1,
    'JSON log lines in a plain block',
  );
  assert.deepEqual(outputProblems('```\nnode-replicas/\n├── compose.yaml\n```\n'), [], 'a tree is not a log');
});
