// The choices a guide leaf weighs: at one workload and one CPU budget, the baseline app's topologies
// (its one process and each multi-process strategy) and the verdicts between any two of them, found
// by the topologies each verdict compares. Which one a leaf may name rests on those verdicts alone.
import { labelOf, budgetOf, mainVerdicts, skippedStrategies } from './labels.js';
import { sideName } from './verdict-table.js';

/** The sample of the app the others are compared against: the one whose one process is asked against another app's. */
export function baselineSample(doc) {
  const marked = doc.apps?.find((a) => a.baseline)?.sample;
  if (marked) return marked;
  const topo = new Map(doc.cells.filter((c) => c.topology).map((c) => [c.topology.id, c.topology]));
  const one = (id) => topo.get(id)?.strategy === 'one process';
  const across = mainVerdicts(doc).find((v) => one(v.a) && one(v.b) && topo.get(v.a)?.sample !== topo.get(v.b)?.sample);
  return across ? topo.get(across.b).sample : (doc.cells.find((c) => c.kind === 'closed')?.topology.sample ?? null);
}

const cellBudget = (c) => c.budget ?? c.topology.budgetCpus ?? c.budgetCpus;

/**
 * The cells of the verdicts at a workload and budget, one per topology: [{ topology, cell, name }].
 * @param {any} doc @param {string} workload @param {number} budget @param {(t: any) => boolean} keep
 */
export function optionsAt(doc, workload, budget, keep) {
  const ids = new Set(
    mainVerdicts(doc)
      .filter((v) => v.workload === workload && budgetOf(v, doc) === budget)
      .flatMap((v) => v.cells ?? []),
  );
  // A strategy this machine could not run is said once in the guide, not weighed in every leaf.
  const skipped = new Set(skippedStrategies(doc).map((s) => s.strategy));
  const weighed = (c) => !(c.status === 'skipped' && skipped.has(c.topology.strategy));
  const cells = doc.cells.filter((c) => ids.has(c.id) && c.kind === 'closed' && cellBudget(c) === budget);
  // One option per topology: its first cell.
  const byTopology = Map.groupBy(cells.filter((c) => keep(c.topology) && weighed(c)), (c) => c.topology.id);
  return [...byTopology.values()]
    .map(([c]) => ({ topology: c.topology, cell: c, name: sideName(c.topology) }))
    .sort((x, y) => x.topology.processes - y.topology.processes);
}

/** The baseline app's options at a workload and budget. */
export const strategyOptions = (doc, workload, budget) =>
  optionsAt(doc, workload, budget, (t) => t.sample === baselineSample(doc));

/** The verdict comparing two topologies at a workload, budget and metric (either way round), or null. */
export function between(doc, workload, budget, metric, x, y) {
  const ids = new Set([x, y]);
  const asked = (v) => v.workload === workload && v.metric === metric && budgetOf(v, doc) === budget;
  return mainVerdicts(doc).find((v) => asked(v) && ids.has(v.a) && ids.has(v.b) && v.a !== v.b) ?? null;
}

/** A verdict a recommendation may rest on: measured, not bounded, not suspect. */
export const usable = (v, doc) => Boolean(v) && ['wins', 'equal', 'cant-tell'].includes(labelOf(v, doc)) && !v.suspect;

/**
 * The options nothing measured beat at a metric: { top, pairs, evidenced }. pairs: every verdict
 * between two options; evidenced: the options with at least one usable verdict; top: those of
 * them no usable verdict says lost. An option whose every verdict was bounded, suspect or not
 * measured is never in top.
 * @param {any} doc @param {{ workload: string, budget: number, options: any[] }} at @param {string} metric
 */
export function ranked(doc, { workload, budget, options }, metric) {
  const verdict = (x, y) => between(doc, workload, budget, metric, x.topology.id, y.topology.id);
  const pairs = options.flatMap((x, i) => options.slice(i + 1).map((y) => ({ x, y, v: verdict(x, y) })));
  const asked = pairs.filter((p) => p.v);
  const ok = asked.filter((p) => usable(p.v, doc));
  const evidenced = options.filter((o) => ok.some((p) => p.x === o || p.y === o));
  const lost = (o) =>
    ok.some((p) => (p.x === o || p.y === o) && labelOf(p.v, doc) === 'wins' && p.v.winner !== o.topology.id);
  const top = evidenced.filter((o) => !lost(o));
  // Beaten all round (a cycle no run should show): none is picked, all are named.
  return { pairs: asked, evidenced, top: top.length ? top : evidenced };
}

/** The verdicts among a set of options (usable ones first, the closest contest first). */
export function verdictsAmong(doc, pairs, set) {
  const inSet = (o) => set.includes(o);
  const closeness = (v) => Math.abs(Math.log(v.ratio ?? 1));
  return pairs
    .filter((p) => inSet(p.x) && inSet(p.y))
    .map((p) => p.v)
    .sort((a, b) => Number(usable(b, doc)) - Number(usable(a, doc)) || closeness(a) - closeness(b));
}
