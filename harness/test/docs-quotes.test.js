// The committed results describe themselves, and every number the docs quote from them is there
// and current: a marker whose path is gone, or whose text differs from what results.json says,
// fails here naming the file and the path (fix: `make bench`, or `node harness/bench/cli.js --from
// docs/results/results.json` to refresh the quotes without measuring).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { MARKER } from '../bench/lib/report/quotes.js';
import { quotingFiles, refresh } from '../bench/lib/report/refresh-docs.js';

const RESULTS = path.join(REPO_ROOT, 'docs', 'results', 'results.json');
const doc = JSON.parse(fs.readFileSync(RESULTS, 'utf8'));

// Schema 2 (one budget; winner a topology id or 'tie'), schema 3 or 4 (a label per verdict, winner
// only where it wins, the budget every topology of the question had; 4 adds 'bounded').
test('the committed results.json describes itself: protocol, isolation, cells with stable ids, verdicts', () => {
  assert.ok([2, 3, 4].includes(doc.schema), `schema ${doc.schema}`);
  for (const k of [
    'label',
    'mode',
    'protocol',
    'isolation',
    'box',
    'meta',
    'ceilings',
    'scenarios',
    'cells',
    'verdicts',
    'checks',
  ])
    assert.ok(k in doc, k);
  // Seconds measured per cell: 5 × 1 s in the default run, 6 × 2 s in the full one (a smoke run has less).
  assert.ok(
    doc.protocol.rounds >= 3 && doc.protocol.windowS * doc.protocol.rounds >= 5,
    'the committed run used the protocol',
  );
  const ids = doc.cells.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, 'cell ids are unique');
  for (const c of doc.cells) {
    for (const k of ['runtime', 'strategy', 'instances', 'workers', 'budgetCpus', 'viaNginx', 'sample'])
      assert.ok(k in c.topology, `${c.id}: topology.${k}`);
    for (const k of ['workload', 'path', 'connections', 'kind', 'status']) assert.ok(k in c, `${c.id}: ${k}`);
  }
  assert.ok(doc.verdicts.length > 0);
  const topologies = new Set(doc.cells.map((c) => c.topology.id));
  for (const v of doc.verdicts) {
    if (doc.schema === 2)
      assert.ok(v.winner === 'tie' || topologies.has(v.winner), `${v.id}: winner is a topology id or "tie"`);
    else {
      assert.ok(['wins', 'equal', 'cant-tell', 'bounded', null].includes(v.label), `${v.id}: label ${v.label}`);
      assert.ok(
        v.label === 'wins' ? topologies.has(v.winner) && [v.a, v.b].includes(v.winner) : v.winner === null,
        `${v.id}: a winner only where it wins (${v.label}, ${v.winner})`,
      );
      assert.ok(v.label !== null || v.measured === false, `${v.id}: not measured only where a cell was`);
      if (doc.workloads[v.workload] && !v.id.startsWith('exp-'))
        assert.ok(doc.protocol.budgets.includes(v.budget), `${v.id}: budget ${v.budget} is one of the run's`);
    }
    assert.equal(typeof v.suspect, 'boolean');
    assert.ok(v.ci95 === null || (v.ci95.length === 2 && v.ci95[0] <= v.ratio && v.ratio <= v.ci95[1]), v.id);
  }
});

test('every number quoted in the docs resolves in results.json and is current', (t) => {
  const stale = [];
  let quoted = 0;
  let opened = 0;
  for (const file of quotingFiles(REPO_ROOT)) {
    const text = fs.readFileSync(file, 'utf8');
    quoted += [...text.matchAll(MARKER)].length;
    opened += text.split('<!-- q ').length - 1;
    const r = refresh(text, doc);
    const rel = path.relative(REPO_ROOT, file);
    for (const p of r.problems) stale.push(`${rel}: ${p}`);
    if (r.problems.length === 0 && r.text !== text)
      stale.push(
        `${rel}: quoted text differs from results.json ` +
          '(run: node harness/bench/cli.js --from docs/results/results.json)',
      );
  }
  t.diagnostic(`${quoted} quoted numbers checked`);
  // Every marker that opens is one the refresh reads: a malformed one would never be checked.
  assert.equal(quoted, opened, 'every <!-- q … --> marker is well formed and closed');
  assert.ok(quoted > 0, 'the docs quote results.json through markers');
  assert.deepEqual(stale, []);
});
