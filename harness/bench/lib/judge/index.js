// One judgement of a results document, the same for a live run and for `--from`: the latency
// blocks' held rule, the physical-limit checks, the verdicts, the open-loop flags and the scaling
// efficiencies, all from the measured cells and the question definitions the document keeps.
import { computeVerdicts, runChecks, flagOpenLoop, throughputFloor } from './verdicts.js';
import { computeScaling } from './scaling-efficiency.js';
import { rejudgeHeld } from './held-rate.js';
import { withBounds } from './bottleneck.js';

export const SCHEMA = 4;

// A schema-2 file kept its questions only inside its verdicts.
const questionsOf = (doc) => doc.questions ?? doc.verdicts.map((v) => ({ ...v, a: v.cells[0], b: v.cells[1] }));

// Strategies this machine could not run (a process manager it lacks): said once each. Only a start
// that failed (run.js: '<strategy> skipped: …'), not a cell skipped for want of a database.
function skippedOf(cells) {
  const failedStart = (c) => c.status === 'skipped' && String(c.error).startsWith(`${c.topology?.strategy} skipped:`);
  const failed = cells.filter(failedStart);
  return [...Map.groupBy(failed, (c) => c.topology.strategy)].map(([strategy, [c]]) => ({ strategy, why: c.error }));
}

/** doc with its judgement made again by today's rule; floors: the between-run spreads by question id. */
export function judge(doc, { floors = doc.protocol?.betweenRuns?.floors ?? {} } = {}) {
  const cells = withBounds(rejudgeHeld(doc.cells), {
    workloads: doc.workloads, ceilings: doc.ceilings ?? {}, generatorShareLimit: doc.protocol?.generatorShareLimit,
  });
  const checks = runChecks(doc.checks ?? [], cells);
  const questions = questionsOf(doc);
  const verdicts = computeVerdicts(questions, cells, { isolation: doc.isolation, checks, floors });
  const scaling = computeScaling(doc.scaling ?? [], cells, { floor: throughputFloor(floors) });
  return {
    ...doc, schema: SCHEMA, questions, cells: flagOpenLoop(cells), checks, verdicts, scaling, skipped: skippedOf(cells),
  };
}
