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
  const bs = doc.protocol?.budgets ?? [...new Set(doc.verdicts.map((v) => budgetOf(v, doc)))];
  return [...bs].sort((a, b) => a - b);
}

/** 'cluster' of 'b2.cluster': the strategy question without its budget prefix. */
export const groupOf = (v) => String(v.comparison ?? '').replace(/^b\d+(\.\d+)?\./, '');

/** The control questions (a cluster of 2 on a 1-CPU budget): kept, labelled, never a recommendation. */
export const isControl = (v) => /control/.test(String(v.comparison ?? ''));

/** The load generator's share of the machine during the question, or null where it had CPUs of its own. */
export const generatorOf = (v) => v.generator ?? null;

/** Where the margin and confidence come from, for the prose. */
export const ruleOf = (doc) => ({ confidence: doc.protocol?.rule?.confidence ?? doc.protocol?.confidence ?? 0.95, margin: marginOf(doc) });

/** Verdicts of the main questions (not the published experiments'). */
export const mainVerdicts = (doc) => doc.verdicts.filter((v) => doc.workloads?.[v.workload] && !String(v.id).startsWith('exp-'));
