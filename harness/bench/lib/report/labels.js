// The one adapter between results.json and the renderers: a verdict's label (wins, equal, can't
// tell, bounded, or not measured), its CPU budget, its question group, and which verdicts a page
// shows. Schema 4 stores every label; an older file's are derived from its interval.

export const LABEL_TEXT = {
  wins: 'wins',
  equal: 'equal',
  'cant-tell': "can't tell",
  bounded: 'bounded',
  null: 'not measured',
};

/** 'wins' | 'equal' | 'cant-tell' | 'bounded' | null (not measured). */
export function labelOf(v, doc) {
  if ('label' in v && (v.label === null || LABEL_TEXT[v.label])) return v.label;
  if (v.measured === false || !Array.isArray(v.ci95)) return null;
  if (v.winner && v.winner !== 'tie') return 'wins';
  const { down, up } = ruleOf(doc);
  return v.ci95[0] >= down && v.ci95[1] <= up ? 'equal' : 'cant-tell';
}

/** The anchor of a verdict's row in the guide's list of every verdict. */
export const anchorOf = (id) => `v-${String(id).replace(/[^\w-]+/g, '-')}`;

/** CPUs every topology of the verdict's question had. */
export const budgetOf = (v, doc) => v.budget ?? doc.isolation?.budgetCpus ?? 1;

/** Every budget the run measured, smallest first. */
export function budgetsOf(doc) {
  const bs = doc.protocol?.budgets ?? [...new Set(mainVerdicts(doc).map((v) => budgetOf(v, doc)))];
  return [...bs].sort((a, b) => a - b);
}

/** 'cluster' of 'b2.cluster': the strategy question without its budget prefix. */
export const groupOf = (v) => String(v.comparison ?? '').replace(/^b\d+(\.\d+)?\./, '');

/** The load generator's share of the machine during the question, or null where it had CPUs of its own. */
export const generatorOf = (v) => (v.generator && v.generator.shared !== false ? v.generator : null);

/**
 * The strategies this machine could not run: doc.skipped, less any with a cell that ran (a strategy's
 * database cells skipped for want of MongoDB don't make the strategy itself unrunnable).
 */
export const skippedStrategies = (doc) =>
  (doc.skipped ?? []).filter((s) => !doc.cells.some((c) => c.status === 'ok' && c.topology?.strategy === s.strategy));

/** The skipped strategy a verdict belongs to, or null: its verdicts are said once, not one by one. */
export const skippedOf = (v, doc) =>
  skippedStrategies(doc).find((s) => s.strategy === (v.strategy ?? groupOf(v))) ?? null;

// CPU per request is shown only as measured at a fixed rate below capacity: a saturated figure is
// the inverse of the throughput plus the queue's churn. A published experiment keeps the article's
// own (saturated) measure, which its answer rests on; the guide says so beside it.
export const isExperiment = (v) => String(v.id).startsWith('exp-');
export const saturatedCpu = (v) => v.metric === 'cpu' && v.latencyAt !== 'fixed rate';

/** Every verdict a page may show (the published experiments' too). */
export const shownVerdicts = (doc) => doc.verdicts.filter((v) => !saturatedCpu(v) || isExperiment(v));

/** The margin and confidence of the labels, and the bounds they put on a ratio (×1.10, ×0.909). */
export function ruleOf(doc) {
  const margin = doc?.protocol?.rule?.margin ?? doc?.protocol?.minDifference ?? 0.1;
  return {
    confidence: doc?.protocol?.rule?.confidence ?? doc?.protocol?.confidence ?? 0.95,
    margin,
    up: 1 + margin,
    down: 1 / (1 + margin),
  };
}

/** Verdicts of the main questions (not the published experiments'). */
export const mainVerdicts = (doc) => shownVerdicts(doc).filter((v) => doc.workloads?.[v.workload] && !isExperiment(v));
