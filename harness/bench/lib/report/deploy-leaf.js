// The guide's zero-downtime answer: only a strategy whose crash and rolling-restart drills both
// lost nothing (drills.js's drillVerdict, judged from the drills' counts) may be named; a run
// without drills says how to get them.
import { drillVerdict } from './drills.js';
import { optionsAt } from './options.js';
import { shortName, orList } from './leaf-text.js';

const NO_DRILLS = 'make bench SCENARIO=drills (or FULL=1)';
const DRILL_KINDS = new Set(['fault', 'rollout']);

/** The leaf, its answer `answer` ('none' unless one passed); its verdicts are the drills', never a ratio. */
const leaf = (lines, note, answer = 'none') =>
  ({ key: 'deploy', title: 'zero-downtime deploys', lines, answer, cites: [], note });

/**
 * Each multi-process option's drills at this budget, else at any budget the run drilled (said so):
 * drillVerdict's { drilled, lostNothing, text }, its text naming the option (e.g. "Express 2 replicas").
 */
function drilledAt(doc, at) {
  const multi = optionsAt(doc, at.workload, at.budget, (t) => t.processes >= 2);
  return multi.map((o) => {
    const verdictAt = (budget) =>
      drillVerdict(doc, o.topology.strategy, budget, { app: o.topology.sample, name: o.name });
    const here = verdictAt(at.budget);
    if (here.drilled) return { o, d: here, elsewhere: false };
    const any = verdictAt(undefined);
    return { o, d: any, elsewhere: any.drilled };
  });
}

/** The zero-downtime leaf at one workload and budget (at: { workload, budget, options }). */
export function deployLeaf(doc, at) {
  if (!doc.cells.some((c) => DRILL_KINDS.has(c.kind))) {
    return leaf(
      ['not drilled in this run', NO_DRILLS],
      `not measured here, because this run has no crash or rollout drills: ${NO_DRILLS}`,
    );
  }
  const all = drilledAt(doc, at);
  const drilled = all.filter((x) => x.d.drilled);
  const passed = drilled.filter((x) => x.d.lostNothing);
  const elsewhere = passed.some((x) => x.elsewhere) ? ' (drilled at another CPU budget)' : '';
  const notes = all.map((x) => x.d.text).join(' ');
  // The table's note stays short: who passed, and in full only what lost something; counts are the drills table's.
  const lost = drilled.filter((x) => !x.d.lostNothing).map((x) => x.d.text);
  if (passed.length) {
    const note = [
      `each lost no GET in a crash and no request in a rollout${elsewhere}; the drills table has every count,`,
      'writes and the POSTs a crash failed in flight.',
      ...lost,
    ].join(' ');
    const names = orList(passed.map((x) => shortName(doc, x.o.topology)));
    const answer = orList(passed.map((x) => x.o.name));
    return leaf([names, `lost nothing when crashed or rolled out${elsewhere}`], note, answer);
  }
  if (drilled.length) return leaf(['none lost nothing', 'every drilled strategy lost requests'], notes);
  return leaf(
    ['not measured here', 'no strategy here was drilled'],
    `not measured here, because ${notes || 'no multi-process strategy ran here'}`,
  );
}
