// The docs a reader copies from: no machine's absolute path or raw log line, every `make …` names a
// target and variables the Makefile has, every relative link and anchor resolves, and a sample's
// folder commands never share a block with the root's `make`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { hasAbsolutePath } from '../bench/lib/report/sanitize.js';
import { anchorsOf } from '../bench/lib/report/slug.js';

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
const markdownFiles = () => readerFiles().filter((f) => f.endsWith('.md'));
const rel = (f) => path.relative(REPO_ROOT, f);

/** Fenced code blocks and inline code spans of a Markdown text: [{ code, line, block }]. */
export function codeOf(md) {
  const out = [];
  const lines = md.split('\n');
  let fence = null;
  for (let i = 0; i < lines.length; i += 1) {
    const l = lines[i];
    if (/^\s*(```|~~~)/.test(l)) {
      if (fence) { out.push({ code: fence.body.join('\n'), line: fence.line, block: true, lang: fence.lang }); fence = null; } else fence = { line: i + 1, body: [], lang: l.replace(/^\s*(```|~~~)/, '').trim() };
      continue;
    }
    if (fence) { fence.body.push(l); continue; }
    for (const m of l.matchAll(/(`+)([^`]+?)\1/g)) out.push({ code: m[2], line: i + 1, block: false });
  }
  return out;
}

/** Targets and variables of a Makefile. */
export function makefileNames(text) {
  const targets = new Set();
  for (const m of text.matchAll(/^([A-Za-z0-9_. %/-]+(?: [A-Za-z0-9_. %/-]+)*)\s*:(?!=)/gm)) for (const t of m[1].split(/\s+/)) if (t && !t.startsWith('.')) targets.add(t);
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
      const words = part.trim().replace(/^\$\s+/, '').match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [];
      const at = words.indexOf('make');
      if (at !== 0) continue;
      calls.push(words.slice(1).map((w) => w.replace(/^\[|\]$/g, '')).filter(Boolean));
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
          if (a.startsWith('-')) bad.push(`${rel(f)}:${line}: make ${args.join(' ')}: option ${a} (use a Make variable)`);
          else if (a.includes('=')) { if (!vars.has(a.split('=')[0])) bad.push(`${rel(f)}:${line}: make ${args.join(' ')}: no variable ${a.split('=')[0]} in the Makefile`); } else if (!/^[<]/.test(a) && !targets.has(a)) bad.push(`${rel(f)}:${line}: make ${args.join(' ')}: no target ${a}`);
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
  const anchorsIn = (f) => { if (!anchors.has(f)) anchors.set(f, anchorsOf(fs.readFileSync(f, 'utf8'))); return anchors.get(f); };
  for (const f of markdownFiles()) {
    const md = fs.readFileSync(f, 'utf8');
    // Links outside code: inline code and fences are examples, not links.
    const prose = md.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<a\s+href="([^"]+)"/g)) {
      const href = m[1] ?? m[2];
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http:, mailto: …
      const [file, anchor] = href.split('#');
      const target = file ? path.resolve(path.dirname(f), decodeURIComponent(file)) : f;
      if (!fs.existsSync(target)) { bad.push(`${rel(f)}: ${href}: no such file`); continue; }
      if (anchor && target.endsWith('.md') && !anchorsIn(target).has(anchor)) bad.push(`${rel(f)}: ${href}: no such anchor`);
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
      if (cd && makeCalls(code.slice(cd.index)).length) bad.push(`${rel(f)}:${line}: cd ${cd[2]} and a root make in one block`);
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
  const { targets, vars } = makefileNames('X := 1\nbench: setup\n\tnode a $(if $(FULL),--full) $(or $(SERVICE),app)\nkill term: \n');
  assert.deepEqual([...targets].sort(), ['bench', 'kill', 'term']);
  assert.ok(vars.has('FULL') && vars.has('SERVICE') && vars.has('X'));
});
