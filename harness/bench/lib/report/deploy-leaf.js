// The guide's zero-downtime answer: only a strategy whose crash and rolling-restart drills both
// lost nothing (drills.js's drillVerdict, judged from the drills' counts) may be named; a run
// without drills says how to get them.
import { drillVerdict } from './drills.js';
import { optionsAt } from './options.js';
import { shortName, orList } from './leaf-text.js';

const NO_DRILLS = 'make bench SCENARIO=drills (or FULL=1)';
const DRILL_KINDS = new Set(['fault', 'rollout']);

/**
 * drillVerdict(doc, strategy, budget, { app, name }) -> { drilled, lostNothing, text }, from drills.js,
 * for one option (its text names the option, e.g. "Express 2 replicas"); a strategy it doesn't know
 * reads as not drilled, with why.
 */
function verdictOf(doc, o, budget) {
  try {
    return drillVerdict(doc, o.topology.strategy, budget, { app: o.topology.sample, name: o.name });
  } catch (e) {
    return { drilled: false, lostNothing: false, text: e.message };
  }
}

/** Each multi-process option's drills at this budget, else at any budget the run drilled (said so). */
function drilledAt(doc, at) {
  const multi = optionsAt(doc, at.workload, at.budget, (t) => t.processes >= 2);
  return multi.map((o) => {
    const here = verdictOf(doc, o, at.budget);
    if (here.drilled) return { o, d: here, elsewhere: false };
    const any = verdictOf(doc, o, undefined);
    return { o, d: any, elsewhere: any.drilled };
  });
}

/** The zero-downtime leaf at one workload and budget (at: { workload, budget, options }). */
export function deployLeaf(doc, at) {
  const key = 'deploy';
  const title = 'zero-downtime deploys';
  if (!(doc.cells ?? []).some((c) => DRILL_KINDS.has(c.kind))) {
    return {
      key,
      title,
      lines: ['not drilled in this run', NO_DRILLS],
      answer: 'none',
      cites: [],
      note: `not measured here, because this run has no crash or rollout drills: ${NO_DRILLS}`,
    };
  }
  const all = drilledAt(doc, at);
  const drilled = all.filter((x) => x.d.drilled);
  const passed = drilled.filter((x) => x.d.lostNothing);
  const elsewhere = passed.some((x) => x.elsewhere) ? ' (drilled at another CPU budget)' : '';
  const notes = all.map((x) => x.d.text).join(' ');
  // The table's note stays short: who passed, and in full only what lost something; counts are the drills table's.
  const lost = all.filter((x) => x.d.drilled && !x.d.lostNothing).map((x) => x.d.text);
  if (passed.length) {
    const names = passed.map((x) => shortName(doc, x.o.topology));
    return {
      key,
      title,
      lines: [orList(names), `lost nothing when crashed or rolled out${elsewhere}`],
      answer: orList(passed.map((x) => x.o.name)),
      cites: [],
      note: [
        `each lost no GET in a crash and no request in a rollout${elsewhere}; the drills table has every count,`,
        'writes and the POSTs a crash failed in flight.',
        ...lost,
      ].join(' '),
    };
  }
  if (drilled.length)
    return {
      key,
      title,
      lines: ['none lost nothing', 'every drilled strategy lost requests'],
      answer: 'none',
      cites: [],
      note: notes,
    };
  return {
    key,
    title,
    lines: ['not measured here', 'no strategy here was drilled'],
    answer: 'none',
    cites: [],
    note: `not measured here, because ${notes || 'no multi-process strategy ran here'}`,
  };
}
