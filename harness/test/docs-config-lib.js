// Configuration quoted in the docs, read from the file that sets it, so a doc can't drift from its
// config (docs-config.test.js checks every one):
//   <!-- cfg FILE SELECTOR [FORMAT] -->text<!-- /cfg -->   a value: a grace period, a drain delay, a timeout
//     FILE      the config file, from the repository root
//     SELECTOR  in YAML or JSON, a dotted path (services.app.stop_grace_period; an environment
//               list or ${VAR:-default} reads as the default); in any other file, /a regex/ whose
//               first group is the value (no spaces: write \s)
//     FORMAT    text (as written), s (a duration, "24s" or seconds, as "24 s"), ms-s (milliseconds
//               as seconds), int (a count, 2,048), digits (a number as code has it, 10000 of 10_000)
//   <!-- snippet FILE -->, on the line before a fenced block: the block is the file's own lines,
//     in runs separated by a line "…" (indentation may differ as a whole)
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from '../lib/repo-root.js';
import { codeOf } from './docs-lib.js';

export const CFG = /<!-- cfg (\S+) (\S+)(?: (\S+))? -->([\s\S]*?)<!-- \/cfg -->/g;
const SNIPPET = /<!--\s*snippet\s+(\S+)\s*-->/;

const digits = (v) => String(v).trim().replaceAll('_', '');
const seconds = (v) => {
  v = digits(v);
  const m = /^(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(String(v).trim());
  if (/^\d+(\.\d+)?$/.test(String(v).trim())) return Number(v);
  if (!m || (!m[1] && !m[2])) throw new Error(`"${v}" is not a duration`);
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
};
const number = (x) => (Number.isInteger(x) ? x.toLocaleString('en-US') : String(x));
const FORMATS = {
  text: (v) => String(v),
  s: (v) => `${number(seconds(v))} s`,
  'ms-s': (v) => `${number(Number(digits(v)) / 1000)} s`,
  digits: (v) => {
    if (!/^\d+$/.test(digits(v))) throw new Error(`"${v}" is not a whole number`);
    return digits(v);
  },
  int: (v) => {
    if (!/^\d+$/.test(digits(v))) throw new Error(`"${v}" is not a whole number`);
    return number(Number(digits(v)));
  },
};

// ${VAR:-default} and ${VAR-default} read as their default; a plain value as itself.
const interpolated = (v) => String(v).replace(/\$\{\w+:?-([^}]*)\}/g, '$1');

function fromTree(tree, selector) {
  let cur = tree;
  for (const key of selector.split('.')) {
    if (Array.isArray(cur) && cur.every((e) => typeof e === 'string' && e.includes('='))) {
      const hit = cur.find((e) => e.startsWith(`${key}=`));
      cur = hit === undefined ? undefined : hit.slice(key.length + 1);
    } else cur = cur?.[key];
    if (cur === undefined) throw new Error(`no ${selector}`);
  }
  if (cur !== null && typeof cur === 'object') throw new Error(`${selector} is not a value`);
  return interpolated(cur);
}

/** The value SELECTOR picks in FILE (relative to repo), formatted; throws naming what is wrong. */
export function configValue(file, selector, format = 'text', repo = REPO_ROOT) {
  const full = path.join(repo, file);
  if (!fs.existsSync(full)) throw new Error(`${file}: no such file`);
  const text = fs.readFileSync(full, 'utf8');
  let value;
  if (/^\/.*\/$/.test(selector)) {
    const m = new RegExp(selector.slice(1, -1), 'm').exec(text);
    if (!m) throw new Error(`${file}: nothing matches ${selector}`);
    value = m[1] ?? m[0];
  } else if (/\.(ya?ml)$/.test(file)) {
    value = fromTree(YAML.parse(text, { merge: true }), selector);
  } else if (file.endsWith('.json')) {
    value = fromTree(JSON.parse(text), selector);
  } else throw new Error(`${file}: a selector there is /a regex/`);
  const f = FORMATS[format];
  if (!f) throw new Error(`unknown format "${format}" (one of: ${Object.keys(FORMATS).join(', ')})`);
  return f(value);
}

/** Where a doc's config quotes differ from their files: [{ line, problem }], and how many it has. */
export function configQuoteProblems(md, repo = REPO_ROOT) {
  const out = [];
  let count = 0;
  for (const m of md.matchAll(CFG)) {
    count += 1;
    const [, file, selector, format = 'text', shown] = m;
    const line = md.slice(0, m.index).split('\n').length;
    try {
      const want = configValue(file, selector, format, repo);
      if (want !== shown) out.push({ line, problem: `shows "${shown}", ${file} ${selector} says "${want}"` });
    } catch (e) {
      out.push({ line, problem: e.message });
    }
  }
  const opened = md.split('<!-- cfg ').length - 1;
  if (opened !== count) out.push({ line: 0, problem: `${opened - count} malformed <!-- cfg … --> marker(s)` });
  return { problems: out, count };
}

const dedent = (lines) => {
  const pad = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)[0].length));
  return lines.map((l) => l.slice(Number.isFinite(pad) ? pad : 0).trimEnd());
};

/** Whether lines (a run) stand in the file's lines in a row, whatever the run's indentation as a whole. */
function inFile(run, fileLines) {
  const want = dedent(run);
  const n = want.length;
  for (let i = 0; i + n <= fileLines.length; i += 1) {
    if (dedent(fileLines.slice(i, i + n)).every((l, k) => l === want[k])) return true;
  }
  return false;
}

/** Where a doc's config snippets are not their file's own lines: [{ line, problem }], and how many it has. */
export function snippetProblems(md, repo = REPO_ROOT) {
  const lines = md.split('\n');
  const out = [];
  let count = 0;
  for (const block of codeOf(md).filter((c) => c.block)) {
    let i = block.line - 2;
    while (i >= 0 && !lines[i].trim()) i -= 1;
    const m = SNIPPET.exec(lines[i] ?? '');
    if (!m) continue;
    count += 1;
    const full = path.join(repo, m[1]);
    if (!fs.existsSync(full)) {
      out.push({ line: block.line, problem: `${m[1]}: no such file` });
      continue;
    }
    const fileLines = fs.readFileSync(full, 'utf8').split('\n');
    const runs = [[]];
    for (const l of block.code.split('\n')) {
      if (/^\s*(…|\.\.\.)\s*$/.test(l)) runs.push([]);
      else runs.at(-1).push(l);
    }
    for (const run of runs.filter((r) => r.some((l) => l.trim()))) {
      if (!inFile(run, fileLines))
        out.push({ line: block.line, problem: `not ${m[1]}'s own lines: ${run[0].trim()}…` });
    }
  }
  return { problems: out, count };
}

/** Fenced blocks of config (nginx, yaml) without a snippet marker: [line]. */
export function unmarkedConfigBlocks(md) {
  const lines = md.split('\n');
  return codeOf(md)
    .filter((c) => c.block && /^(nginx|ya?ml)$/.test(c.lang))
    .filter((c) => {
      let i = c.line - 2;
      while (i >= 0 && !lines[i].trim()) i -= 1;
      return !SNIPPET.test(lines[i] ?? '');
    })
    .map((c) => c.line);
}
