// make test's Compose linter: dclint (docker-compose-linter) with harness/lint/dclint.yaml over
// every compose file of the repository (*compose*.yaml outside node_modules). Returns one line per
// finding, "file:line message (rule)", errors and warnings alike; none means it passes.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { DCLinter } from 'dclint';
import { REPO_ROOT } from '../lib/repo-root.js';

const CONFIG = new URL('./dclint.yaml', import.meta.url);
const SKIP = new Set(['node_modules', '.git', '.run', '.tools', 'bin', 'obj', 'out']);

/** The compose files below `root`. @param {string} root @returns {string[]} */
export function composeFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      if (SKIP.has(d.name)) continue;
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (/compose[^/]*\.ya?ml$/.test(d.name)) found.push(p);
    }
  };
  walk(root);
  return found.sort();
}

/** @param {{ root?: string, files?: string[] }} [options] @returns {string[]} */
export function composeProblems({ root = REPO_ROOT, files = composeFiles(root) } = {}) {
  const config = { debug: false, quiet: false, exclude: [], ...YAML.parse(fs.readFileSync(CONFIG, 'utf8')) };
  const results = new DCLinter(config).lintFiles(files, false);
  return results.flatMap((r) => r.messages.map((m) =>
    `${path.relative(root, r.filePath)}:${m.line} ${m.message} (${m.rule})`));
}
