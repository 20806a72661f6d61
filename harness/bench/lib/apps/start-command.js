// A Node folder's start command (START=…, else package.json's "start" script) resolved once into
// what the launchers in harness/bench/wrap run: the argv as written and, where the command is
// `node [flags] <file> …` or a package's Node program (node_modules/.bin/<name>, `npx <name>`), the
// Node entry file the cluster module and PM2 fork. The command itself is never rewritten: `$PORT`
// and `{port}` are filled in at launch. Anything a shell must run (&&, |, redirections) runs as one
// `sh -c` process, and the strategies that fork an entry are then skipped, saying why.
import fs from 'node:fs';
import path from 'node:path';
import { AppInputError } from './errors.js';

// Node options that take the next word as their value.
const NODE_VALUE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--title', '-C', '--conditions']);
// Node options after which there is no entry file.
const NODE_NO_ENTRY = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '-v', '--version', '-h', '--help', '--test']);

/** Shell words of `text` (quotes and backslashes as sh reads them); null where a shell must run it. */
export function shellWords(text) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && /["\\$`]/.test(text[i + 1] ?? '')) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\') {
      word = (word ?? '') + (text[++i] ?? '');
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (/[;&|<>`()]/.test(c) || (c === '$' && text[i + 1] === '(')) {
      return null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) return null;
  if (word !== null) words.push(word);
  return words;
}

// A file Node runs: a .js/.cjs/.mjs file, or one whose #! line names node.
function isNodeProgram(file) {
  if (/\.[cm]?js$/.test(file)) return true;
  try {
    const head = fs.readFileSync(file, 'utf8').slice(0, 200);
    return /^#!.*\bnode\b/.test(head);
  } catch {
    return false;
  }
}

// `node server` runs server.js: Node's own lookup of an entry, relative to the app's folder.
function entryFile(dir, name) {
  const base = path.resolve(dir, name);
  for (const candidate of [base, `${base}.js`, `${base}.mjs`, `${base}.cjs`, path.join(base, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function nodeInvocation(dir, words, said) {
  const execArgv = [];
  let i = 1;
  while (i < words.length && words[i].startsWith('-')) {
    if (NODE_NO_ENTRY.has(words[i])) return null;
    execArgv.push(words[i]);
    if (NODE_VALUE_FLAGS.has(words[i]) && i + 1 < words.length) execArgv.push(words[++i]);
    i += 1;
  }
  if (i >= words.length) return null;
  const entry = entryFile(dir, words[i]);
  if (!entry) throw new AppInputError(`${said} runs ${words[i]}, which is not a file in ${dir}: fix the command, or build the app first`);
  return { execArgv, entry, args: words.slice(i + 1) };
}

function binInvocation(dir, words) {
  const bin = path.join(dir, 'node_modules', '.bin', words[0]);
  const file = words[0].includes('/') ? path.resolve(dir, words[0]) : bin;
  if (!fs.existsSync(file)) return null;
  const real = fs.realpathSync(file);
  return isNodeProgram(real) ? { execArgv: [], entry: real, args: words.slice(1) } : null;
}

/**
 * The launch spec of a start command (wrap/launch-spec.js LaunchSpec, without name and dir).
 * `scripts`: package.json's scripts, for `npm start` / `npm run <x>` inside a script.
 * @param {{ dir: string, text: string, said: string, scripts?: Record<string, string> }} what
 * @returns {{ argv: string[], env: Record<string, string>, node: { execArgv: string[], entry: string, args: string[] } | null, source: string }}
 */
export function resolveStart({ dir, text, said, scripts = {} }, depth = 0) {
  const words = shellWords(text.trim());
  if (words === null) return { argv: ['/bin/sh', '-c', `exec ${text.trim()}`], env: {}, node: null, source: text };
  /** @type {Record<string, string>} */
  const env = {};
  while (words.length && /^[A-Za-z_]\w*=/.test(words[0])) {
    const [k, ...v] = words.shift().split('=');
    env[k] = v.join('=');
  }
  if (words[0] === 'exec') words.shift();
  if (!words.length) throw new AppInputError(`${said} is empty: give the command that starts the app, e.g. START='node server.js'`);
  if (words[0] === 'npx') {
    words.shift();
    while (words[0]?.startsWith('-')) words.shift();
  }
  // `npm start`, `npm run serve`: the script it names, as npm would run it.
  const npmScript = words[0] === 'npm' && (words[1] === 'start' ? 'start' : ['run', 'run-script'].includes(words[1]) ? words[2] : null);
  if (npmScript && depth < 3) {
    if (!scripts[npmScript]) throw new AppInputError(`${said} runs \`npm ${words.slice(1).join(' ')}\`, and package.json has no "${npmScript}" script`);
    const inner = resolveStart({ dir, text: scripts[npmScript], said: `package.json's "${npmScript}" script`, scripts }, depth + 1);
    return { ...inner, env: { ...env, ...inner.env } };
  }
  const node = ['node', 'nodejs'].includes(words[0]) ? nodeInvocation(dir, words, said) : binInvocation(dir, words);
  return { argv: node ? ['node', ...node.execArgv, node.entry, ...node.args] : words, env, node, source: text };
}
