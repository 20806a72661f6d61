// The committed results describe themselves, and every number the docs quote from them is there
// and current: a marker whose path is gone, or whose text differs from what results.json says,
// fails here naming the file and the path (fix: `make bench`, or `node harness/bench/cli.js --from
// docs/results/results.json` to refresh the quotes without measuring).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../runner/compose.js';
import { quotingFiles, refresh, MARKER } from '../bench/lib/report/quotes.js';

const RESULTS = path.join(REPO_ROOT, 'docs', 'results', 'results.json');
const doc = JSON.parse(fs.readFileSync(RESULTS, 'utf8'));

test('the committed results.json describes itself: protocol, isolation, cells with stable ids, verdicts', () => {
  assert.equal(doc.schema, 2);
  for (const k of ['label', 'mode', 'protocol', 'isolation', 'box', 'meta', 'ceilings', 'scenarios', 'cells', 'verdicts', 'checks']) assert.ok(k in doc, k);
  assert.ok(doc.protocol.windowS >= 5 && doc.protocol.rounds >= 3, 'the committed run used the protocol');
  const ids = doc.cells.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, 'cell ids are unique');
  for (const c of doc.cells) {
    for (const k of ['runtime', 'strategy', 'instances', 'workers', 'budgetCpus', 'viaNginx', 'sample']) assert.ok(k in c.topology, `${c.id}: topology.${k}`);
    for (const k of ['workload', 'path', 'connections', 'kind', 'status']) assert.ok(k in c, `${c.id}: ${k}`);
  }
  assert.ok(doc.verdicts.length > 0);
  for (const v of doc.verdicts) {
    assert.ok(v.winner === 'tie' || doc.cells.some((c) => c.topology.id === v.winner), `${v.id}: winner is a topology id or "tie"`);
    assert.equal(typeof v.suspect, 'boolean');
    assert.ok(v.ci95 === null || (v.ci95.length === 2 && v.ci95[0] <= v.ratio && v.ratio <= v.ci95[1]), v.id);
  }
});

test('every number quoted in the docs resolves in results.json and is current', (t) => {
  const stale = [];
  let quoted = 0;
  for (const file of quotingFiles(REPO_ROOT)) {
    const text = fs.readFileSync(file, 'utf8');
    quoted += [...text.matchAll(MARKER)].length;
    const r = refresh(text, doc);
    const rel = path.relative(REPO_ROOT, file);
    for (const p of r.problems) stale.push(`${rel}: ${p}`);
    if (r.problems.length === 0 && r.text !== text) stale.push(`${rel}: quoted text differs from results.json (run: node harness/bench/cli.js --from docs/results/results.json)`);
  }
  t.diagnostic(`${quoted} quoted numbers checked`);
  assert.deepEqual(stale, []);
});
