// The docs never contradict each other or the committed results on the points that have gone wrong
// before: a command one page recommends that another warns against, a claim the measurements
// refute, a statement of which engine measured the verdicts, an experiment's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { seedAnswers } from '../bench/lib/report/seeds.js';
import { anchorOf } from '../bench/lib/report/labels.js';
import { proseFiles, codeOf, paragraphsOf } from './docs-lib.js';

const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'docs', 'results', 'results.json'), 'utf8'));
const rel = (f) => path.relative(REPO_ROOT, f);
const pages = () => proseFiles().map((f) => ({ file: rel(f), text: fs.readFileSync(f, 'utf8') }));

// A command a page warns against, the page that warns (its warning must still be there), and what
// marks a mention elsewhere as a warning too rather than advice.
export const WARNED = [
  {
    command: /docker( compose)? kill (-s |--signal[= ])?(SIG)?HUP\b/,
    warnedIn: 'docs/when-something-dies.md',
    warning: /cancels the container's restart\s+policy/,
    why:
      'Docker counts any docker kill as a stop asked for and cancels the restart policy; ' +
      'send SIGHUP with docker compose exec app kill -HUP 1',
  },
];
const WARNS = /\b(not|never|don't|instead of|cancels?|rather than)\b/i;

/** Where a page recommends a warned command: [message]. Code blocks recommend; prose only outside a warning. */
export function recommendations(pages, warned = WARNED) {
  const out = [];
  for (const w of warned) {
    for (const { file, text } of pages) {
      if (file === w.warnedIn) continue;
      const paragraphs = paragraphsOf(text);
      for (const c of codeOf(text)) {
        if (!w.command.test(c.code)) continue;
        if (c.block) {
          out.push(`${file}:${c.line}: recommends \`${w.command.exec(c.code)[0]}\` (${w.warnedIn} warns: ${w.why})`);
          continue;
        }
        const sentence =
          (paragraphs.find((p) => p.line <= c.line && p.text.includes(c.code))?.text ?? '')
            .split(/(?<=[.;:])\s/)
            .find((s) => s.includes(c.code)) ?? '';
        if (!WARNS.test(sentence))
          out.push(`${file}:${c.line}: recommends \`${c.code}\` (${w.warnedIn} warns: ${w.why})`);
      }
    }
  }
  return out;
}

// Claims the measurements decide: the claim, and the test that says whether results.json refutes it
// (given the claim's match: which strategies, which app).
const rps = (id) => doc.cells.find((c) => c.id === id && c.status === 'ok')?.rps?.median;
const GROUP = { pm2: 'pm2', reuseport: 'reuseport', cluster: 'cluster', replicas: 'replicas' };
const groupOfWord = (w) => GROUP[String(w).toLowerCase().replace(/^the /, '')];
/** Verdicts between two strategies that were measured (a label, bounded included). */
const comparedDirectly = (x, y) =>
  doc.verdicts.filter(
    (v) => v.label !== null && [`${x}-vs-${y}`, `${y}-vs-${x}`].some((g) => String(v.id).includes(`.${g}.`)),
  );
const APP_OF = { express: 'node-cluster', '.net': 'dotnet-api', 'node:http': 'node-replicas' };
/** Drill cells of an app that ran. */
const drilled = (word) =>
  doc.cells.filter(
    (c) => ['fault', 'rollout'].includes(c.kind) && c.status === 'ok' && c.app === APP_OF[word.toLowerCase()],
  );
const gain = (w) => rps(`${w}:express-1-nginx-b2`) / rps(`${w}:express-1-nginx-b1`);
export const CLAIMS = [
  {
    claim: /keeps? (only )?about one( of the two)? CPUs? busy/i,
    refuted: () => Object.keys(doc.workloads ?? {}).some((w) => gain(w) > 1.2),
    why: () => {
      const most = Math.max(...Object.keys(doc.workloads).map(gain).filter(Number.isFinite));
      return `one Express process gained ×${most.toFixed(2)} from 1 to 2 CPUs on some workload`;
    },
  },
  {
    claim: /make bench[^.\n]{0,80}without Docker/i,
    refuted: () => true,
    why: () => 'without ENGINE, make bench uses Docker when an engine answers (harness/runner/index.js selectEngine)',
  },
  // "PM2 was not compared with the cluster directly", "… were not compared": what the verdicts say.
  {
    claim: /\b(PM2|reusePort|the cluster|cluster|replicas)\b[^.]{0,60}?\bnot (?:been )?compared with (?:the )?(PM2|reusePort|cluster|replicas)\b/i,
    refuted: (m) => comparedDirectly(groupOfWord(m[1]), groupOfWord(m[2])).length > 0,
    why: (m) =>
      `results.json holds ${comparedDirectly(groupOfWord(m[1]), groupOfWord(m[2])).length} verdicts between them`,
  },
  // "the reference run skipped the Express drills", "the Express drills were not run".
  {
    claim: /\b(?:skipped|did not run|didn't run) the (Express|\.NET|node:http) drills|\b(Express|\.NET|node:http)(?:'s)? drills (?:were|was) (?:skipped|not run)/i,
    refuted: (m) => drilled(m[1] ?? m[2]).length > 0,
    why: (m) => `results.json holds ${drilled(m[1] ?? m[2]).length} ${m[1] ?? m[2]} drill cells that ran`,
  },
];

/** Sentences stating which engine ran the committed measurements: [{ line, engine }]. */
export function engineClaims(text) {
  const out = [];
  for (const p of paragraphsOf(text)) {
    const plain = p.text.replace(/<!--[\s\S]*?-->/g, '');
    for (const s of plain.split(/(?<=[.;])\s+/)) {
      if (!/\b(verdicts?|committed|reference run|drills|results)\b/i.test(s)) continue;
      const m =
        /\b(measured|ran|run|started)\b[^.]{0,60}?\b(on Docker|in containers|as containers|as (?:local )?processes|by the (processes|docker) engine|on the (processes|docker) engine)/i.exec(
          s,
        ) ?? /\breplicas (?:were|are) (containers|processes)\b/i.exec(s);
      if (m)
        out.push({
          line: p.line,
          engine: /docker|container/i.test(m[0]) && !/not containers/i.test(s) ? 'docker' : 'processes',
          text: s.trim(),
        });
    }
  }
  return out;
}

// What a table row says of the topologies it compares: "cluster of 2", "2 workers", "PM2 with 2
// processes", "2 replicas", "2 reusePort processes" -> [{ strategy, n }].
const LABELS = [
  [/\bPM2 (?:cluster of|with) (\d+)/gi, 'pm2'],
  [/\b(\d+) reusePort\b/gi, 'reuseport'],
  [/\b(?<!PM2 )cluster of (\d+)/gi, 'cluster'],
  [/\b(\d+) workers?\b/gi, 'cluster'],
  [/\b(\d+) (?:\.NET |Express |Node |node:http )?replicas?\b/gi, 'replicas'],
];
export function topologyLabels(text) {
  const plain = text.replace(/<!--[\s\S]*?-->/g, ' ');
  const all = LABELS.flatMap(([re, strategy]) => [...plain.matchAll(re)].map((m) => ({ strategy, n: Number(m[1]) })));
  return all.filter((l, i) => all.findIndex((x) => x.strategy === l.strategy && x.n === l.n) === i);
}

const anchors = new Map(doc.verdicts.map((v) => [anchorOf(v.id), v]));
/** The verdicts a piece of Markdown links (report.md#v-…) or quotes (verdicts[…]). */
export function linkedVerdicts(text, byAnchor = anchors, verdicts = doc.verdicts) {
  const linked = [...text.matchAll(/report\.md#(v-[\w-]+)/g)].map((m) => byAnchor.get(m[1]));
  const quoted = [...text.matchAll(/verdicts\[([^\]]+)\]/g)].map((m) => verdicts.find((v) => v.id === m[1]));
  return [...new Set([...linked, ...quoted].filter(Boolean))];
}

/** Where a row's labels name a topology none of the verdicts it links compares: [message]. */
export function mislabelled(rowText, verdicts, cells = doc.cells) {
  const sides = verdicts.flatMap((v) => [v.a, v.b]).map((id) => cells.find((c) => c.topology?.id === id)?.topology);
  const key = (t) => String(t?.strategy ?? '').replace(' ', '-');
  return topologyLabels(rowText)
    .filter((l) => !sides.some((t) => t && key(t) === l.strategy && t.processes === l.n))
    .map((l) => `says ${l.strategy} of ${l.n}, but ${verdicts.map((v) => v.id).join(', ')} compare(s) ` +
      `${[...new Set(sides.map((t) => t?.label))].join(' and ')}`);
}

test("a table row's labels match the verdicts it links", (t) => {
  const bad = [];
  let rows = 0;
  for (const { file, text } of pages()) {
    text.split('\n').forEach((line, i) => {
      if (!/^\s*\|/.test(line)) return;
      const vs = linkedVerdicts(line);
      if (!vs.length) return;
      rows += 1;
      for (const m of mislabelled(line, vs)) bad.push(`${file}:${i + 1}: ${m}`);
    });
  }
  t.diagnostic(`${rows} rows that link a verdict`);
  assert.ok(rows >= 5, `${rows} rows`);
  assert.deepEqual(bad, []);
});

test('no page recommends a command another page warns against, and the warnings are still there', () => {
  const all = pages();
  for (const w of WARNED) {
    const warner = all.find((p) => p.file === w.warnedIn);
    assert.ok(
      warner && w.warning.test(warner.text.replace(/\s+/g, ' ')),
      `${w.warnedIn} still warns about ${w.command}`,
    );
  }
  assert.deepEqual(recommendations(all), []);
});

test('no page states a claim the committed results refute', () => {
  const bad = [];
  for (const { file, text } of pages()) {
    const pieces = [
      ...paragraphsOf(text),
      ...codeOf(text)
        .filter((c) => c.block)
        .map((c) => ({ line: c.line, text: c.code })),
    ];
    for (const p of pieces)
      for (const c of CLAIMS)
        for (const m of p.text.matchAll(new RegExp(c.claim.source, `${c.claim.flags.replace('g', '')}g`)))
          if (c.refuted(m)) bad.push(`${file}:${p.line}: "${m[0]}": ${c.why(m)}`);
  }
  assert.deepEqual(bad, []);
});

test('every statement of which engine measured the verdicts agrees with protocol.engine', (t) => {
  const engine = doc.protocol?.engine?.name ?? 'processes';
  const claims = pages().flatMap(({ file, text }) => engineClaims(text).map((c) => ({ file, ...c })));
  t.diagnostic(`${claims.length} statements, engine ${engine}`);
  assert.ok(claims.length > 0, 'the docs say which engine measured the verdicts');
  assert.deepEqual(
    claims
      .filter((c) => c.engine !== engine)
      .map((c) => `${c.file}:${c.line}: says ${c.engine}, results.json says ${engine}: ${c.text}`),
    [],
  );
});

test("an experiment's answer named in the docs is the run's, qualifier and all", () => {
  const answers = seedAnswers(doc);
  const bad = [];
  for (const a of answers) {
    const names = [a.title, a.id];
    for (const { file, text } of pages()) {
      for (const p of paragraphsOf(text)) {
        if (!names.some((n) => p.text.includes(n))) continue;
        const rest = p.text
          .replace(/<!--[\s\S]*?-->|\*\*/g, '')
          .split(a.answer)
          .join('');
        const word = /\b(confirmed|refuted|not testable)\b/i.exec(rest);
        if (word) bad.push(`${file}:${p.line}: "${word[0]}" about ${a.id}; the run's answer is "${a.answer}"`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

test('the checks catch what they are for', () => {
  const warned = [{ ...WARNED[0], warnedIn: 'a.md' }];
  const pagesOf = (text) => [
    { file: 'a.md', text: 'x' },
    { file: 'b.md', text },
  ];
  assert.equal(recommendations(pagesOf('```sh\ndocker compose kill -s SIGHUP app\n```\n'), warned).length, 1);
  assert.equal(recommendations(pagesOf('Send it with `docker kill --signal=HUP x` to reload.\n'), warned).length, 1);
  assert.deepEqual(
    recommendations(pagesOf('Not `docker compose kill -s SIGHUP app`: it cancels the policy.\n'), warned),
    [],
  );
  assert.deepEqual(
    engineClaims('The committed verdicts were measured on Docker, in containers.').map((c) => c.engine),
    ['docker'],
  );
  assert.deepEqual(
    engineClaims('The verdicts were measured by the <!-- q protocol.engine.name -->processes<!-- /q --> engine.').map(
      (c) => c.engine,
    ),
    ['processes'],
  );
  assert.deepEqual(
    engineClaims('Its replicas are processes under cgroups, not containers; the verdicts ran as local processes.').map(
      (c) => c.engine,
    ),
    ['processes'],
  );
  assert.ok(CLAIMS[0].claim.test('one process keeps about one CPU busy'));
  const claim = (text) => CLAIMS.find((c) => c.claim.test(text));
  const pm2 = 'PM2 was not compared with the cluster directly, only each with one process.';
  assert.ok(claim(pm2).refuted(claim(pm2).claim.exec(pm2)), 'the run compared PM2 with the cluster');
  const skipped = 'the committed reference run skipped the Express drills, its MongoDB not running here';
  assert.ok(claim(skipped).refuted(claim(skipped).claim.exec(skipped)), 'the run drilled Express');
  assert.equal(claim('PM2 and the cluster are compared in the table below.'), undefined);
  const row = '| a cluster of 1 worker ([verdict](results/report.md#v-light-b1-cluster-memory)) | ×1.83 |';
  assert.equal(mislabelled(row, linkedVerdicts(row)).length, 1, 'a cluster of 1 worker is not the cluster of 2');
  const pm2Row = '| PM2 with 1 process | <!-- q verdicts[light.b1.pm2.memory].ratio x -->×2.06<!-- /q --> |';
  assert.equal(mislabelled(pm2Row, linkedVerdicts(pm2Row)).length, 1);
  const right = '| a cluster of 2 workers | [×1.83](results/report.md#v-light-b1-cluster-memory) |';
  assert.deepEqual(mislabelled(right, linkedVerdicts(right)), []);
});
