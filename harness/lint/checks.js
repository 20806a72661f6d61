// The repository's two static checks over its JavaScript: ESLint (eslint.config.js) and
// TypeScript's checker in JavaScript mode (tsconfig.json), both at the repository root. Each
// returns its problems as one line apiece, "file:line:col message (rule)"; none means it passes.
// `overrides` ({ 'path/from/root.js': text }) checks the given text in place of a file's content;
// with `overridesOnly`, only those files (and, for the checker, what they import) under the same
// configuration: what the tests of the checks need, in seconds rather than a whole run's minute.
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { REPO_ROOT } from '../lib/repo-root.js';

/** @typedef {Record<string, string>} Overrides */

/** @param {{ root?: string, overrides?: Overrides, overridesOnly?: boolean }} [options] @returns {Promise<string[]>} */
export async function lint({ root = REPO_ROOT, overrides = {}, overridesOnly = false } = {}) {
  const eslint = new ESLint({ cwd: root });
  const replaced = new Set(Object.keys(overrides).map((f) => path.resolve(root, f)));
  const results = overridesOnly ? [] : (await eslint.lintFiles(['.'])).filter((r) => !replaced.has(r.filePath));
  for (const [file, text] of Object.entries(overrides)) {
    results.push(...await eslint.lintText(text, { filePath: path.resolve(root, file) }));
  }
  return results.flatMap((r) =>
    r.messages
      .filter((m) => m.fatal || m.severity === 2)
      .map(
        (m) =>
          `${path.relative(root, r.filePath)}:${m.line}:${m.column} ${m.message}${m.ruleId ? ` (${m.ruleId})` : ''}`,
      ),
  );
}

/** @param {{ root?: string, overrides?: Overrides, overridesOnly?: boolean }} [options] @returns {string[]} */
export function typecheck({ root = REPO_ROOT, overrides = {}, overridesOnly = false } = {}) {
  const configFile = path.join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile);
  if (error) return [format(root, error)];
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configFile);
  const host = ts.createCompilerHost(parsed.options);
  const texts = new Map(Object.entries(overrides).map(([f, t]) => [path.resolve(root, f), t]));
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => texts.get(path.resolve(file)) ?? readFile(file);
  // A file outside tsconfig.json's files is never checked: said, rather than checked here alone.
  const outside = [...texts.keys()].filter((f) => !parsed.fileNames.includes(f));
  if (overridesOnly && outside.length) return outside.map((f) => `${path.relative(root, f)} is not in tsconfig.json's files`);
  const rootNames = overridesOnly ? [...texts.keys()] : parsed.fileNames;
  const program = ts.createProgram({ rootNames, options: parsed.options, host });
  return [...parsed.errors, ...ts.getPreEmitDiagnostics(program)].map((d) => format(root, d));
}

/** @param {string} root @param {import('typescript').Diagnostic} d */
function format(root, d) {
  const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
  if (!d.file) return `TS${d.code} ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
  return `${path.relative(root, d.file.fileName)}:${line + 1}:${character + 1} ${text} (TS${d.code})`;
}
