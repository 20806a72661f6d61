// The prose of the report and the guide lives in Markdown templates (templates/*.md), the figures
// in results.json: a template names each figure as {{name}}, and fill() puts the text in. A
// placeholder without a value, or a value nobody asked for, is an error, so a template and its
// caller can't drift apart unnoticed.
import fs from 'node:fs';

const DIR = new URL('./templates/', import.meta.url);
const PLACEHOLDER = /\{\{(\w+)\}\}/g;
const cache = new Map();

/** A template's text: templates/<name>.md, its trailing newline dropped. */
export function templateText(name) {
  if (!cache.has(name)) cache.set(name, fs.readFileSync(new URL(`${name}.md`, DIR), 'utf8').replace(/\n+$/, ''));
  return cache.get(name);
}

/** The placeholders a template names, in order, each once. */
export const placeholdersOf = (name) => [...new Set([...templateText(name).matchAll(PLACEHOLDER)].map((m) => m[1]))];

/**
 * templates/<name>.md with every {{key}} replaced by vars[key]; returns Markdown lines.
 * @param {string} name @param {Record<string, string | number>} [vars]
 * @returns {string[]}
 */
export function fill(name, vars = {}) {
  const wanted = placeholdersOf(name);
  const missing = wanted.filter((k) => vars[k] === undefined || vars[k] === null);
  if (missing.length) throw new Error(`template ${name}: no value for ${missing.join(', ')}`);
  const extra = Object.keys(vars).filter((k) => !wanted.includes(k));
  if (extra.length) throw new Error(`template ${name}: it has no {{${extra[0]}}}`);
  return templateText(name)
    .replace(PLACEHOLDER, (_, k) => String(vars[k]))
    .split('\n');
}
