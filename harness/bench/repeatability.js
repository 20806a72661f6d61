#!/usr/bin/env node
// How far each verdict moves between runs on this machine: reads the results.json of repeated runs
// (same mode) and writes the spread of every question's ratio, which the verdicts' intervals then
// take as their least width (lib/repeatability.js).
//   node harness/bench/repeatability.js run1/results.json run2/results.json run3/results.json [--out file]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spreadOverRuns, REPEATABILITY_FILE, MIN_RUNS } from './lib/repeatability.js';

const args = process.argv.slice(2);
const at = args.indexOf('--out');
const out = at >= 0 ? args[at + 1] : fileURLToPath(REPEATABILITY_FILE);
const files = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
const fail = (line) => { console.error(`repeatability: ${line}`); process.exit(2); };
if (at >= 0 && !args[at + 1]) fail('--out needs a file');
if (files.length < MIN_RUNS) fail(`needs the results.json of at least ${MIN_RUNS} runs, got ${files.length}`);
const docs = files.map((f) => {
  try { return JSON.parse(readFileSync(f, 'utf8')); } catch (e) { return fail(`${f}: ${e.message}`); }
});
let spread;
try { spread = spreadOverRuns(docs); } catch (e) { fail(e.message); }
writeFileSync(out, `${JSON.stringify(spread, null, 1)}\n`);
for (const [id, q] of Object.entries(spread.questions)) console.log(`${id.padEnd(30)} ${q.ratios.map((r) => `×${r.toFixed(2)}`).join(' ')}   sd ${(100 * q.sdLog).toFixed(1)}%`);
console.log(`wrote ${out} (${docs.length} runs)`);
