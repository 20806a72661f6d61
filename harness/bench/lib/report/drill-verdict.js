// What the drills of a run say of a strategy: judged from the counts in results.json alone.
// The pass line, for every strategy that runs 2 or more processes:
//   - nothing the store acknowledged is missing and nothing is stored twice (0 lost, 0 duplicated),
//     wherever the app's writes are counted;
//   - a crash fails no GET (a POST in flight on the killed process may fail: counted and stated);
//   - a rollout, a graceful stop and a scale-down fail no request at all.
// A single process is the counter-example: it is never judged against the line, only said what it
// loses. A drill whose writes could not be counted says why, and the verdict repeats it.
// Everything here comes from results.json (the report imports nothing from the bench).
import { num } from './format.js';

/** A strategy's slug from its key or slug: 'one process' -> 'one-process'. */
const strategyKey = (name) => String(name).trim().toLowerCase().replace(/\s+/g, '-');

export const DRILL_KINDS = ['fault', 'rollout', 'stop', 'scale-down'];
const KIND_NAME = { fault: 'crash', stop: 'graceful stop' };
export const kindName = (kind) => KIND_NAME[kind] ?? kind;

/** A drill cell's who and where, from its record or (older runs) its topology. */
export function aboutCell(cell, doc = {}) {
  const d = cell.drill ?? {};
  const t = cell.topology ?? {};
  const strategy = d.strategy ?? cell.strategy ?? t.strategy;
  return {
    kind: cell.kind,
    strategy: strategy ? strategyKey(strategy) : null,
    app: d.app ?? cell.app ?? t.sample ?? null,
    label: t.label ?? null,
    processes: d.processes ?? cell.processes ?? t.processes ?? (t.instances ?? 1) * Math.max(1, t.workers ?? 1),
    budget: d.budget ?? cell.budget ?? t.budgetCpus ?? null,
    engine: d.engine ?? cell.engine ?? doc.protocol?.engine?.name ?? 'processes',
  };
}

export const measured = (c) => c.status === 'ok' && Boolean(c.drill);

/**
 * The drills a strategy needs on an engine to count as drilled there: a crash and a rollout; on
 * Swarm only its rolling update (the crash, the stop and the scale-down are Docker's, drilled there).
 */
export const neededKinds = (engine) => (engine === 'swarm' ? ['rollout'] : ['fault', 'rollout']);
export const drillCellsOf = (doc) => (doc.cells ?? []).filter((c) => DRILL_KINDS.includes(c.kind));

/** Why the writes of some measured drills were not counted: each reason once (`otherwise` for a drill without one). */
export const notCountedWhys = (cells, otherwise) =>
  [...new Set(cells.filter((c) => !c.drill.writes?.counted).map((c) => c.drill.writes?.why ?? otherwise))];

/** { requestsOk, writes: 'kept' | 'lost' | 'not counted', lostNothing } for one measured drill. */
export function judgeDrill(cell) {
  const d = cell.drill;
  const requestsOk = cell.kind === 'fault' ? d.get.failed === 0 : d.get.failed === 0 && d.post.failed === 0;
  const w = d.writes;
  const writes = !w?.counted ? 'not counted' : w.lost === 0 && w.duplicated === 0 ? 'kept' : 'lost';
  return { requestsOk, writes, lostNothing: requestsOk && writes !== 'lost' };
}

/** What one drill lost, in words ('' when nothing). */
export function lossText(cell) {
  const d = cell.drill;
  const failed = (part, what) => (part.failed ? `${num(part.failed)} of ${num(part.requests)} ${what} failed` : '');
  const parts = [failed(d.get, 'GETs'), failed(d.post, 'POSTs')];
  const w = d.writes;
  if (w?.counted && w.lost)
    parts.push(`${num(w.lost)} acknowledged write${w.lost === 1 ? '' : 's'} missing from the store`);
  if (w?.counted && w.duplicated) parts.push(`${num(w.duplicated)} write${w.duplicated === 1 ? '' : 's'} stored twice`);
  return parts.filter(Boolean).join(', ');
}

const sameBudget = (a, b) => b === undefined || b === null || (Number.isFinite(a) && Math.abs(a - b) < 1e-9);

/**
 * Per engine the run drilled this strategy on (or `engine`), the crash or rollout not measured there
 * and why: [{ engine, missing, why }], empty when both were measured everywhere.
 */
function gaps(doc, mine, engine) {
  const engines = engine || !mine.length ? [engine] : [...new Set(mine.map((c) => aboutCell(c, doc).engine))];
  return engines.flatMap((e) => {
    const here = mine.filter((c) => !e || aboutCell(c, doc).engine === e);
    const missing = neededKinds(e).filter((k) => !here.some((c) => c.kind === k && measured(c)));
    // One reason once, with every drill it stopped.
    const reasonOf = (c) => `${c.status}${c.error ? `: ${c.error}` : ''}`;
    const byReason = Map.groupBy(here.filter((x) => !measured(x)), reasonOf);
    const kinds = (cs) => [...new Set(cs.map((c) => kindName(c.kind)))].join(', ');
    const why = [...byReason].map(([reason, cs]) => `${kinds(cs)} ${reason}`);
    return missing.length ? [{ engine: e, missing, why, of: engines.length }] : [];
  });
}

/** The sentence for a strategy without a crash and a rollout drill on every engine it was drilled on. */
function notDrilledText(subject, budget, engine, holes) {
  const parts = holes.map((h) => {
    const on = h.engine && (engine || h.of > 1) ? ` on ${h.engine}` : '';
    const why = h.why.length ? ` (${h.why.join('; ')})` : '';
    const at = budget ? ` at ${budget} CPU` : '';
    return `no ${h.missing.map(kindName).join(' or ')} drill${at}${on} in this run${why}`;
  });
  return `${subject} has ${parts.join('; ')}, so nothing says what a deploy of it costs.`;
}

/**
 * drillVerdict(doc, strategyKey, budget, { app, engine, name }) -> { drilled, lostNothing, text }:
 * whether the strategy's crash and rollout drills ran at that budget (of every app, or of `app`) on
 * every engine the run drilled it on (or on `engine`), whether they lost nothing against the pass
 * line, and a sentence a deploy leaf can quote, naming the strategy `name` (default its slug) and
 * what was lost where it lost something.
 * @param {any} doc @param {string} strategy @param {number} [budget]
 * @param {{ app?: string, engine?: string, name?: string }} [where]
 */
export function drillVerdict(doc, strategy, budget, { app, engine, name } = {}) {
  const key = strategyKey(strategy);
  const subject = name ?? key;
  const mine = drillCellsOf(doc).filter((c) => {
    const a = aboutCell(c, doc);
    return (
      a.strategy === key && sameBudget(a.budget, budget) && (!app || a.app === app) && (!engine || a.engine === engine)
    );
  });
  const ok = mine.filter(measured);
  const at = `${budget ? ` at ${budget} CPU` : ''}${engine ? ` on ${engine}` : ''}`;
  const holes = gaps(doc, mine, engine);
  if (!ok.length || holes.length) {
    return { drilled: false, lostNothing: false, text: notDrilledText(subject, budget, engine, holes) };
  }
  const judged = ok.map((c) => ({ c, a: aboutCell(c, doc), j: judgeDrill(c) }));
  const single = judged.every((x) => x.a.processes < 2);
  const lostNothing = !single && judged.every((x) => x.j.lostNothing);
  const where = (x) => `${kindName(x.c.kind)}${x.a.app ? ` of ${x.a.app}` : ''}${engine ? '' : ` (${x.a.engine})`}`;
  const losses = judged.filter((x) => !x.j.lostNothing).map((x) => `${where(x)}: ${lossText(x.c)}`);
  const counted = judged.filter((x) => x.c.drill.writes?.counted);
  const acked = counted.reduce((n, x) => n + x.c.drill.writes.acknowledged, 0);
  const notCounted = notCountedWhys(ok, 'the drill did not count writes');
  const inFlight = judged.filter((x) => x.c.kind === 'fault').reduce((n, x) => n + x.c.drill.post.failed, 0);
  const kinds = [...new Set(judged.map((x) => kindName(x.c.kind)))].join(', ');
  const sentences = [];
  if (lostNothing) {
    sentences.push(
      `${subject} lost nothing in its drills${at} (${kinds}): ` +
        'no GET failed, no request failed while it was rolled out' +
        `${counted.length ? `, and the store kept every one of ${num(acked)} acknowledged writes, none twice` : ''}.`,
    );
    if (inFlight)
      sentences.push(
        `A crash failed ${num(inFlight)} POST${inFlight === 1 ? '' : 's'} in flight on the killed process ` +
          '(the client was told).',
      );
  } else if (single) {
    sentences.push(
      `${subject} has nothing to fail over to${at}: ` +
        `${losses.length ? losses.join('; ') : 'its drills happened to lose nothing this time'}.`,
    );
  } else {
    sentences.push(`${subject} lost something in its drills${at}: ${losses.join('; ')}.`);
  }
  if (notCounted.length) sentences.push(`Writes not counted: ${notCounted.join('; ')}.`);
  return { drilled: true, lostNothing, text: sentences.join(' ') };
}
