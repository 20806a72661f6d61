// The one adapter between results.json schemas and the renderers: a verdict's label (wins, equal,
// can't tell, or not measured), its winner, its CPU budget and its question group. Schema 3 stores
// these; schema 2 stored `winner: 'tie'` and one budget for the whole run, so they are derived here.

export const LABEL_TEXT = { wins: 'wins', equal: 'equal', 'cant-tell': "can't tell", null: 'not measured' };

const marginOf = (doc) => doc?.protocol?.rule?.margin ?? doc?.protocol?.minDifference ?? 0.1;

/** 'wins' | 'equal' | 'cant-tell' | null (not measured). */
export function labelOf(v, doc) {
  if ('label' in v && (v.label === null || LABEL_TEXT[v.label])) return v.label;
  if (v.measured === false || !Array.isArray(v.ci95)) return null;
  if (v.winner && v.winner !== 'tie') return 'wins';
  const m = marginOf(doc);
  return v.ci95[0] >= 1 / (1 + m) && v.ci95[1] <= 1 + m ? 'equal' : 'cant-tell';
}

/** The winning topology id, or null. */
export const winnerOf = (v, doc) => (labelOf(v, doc) === 'wins' ? v.winner : null);

/** CPUs every topology of the verdict's question had. */
export const budgetOf = (v, doc) => v.budget ?? doc.isolation?.budgetCpus ?? 1;

/** Every budget the run measured, smallest first. */
export function budgetsOf(doc) {
  // Schema 2 kept no list: the budgets of the main questions (an experiment may have had its own).
  const bs = doc.protocol?.budgets ?? [...new Set(mainVerdicts(doc).map((v) => budgetOf(v, doc)))];
  return [...bs].sort((a, b) => a - b);
}

/** 'cluster' of 'b2.cluster': the strategy question without its budget prefix. */
export const groupOf = (v) => String(v.comparison ?? '').replace(/^b\d+(\.\d+)?\./, '');

/** The control questions (a cluster of 2 on a 1-CPU budget): kept, labelled, never a recommendation. */
export const isControl = (v) => /control/.test(String(v.comparison ?? ''));

/** A topology kept only as a control at a budget (the first side of a control question there). */
export const isControlTopology = (doc, id, budget) => doc.verdicts.some((v) => isControl(v) && v.a === id && budgetOf(v, doc) === budget);

/** The load generator's share of the machine during the question, or null where it had CPUs of its own. */
export const generatorOf = (v) => (v.generator && v.generator.shared !== false ? v.generator : null);

/**
 * The strategies this machine could not run: doc.skipped, less any with a cell that ran (a strategy's
 * database cells skipped for want of MongoDB don't make the strategy itself unrunnable).
 */
export const skippedStrategies = (doc) => (doc.skipped ?? []).filter((s) => !doc.cells.some((c) => c.status === 'ok' && c.topology?.strategy === s.strategy));

/** The skipped strategy a verdict belongs to, or null: its verdicts are said once, not one by one. */
export const skippedOf = (v, doc) => skippedStrategies(doc).find((s) => s.strategy === (v.strategy ?? groupOf(v))) ?? null;

// CPU per request is shown only as measured at a fixed rate below capacity: a saturated figure is
// the inverse of the throughput plus the queue's churn. A published experiment keeps the article's
// own (saturated) measure, which its answer rests on; the guide says so beside it.
export const isExperiment = (v) => String(v.id).startsWith('exp-');
export const saturatedCpu = (v) => v.metric === 'cpu' && v.latencyAt !== 'fixed rate';
const shown = (v) => !saturatedCpu(v) || isExperiment(v);

/** Every verdict a page may show (the published experiments' too). */
export const shownVerdicts = (doc) => doc.verdicts.filter(shown);

/** Where the margin and confidence come from, for the prose. */
export const ruleOf = (doc) => ({ confidence: doc.protocol?.rule?.confidence ?? doc.protocol?.confidence ?? 0.95, margin: marginOf(doc) });

/** Verdicts of the main questions (not the published experiments'). */
export const mainVerdicts = (doc) => shownVerdicts(doc).filter((v) => doc.workloads?.[v.workload] && !isExperiment(v));
