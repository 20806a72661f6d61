// `make report`: the verdicts judged again by today's rule from a results file's measured cells,
// and its folder's report, charts and guide written again (with the reader's prices, if given);
// nothing is measured.
import path from 'node:path';
import { judge } from './judge/index.js';
import { describeSpread, loadSpread } from './judge/run-to-run-spread.js';
import { writeOutputs } from './report/write-folder.js';
import { withPrices } from './report/cost.js';
import { sanitizeDoc } from './report/sanitize.js';
import { REFERENCE_OUT, REFERENCE_GUIDE } from './run-context.js';
import { REPO_ROOT } from '../../lib/repo-root.js';

/**
 * `doc`: the results file `from` as judge/read-results-file.js readResults() read and checked it.
 * @param {{ doc: any, from: string, out?: string, guide?: string, label?: string }} opts
 * @param {object | null} prices
 */
export async function rerender(opts, prices) {
  let doc = opts.doc;
  if (opts.label) doc.label = opts.label; // relabel a kept run, e.g. the committed reference run
  // From the measured cells, by the current rule and the current spreads over repeated runs.
  doc.protocol.betweenRuns = describeSpread(loadSpread());
  doc = judge(doc);
  withPrices(sanitizeDoc(doc), prices); // no machine paths or log lines in the docs; prices are the reader's
  const outDir = path.resolve(opts.out ?? path.dirname(opts.from));
  const reference = outDir === REFERENCE_OUT;
  const guidePath = path.resolve(opts.guide ?? (reference ? REFERENCE_GUIDE : path.join(outDir, 'decision-guide.md')));
  return writeOutputs(doc, { outDir, guidePath, repo: REPO_ROOT, quoteDocs: reference });
}
