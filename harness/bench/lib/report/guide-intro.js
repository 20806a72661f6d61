// The guide's first screen and its "How to read this", from results.json and the templates: for
// which machine and run it answers, how to get the answer for yours, and what its words mean —
// the labels' bounds are the rule's own (judge/stats.js decide(), through protocol.rule).
import { fill } from './template.js';
import { fmt, cpus, andList, machineText } from './format.js';
import { budgetsOf, ruleOf } from './labels.js';
import { cleanText } from './sanitize.js';


/** "13 min 45 s" from the run's start and finish. */
export function durationOf(doc) {
  const s = Math.round((Date.parse(doc.finishedAt) - Date.parse(doc.startedAt)) / 1000);
  if (!Number.isFinite(s) || s < 0) return 'duration not recorded';
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

const ENGINES = {
  processes: 'as processes on 127.0.0.1, each in a cgroup with its CPU quota (the local runner), not in containers',
  docker: "as containers on a Docker engine, from the samples' compose files",
};

/** Where the topologies ran, in words: engine, and how it was chosen. */
export function engineText(doc) {
  const e = doc.protocol?.engine;
  if (!e?.name) return 'not recorded by this run';
  return `${ENGINES[e.name] ?? e.name}${e.chosen ? ` (${cleanText(e.chosen)})` : ''}`;
}

/** The first screen: what the page answers, for which run, and how to get it for your machine. */
export function firstScreen(doc, { reportLink, resultsLink, docsLink }) {
  const m = doc.meta.machine;
  const v = doc.meta.versions ?? {};
  return fill('guide-first-screen', {
    mode: doc.mode === 'quick' ? 'a default' : `a ${doc.mode}`,
    date: doc.startedAt.slice(0, 16).replace('T', ' '),
    duration: durationOf(doc),
    machine: `${machineText(m)}, ${m.os}`,
    engine: engineText(doc).replace(/^as /, ''),
    node: v.node ?? 'not recorded',
    dotnet: v.dotnet ?? 'not used',
    budgets: andList(budgetsOf(doc).map(cpus)),
    budgetWhy: cleanText(doc.protocol?.budgetChoice?.why ?? 'the budgets this run was given'),
    report: reportLink,
    results: resultsLink,
    ownService: `${docsLink}benchmark-your-own-service.md`,
    metrics: `${docsLink}saturation-and-spread.md`,
  });
}

function capacityText(doc) {
  const c = doc.protocol?.capacity;
  if (!c) return 'not searched in this run: its throughput answers rest on saturated throughput alone.';
  return (
    `the highest fixed rate a topology held with its p99 at most ${fmt(c.p99TargetMs)} ms, ` +
    'nothing failed and at least ' +
    `${fmt(c.heldShare * 100)}% of the rate achieved. The throughput answers rest on it.`
  );
}

function spreadText(doc) {
  const b = doc.protocol?.betweenRuns;
  if (b?.text) return `${cleanText(b.text)}. A verdict marked "spread between runs unknown" has no such floor.`;
  return (
    "not measured on this machine: each interval comes from this run's own rounds, " +
    'and a second run may land further away.'
  );
}

/** "How to read this": each meaning in a sentence, the labels' bounds from the rule itself. */
export function howToRead(doc) {
  const { confidence, margin, up, down } = ruleOf(doc);
  return fill('guide-how-to-read', {
    confidence: `${fmt(confidence * 100)}%`,
    up: fmt(up, 2),
    down: fmt(down, 3),
    pct: `${fmt(margin * 100)}%`,
    spent: `${fmt((doc.protocol?.bound?.spent ?? 0.9) * 100)}%`,
    capacity: capacityText(doc),
    spread: spreadText(doc),
  });
}
