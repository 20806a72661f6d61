#!/usr/bin/env node
// How far each verdict moves between runs on this machine: reads the results.json of repeated runs
// (same mode) and writes the spread of every question's ratio, which the verdicts' intervals then
// take as their least width (lib/judge/run-to-run-spread.js).
//   node harness/bench/repeatability.js run1/results.json … [--with earlier.json [--keep metric,…]] [--out file]
// --with: a spread file written before (e.g. the committed one), whose runs are kept beside the new ones;
// --keep <metric,...>: only its questions of these metrics (e.g. throughput,memory, where the way of
// measuring p99 and CPU per request changed since).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spreadOverRuns, REPEATABILITY_FILE, MIN_RUNS } from './lib/judge/run-to-run-spread.js';

const fail = (line) => { console.error(`repeatability: ${line}`); process.exit(2); };
const args = process.argv.slice(2);
const option = (name) => { // the value after --name, taken out of args
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  if (!args[at + 1] || args[at + 1].startsWith('--')) fail(`${name} needs a file`);
  return args.splice(at, 2)[1];
};
const out = option('--out') ?? fileURLToPath(REPEATABILITY_FILE);
const withFile = option('--with');
const keep = option('--keep')?.split(',');
const unknown = args.find((a) => a.startsWith('--'));
if (unknown) fail(`unknown option ${unknown} (--with <file>, --keep <metric,...>, --out <file>)`);
if (keep && !withFile) fail('--keep applies to --with <file>');
const read = (f) => {
  try { return JSON.parse(readFileSync(f, 'utf8')); } catch (e) { return fail(`${f}: ${e.message}`); }
};
let earlier = withFile ? read(withFile) : null;
if (earlier && (typeof earlier.questions !== 'object' || !Array.isArray(earlier.runs))) {
  fail(`${withFile}: not a spread file (no runs and questions)`);
}
if (keep) {
  const kept = Object.entries(earlier.questions).filter(([id]) => keep.includes(id.split('.').at(-1)));
  earlier = { ...earlier, questions: Object.fromEntries(kept) };
}
const runs = args.length + (earlier?.runs.length ?? 0);
if (runs < MIN_RUNS) fail(`needs the results.json of at least ${MIN_RUNS} runs, got ${runs}`);
const docs = args.map(read);
let spread;
try { spread = spreadOverRuns(docs, earlier); } catch (e) { fail(e.message); }
writeFileSync(out, `${JSON.stringify(spread, null, 1)}\n`);
for (const [id, q] of Object.entries(spread.questions)) {
  const ratios = q.ratios.map((r) => `×${r.toFixed(2)}`).join(' ');
  console.log(`${id.padEnd(30)} ${ratios}   sd ${(100 * q.sdLog).toFixed(1)}%`);
}
console.log(`wrote ${out} (${spread.runs.length} runs)`);
