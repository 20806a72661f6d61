// The docs never contradict each other or the committed results on the points that have gone wrong
// before: a command one page recommends that another warns against, a claim the measurements
// refute, a statement of which engine measured the verdicts, an experiment's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { seedAnswers } from '../bench/lib/report/seeds.js';
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

// Claims the measurements decide: the claim, and the test that says whether results.json refutes it.
const rps = (id) => doc.cells.find((c) => c.id === id && c.status === 'ok')?.rps?.median;
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
    why: () => 'without ENGINE, make bench uses Docker when an engine answers (harness/runner/engine.js)',
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
        if (c.claim.test(p.text) && c.refuted())
          bad.push(`${file}:${p.line}: "${c.claim.exec(p.text)[0]}": ${c.why()}`);
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
});
