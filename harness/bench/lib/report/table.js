// The summary printed in the terminal at the end of a run: the verdicts.
import Table from 'cli-table3';
import { fmtX, fmtCi } from './format.js';
import { labelOf, LABEL_TEXT } from './labels.js';

export function summaryTable(doc) {
  const t = new Table({
    head: ['verdict', 'label', 'winner', 'ratio', '95% interval', ''],
    style: { head: [], border: [] },
  });
  for (const v of doc.verdicts) {
    const label = labelOf(v, doc);
    const flag = label === null ? '' : v.suspect ? 'SUSPECT' : '';
    t.push([v.id, LABEL_TEXT[label], label === 'wins' ? v.winner : '—', fmtX(v.ratio), fmtCi(v.ci95), flag]);
  }
  const open = doc.cells.filter((c) => c.kind === 'openloop' && c.status === 'ok');
  for (const c of open) t.push([c.id, '', '', `${c.maxRate} req/s`, 'sustained', c.suspect ? 'SUSPECT' : '']);
  return t.toString();
}
