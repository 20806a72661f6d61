#!/usr/bin/env node
// `make test`'s static checks: ESLint and TypeScript's checker over every JavaScript file of the
// repository, the import graph (dependency-cruiser: no cycle, the runner's backends apart), and
// dclint over every compose file (harness/lint/dclint.yaml: the rules switched off, with why).
// Prints each check's problems (the first 20, cut at 200 characters) and exits 1 if any has one.
// --summary <file> writes { passed, failed } (checks, not files) for harness/bin/test-all.js.
import fs from 'node:fs';
import { lint, typecheck } from '../lint/checks.js';
import { dependencyProblems } from '../lint/dependencies.js';
import { composeProblems } from '../lint/compose.js';

const SHOWN = 20;
/** @type {[string, () => string[] | Promise<string[]>][]} */
const checks = [
  ['eslint', () => lint()],
  ['tsc --checkJs', () => typecheck()],
  ['dependency-cruiser', () => dependencyProblems()],
  ['dclint (compose files)', () => composeProblems()],
];
let failed = 0;
for (const [name, run] of checks) {
  const problems = await run();
  if (problems.length) failed += 1;
  console.log(`${name}: ${problems.length ? `${problems.length} error(s)` : 'no errors'}`);
  for (const line of problems.slice(0, SHOWN)) {
    console.log(`  ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  }
  if (problems.length > SHOWN) console.log(`  ... and ${problems.length - SHOWN} more`);
}
const at = process.argv.indexOf('--summary');
if (at > 0) fs.writeFileSync(process.argv[at + 1], JSON.stringify({ passed: checks.length - failed, failed }));
process.exit(failed ? 1 : 0);
