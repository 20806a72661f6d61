// The run's findings in at most eight sentences, for the guide's first screen and the README: each
// from the run's own verdicts and drills, its figures as quote markers (quotes.js) linked to the
// verdict they rest on, and where the finding does not hold (which budgets, what bounded them). A
// question the run did not answer reads "not measured in this run" with the reason, never a blank,
// a stale figure or a crash.
import { render, quote } from './quotes.js';
import { labelOf, anchorOf, budgetsOf, LABEL_TEXT } from './labels.js';
import { shortReason } from './sanitize.js';
import { nameOf } from './leaf-text.js';
import { slugOf } from './slug.js';
import { drillCellsOf, measured, judgeDrill, aboutCell } from './drill-verdict.js';
import { cpus, andList } from './format.js';

const MULTI = ['cluster', 'reuseport', 'pm2', 'replicas'];
const BY = { machine: 'the machine', generator: 'the load generator', proxy: 'nginx', connections: 'the connections' };
const boundBy = (v) => `bounded by ${BY[v.bound?.by] ?? 'something other than the strategies'}`;
/** "CPU-bound" of "CPU-bound (pi)": a workload's title without its parenthesis. */
const workloadName = (doc, w) => String(doc.workloads?.[w]?.title ?? w).replace(/\s*\(.*\)$/, '');
const ids = (workload, budget, groups, metric) => groups.map((g) => `${workload}.b${budget}.${g}.${metric}`);
const pairs = (xs) => xs.flatMap((x, i) => xs.slice(i + 1).map((y) => `${x}-vs-${y}`));
const top = (doc) => budgetsOf(doc).at(-1);
const labelWords = (labels) => [...new Set(labels)].map((l) => l.replace('cant-tell', "can't tell"));

/** A finding that can't be stated: the sentence says so and why. */
class NotMeasured extends Error {}

/** What a takeaway reads a run with, for one page (link: the report, relative to the page). */
class Words {
  constructor(doc, link) {
    this.doc = doc;
    this.link = link;
    this.byId = new Map((doc.verdicts ?? []).map((v) => [v.id, v]));
    this.drills = `${link}#${slugOf('When something dies / when you deploy')}`;
  }

  v(id) {
    return this.byId.get(id) ?? null;
  }

  label(v) {
    return v ? labelOf(v, this.doc) : undefined;
  }

  /** A verdict's ratio, quoted, linked to its row in the report. */
  fig(v) {
    return `[${quote(this.doc, `verdicts[${v.id}].ratio`, 'x')}](${this.link}#${anchorOf(v.id)})`;
  }

  name(topologyId) {
    return nameOf(this.doc, topologyId);
  }

  /** The lowest and highest ratio of some verdicts, one figure where they read the same. */
  range(vs) {
    const s = [...vs].sort((a, b) => a.ratio - b.ratio);
    const text = (v) => render(this.doc, `verdicts[${v.id}].ratio`, 'x');
    return text(s[0]) === text(s.at(-1)) ? this.fig(s[0]) : `${this.fig(s[0])}–${this.fig(s.at(-1))}`;
  }

  /** The first of ids that was asked and measured, or null. */
  first(list) {
    return list.map((id) => this.v(id)).find((v) => v && this.label(v) !== null) ?? null;
  }

  /** The verdicts of ids that were asked and measured; else NotMeasured with the run's reason. */
  measured(list) {
    const asked = list.map((id) => this.v(id)).filter(Boolean);
    const ok = asked.filter((v) => this.label(v) !== null);
    if (ok.length) return ok;
    const why = asked.find((v) => v.reasons?.length)?.reasons[0];
    const notAsked = `this ${this.doc.mode} run did not ask it (make bench FULL=1 asks it)`;
    // "pi:express-1-nginx-b2 missing": the judge's word for a cell the file lacks.
    const reason = why ? shortReason(why).replace(/^(\S+) missing$/, 'its cell $1 is not in results.json') : notAsked;
    throw new NotMeasured(reason);
  }

  /** "… wins ×1.50 (light JSON at 1 CPU); can't tell ×1.09 (CPU-bound at 1 CPU)", by budget, then workload. */
  outcomes(vs) {
    const text = (v) => {
      const l = this.label(v);
      if (l === 'wins') return `${this.name(v.winner)} wins ${this.fig(v)}`;
      if (l === 'bounded') return `${boundBy(v)} ${this.fig(v)}`;
      return `${LABEL_TEXT[l]} ${this.fig(v)}`;
    };
    const order = Object.keys(this.doc.workloads ?? {});
    return [...vs]
      .sort((a, b) => a.budget - b.budget || order.indexOf(a.workload) - order.indexOf(b.workload))
      .map((v) => `${text(v)} (${workloadName(this.doc, v.workload)} at ${cpus(v.budget)})`)
      .join('; ');
  }
}

const wonByA = (w, vs) => vs.filter((v) => w.label(v) === 'wins' && v.winner === v.a);

function cores(w) {
  const b = top(w.doc);
  if (!(b > 1)) throw new NotMeasured('it measured a 1-CPU budget only');
  const vs = w.measured(ids('pi', b, MULTI, 'capacity'));
  const won = wonByA(w, vs);
  if (!won.length)
    return `At ${cpus(b)} no multi-process strategy beat one process on CPU-bound work: ${w.outcomes(vs)}.`;
  const others = Object.keys(w.doc.workloads ?? {}).filter((x) => !['pi', 'db'].includes(x));
  const elsewhere = [ids('pi', 1, MULTI, 'capacity'), ...others.map((x) => ids(x, b, MULTI, 'capacity'))]
    .map((list) => w.first(list))
    .filter(Boolean);
  const not = elsewhere.length ? ` It does not hold elsewhere: ${w.outcomes(elsewhere)}.` : '';
  return (
    `One Node process runs its JavaScript on one core: at ${cpus(b)}, on CPU-bound work, ` +
    `${andList(won.map((v) => w.name(v.a)))} each answered ${w.range(won)} the capacity of one process.${not}`
  );
}

function which(w) {
  const b = top(w.doc);
  const vs = w.measured(ids('pi', b, pairs(MULTI), 'capacity'));
  const labels = labelWords(vs.map((v) => (w.label(v) === 'bounded' ? boundBy(v) : w.label(v))));
  const memory = ids('pi', b, pairs(MULTI), 'memory').map((id) => w.v(id)).filter((v) => w.label(v) === 'wins');
  const mem = memory.length
    ? ` In memory, ${memory.map((v) => `${w.name(v.a)} ÷ ${w.name(v.b)} read ${w.fig(v)}`).join(', ')}.`
    : '';
  if (vs.some((v) => w.label(v) === 'wins'))
    return `Between the multi-process strategies on CPU-bound work at ${cpus(b)}: ${w.outcomes(vs)}.${mem}`;
  const names = MULTI.map((g) => w.name(w.v(`pi.b${b}.${g}.capacity`)?.a ?? g));
  return (
    `The verdicts can't pick between ${andList(names)} on CPU-bound work at ${cpus(b)} ` +
    `(${w.range(vs)}, ${andList(labels)}): choose on memory and operations.${mem}`
  );
}

function oneCpu(w) {
  const vs = w.measured(ids('pi', 1, MULTI, 'capacity'));
  const won = wonByA(w, vs);
  return (
    `At 1 CPU a second process has no core to use: on CPU-bound work 2 processes answered ${w.range(vs)} ` +
    `of one process's capacity (${labelWords(vs.map((v) => w.label(v))).join(', ')}).` +
    `${won.length ? ` ${w.outcomes(won)}.` : ''} Keep one process there, unless a crash or a deploy must not ` +
    'drop requests.'
  );
}

function memory(w) {
  const all = Object.keys(w.doc.workloads ?? {}).flatMap((x) =>
    budgetsOf(w.doc).flatMap((b) => ids(x, b, MULTI, 'memory')),
  );
  const asked = w.measured(all);
  const won = asked.filter((v) => w.label(v) === 'wins' && v.winner === v.b);
  if (!won.length) throw new NotMeasured('no memory verdict told a multi-process strategy from one process');
  return (
    `Every extra Node process is a heap of its own: 2 processes ÷ one process read ${w.range(won)} in memory ` +
    `(one process wins ${won.length} of these ${asked.length} verdicts, at ${andList(budgetsOf(w.doc).map(cpus))}).`
  );
}

function runtime(w) {
  const vs = w.measured(['light', 'pi'].flatMap((x) => budgetsOf(w.doc).map((b) => `${x}.b${b}.dotnet.capacity`)));
  return `One .NET process ÷ one Express process, capacity: ${w.outcomes(vs)}.`;
}

function dotnetReplicas(w) {
  const list = ['light', 'pi'].flatMap((x) => budgetsOf(w.doc).map((b) => `${x}.b${b}.dotnet-replicas.capacity`));
  const vs = w.measured(list);
  const mem = w.v('light.b1.dotnet-replicas.memory');
  const held = mem && w.label(mem) !== null ? `, and held ${w.fig(mem)} its memory (light JSON at 1 CPU)` : '';
  return `2 .NET replicas ÷ one .NET process on the same budget, capacity: ${w.outcomes(vs)}${held}.`;
}

function deploys(w) {
  const cells = drillCellsOf(w.doc).filter(measured);
  if (!cells.length) throw new NotMeasured('it ran no crash or rollout drill (make bench FULL=1 runs them)');
  const about = (c) => aboutCell(c, w.doc);
  const who = (c) => String(c.topology?.label ?? `${about(c).app} ${about(c).strategy}`).replace(/ \+ nginx$/, '');
  const counted = (c, part) =>
    `[${quote(w.doc, `cells[${c.id}].drill.${part}.failed`, 'int')} of ` +
    `${quote(w.doc, `cells[${c.id}].drill.${part}.requests`, 'int')}](${w.drills})`;
  const multi = cells.filter((c) => about(c).processes >= 2);
  const lone = cells.find((c) => about(c).processes < 2 && c.kind === 'fault' && c.drill.get.failed > 0);
  const posts = multi.find((c) => c.kind === 'fault' && c.drill.post.failed > 0);
  const kept = [...new Set(cells.filter((c) => c.drill.writes?.counted).map((c) => about(c).app))];
  const verdict = multi.every((c) => judgeDrill(c).lostNothing)
    ? 'every strategy of 2 or more processes lost no GET in a crash and no request in a rollout'
    : 'not every strategy of 2 or more processes passed: the drills table says which';
  return (
    `Zero downtime needs two instances: in the [drills](${w.drills}) at ` +
    `${andList([...new Set(cells.map((c) => cpus(about(c).budget)))])}, ${verdict}` +
    `${kept.length ? ` (writes counted for ${andList(kept)} only)` : ''}.` +
    `${lone ? ` ${who(lone)} alone failed ${counted(lone, 'get')} GETs in a crash.` : ''}` +
    `${posts ? ` A crash still fails the POSTs in flight: ${counted(posts, 'post')} on ${who(posts)}.` : ''}`
  );
}

function waiting(w) {
  const vs = w.measured(budgetsOf(w.doc).map((b) => `delay.b${b}.cluster.capacity`));
  const db = ['db.b1.dotnet.capacity', 'db.b1.cluster.capacity'].map((id) => w.v(id)).find(Boolean);
  const dbText =
    db && w.label(db) === null
      ? ` The database read was not measured in this run for Node: ${shortReason(db.reasons?.[0] ?? 'no cell ran')}.`
      : '';
  return `On work that waits, cluster of 2 ÷ one process, capacity: ${w.outcomes(vs)}.${dbText}`;
}

/** The findings, in order. @type {[string, (w: Words) => string][]} */
export const TAKEAWAYS = [
  ['CPU-bound work', cores],
  ['Which multi-process strategy', which],
  ['One CPU', oneCpu],
  ['Memory', memory],
  ['.NET or Node', runtime],
  ['.NET replicas', dotnetReplicas],
  ['Deploys and crashes', deploys],
  ['Slow I/O and the database', waiting],
];

/**
 * The findings as Markdown list items, "- **Title.** sentence", at most eight.
 * @param {any} doc @param {{ reportLink?: string }} [links] the report, relative to the page
 */
export function takeaways(doc, { reportLink = 'results/report.md' } = {}) {
  const w = new Words(doc, reportLink);
  return TAKEAWAYS.slice(0, 8).map(([title, how]) => {
    let text;
    try {
      text = how(w);
    } catch (e) {
      const why = e instanceof NotMeasured ? e.message : `it could not be read from results.json (${e.message})`;
      text = `Not measured in this run: ${why}.`;
    }
    return `- **${title}.** ${text}`;
  });
}
