#!/usr/bin/env node
// Compares the verdicts of two runs (two results.json files): are they consistent — no opposite
// winners, no "wins" against "equal", each ratio inside the other's widened interval — and precise,
// each run's median 95% half-width at most 10%? One line per question and a summary; exit 0 if
// both, 1 if they are not consistent, 3 if they are consistent but not that precise.
//   node harness/bench/compare.js docs/results/results.json .run/bench/<time>/results.json
import { readFileSync } from 'node:fs';
import { compareRuns } from './lib/judge/compare-runs.js';

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node harness/bench/compare.js <first results.json> <second results.json>');
  process.exit(2);
}
const load = (f) => {
  try {
    return JSON.parse(readFileSync(f, 'utf8'));
  } catch (e) {
    console.error(`compare: ${f}: ${e.message}`);
    process.exit(2);
  }
};
const runs = [load(a), load(b)];
const r = compareRuns(...runs);
// A busy machine (CPU stolen by the hypervisor) moves ratios beyond a calm run's intervals: say so first.
runs.forEach((d, i) => console.log(`${i ? 'second' : 'first'}: ${d.label ?? 'no label'}`));
if (r.host.differs !== null) {
  const us = (x) => `${Math.round(x)} µs`;
  const speed = r.host.differs
    ? ` — the host ran at another speed (×${r.host.ratio.toFixed(2)} the time in the second run), `
      + 'and ratios move with it: set side by side runs taken at the same speed'
    : ': the same speed';
  console.log(`host speed: the probe's work took ${us(r.host.first)} / ${us(r.host.second)} at full speed${speed}`);
}
const x = (v) => (v === null || v === undefined ? 'n/a' : `×${v.toFixed(2)}`);
const said = (v) => (v.label === 'wins' ? `${v.winner} wins` : String(v.label ?? 'n/a'));
const ci = (c) => (c ? `${x(c[0])}–${x(c[1])}` : 'no interval');
for (const q of r.questions) {
  const side = (v) => `${said(v).padEnd(30)} ${x(v.ratio)} (${ci(v.ci95)})`;
  const why = q.why.length ? `   ${q.why.join('; ')}` : '';
  console.log(`${q.ok ? 'ok  ' : 'FAIL'} ${q.id.padEnd(40)} ${side(q.a)}   ${side(q.b)}${why}`);
}
for (const [name, s] of Object.entries(r.runs)) {
  const width = `median 95% half-width ${(100 * s.medianHalfWidth).toFixed(1)}% of the ratio`;
  console.log(`${name}: ${width} (at most 10%: ${s.narrowEnough ? 'yes' : 'NO'}); `
    + `${s.wins} wins, ${s.equal} equal, ${s.cantTell} can't tell`);
}
const precision = r.precise ? '' : '; not precise: a median half-width over 10% (exit 3)';
console.log(`${r.agree} of ${r.compared} verdicts consistent${r.consistent ? '' : ' — FAILED'}${precision}`);
process.exit(r.consistent ? (r.precise ? 0 : 3) : 1);
