// The guide's answers at one workload and one CPU budget, one per thing that matters to a team:
// throughput (capacity at the latency target), memory, tail latency, zero-downtime deploys and the
// runtime. Each answer names what the verdicts between the options allow and nothing more: where
// they can't tell the options apart it names them all; where something other than the strategies
// bounded the cells it says so; it never rests on a bounded or suspect verdict.
// A leaf: { key, title, lines (the chart's few words), answer, cites (verdicts), note (the table's sentence) }.
import { labelOf } from './labels.js';
import { fmt } from './format.js';
import { ranked, verdictsAmong, usable, between, optionsAt } from './options.js';
import { shortName, nameOf, citeLine, absent, orList } from './leaf-text.js';
import { deployLeaf } from './deploy-leaf.js';

// The verdict a single pick rests on: the closest one it won, else the closest usable one it is in.
function basisOf(doc, pairs, pick) {
  const mine = pairs
    .filter((p) => p.x === pick || p.y === pick)
    .map((p) => p.v)
    .filter((v) => usable(v, doc));
  const won = mine.filter((v) => labelOf(v, doc) === 'wins' && v.winner === pick.topology.id);
  const close = (a, b) => Math.abs(Math.log(a.ratio)) - Math.abs(Math.log(b.ratio));
  return [...won].sort(close)[0] ?? [...mine].sort(close)[0] ?? null;
}

/**
 * The options nothing beat at a metric, as a leaf: one named, or several named with what else decides.
 * @param {any} doc @param {any} at { workload, budget, options }
 * @param {{ key: string, title: string, metric: string, notAsked: string, decides: string, short?: string }} how
 */
function bestLeaf(doc, at, { key, title, metric, notAsked, decides, short = null }) {
  const r = ranked(doc, at, metric);
  if (!r.top.length) return { leaf: absent(doc, key, title, r.pairs.map((p) => p.v), notAsked), top: [] };
  // An option no usable verdict speaks for (bounded, suspect, not measured) is not ranked: said so.
  const unranked = at.options.filter((o) => !r.evidenced.includes(o));
  const aside = unranked.length ? [`not compared: ${orList(unranked.map((o) => shortName(doc, o.topology)))}`] : [];
  const why = 'no usable verdict (bounded, suspect or not measured), so not compared.';
  const asideNote = unranked.length ? ` ${unranked.map((o) => o.name).join(', ')}: ${why}` : '';
  const leaf = (lines, answer, cites, note) =>
    ({ leaf: { key, title, lines: [...lines, ...aside], answer, cites, note: `${note}${asideNote}` }, top: r.top });
  if (r.top.length === 1) {
    const [pick] = r.top;
    const v = basisOf(doc, r.pairs, pick);
    const lines = [shortName(doc, pick.topology), citeLine(doc, v)];
    return leaf(lines, pick.name, [v], `nothing measured beat ${pick.name} here.`);
  }
  const among = verdictsAmong(doc, r.pairs, r.top);
  const names = orList(r.top.map((o) => shortName(doc, o.topology)));
  const lines = [names, citeLine(doc, among[0] ?? null), ...(short ? [short] : [])];
  return leaf(lines, orList(r.top.map((o) => o.name)), among, `the verdicts between them can't pick one: ${decides}.`);
}

const capacityFigure = (o) =>
  Number.isFinite(o.cell.capacity?.rps) ? `${fmt(o.cell.capacity.rps)} req/s` : 'no capacity';

function throughputLeaf(doc, at) {
  const target = doc.protocol?.capacity?.p99TargetMs;
  const r = bestLeaf(doc, at, {
    key: 'throughput',
    title: 'throughput',
    metric: 'capacity',
    notAsked: 'this run did not search capacity at a latency target',
    decides: 'memory and operations decide',
    short: 'memory, operations decide',
  });
  if (r.top.length) {
    const figures = r.top.map((o) => `${o.name} ${capacityFigure(o)}`).join(', ');
    r.leaf.note += ` Capacity at p99 ≤ ${target} ms: ${figures}.`;
  }
  return r;
}

function memoryLeaf(doc, at, capacityTop) {
  const r = bestLeaf(doc, at, {
    key: 'memory',
    title: 'memory',
    metric: 'memory',
    notAsked: 'this run measured no memory here',
    decides: 'no memory verdict tells them apart',
  });
  if (!r.top.length) return r.leaf;
  // The leaf with what its pick gives up in capacity: a line, a sentence, the verdict it rests on.
  const { lines, cites, note } = r.leaf;
  const givesUp = (line, sentence, more = []) =>
    ({ ...r.leaf, lines: [...lines, line], cites: [...cites, ...more], note: `${note} ${sentence}` });
  if (r.top.some((o) => capacityTop.includes(o)))
    return givesUp('gives up no capacity measured', 'It gives up no capacity any verdict shows.');
  const capacity = (o) => between(doc, at.workload, at.budget, 'capacity', r.top[0].topology.id, o.topology.id);
  // Against the throughput pick; where nothing was picked (bounded), the closest capacity verdict it is in.
  const v = capacityTop.length ? capacity(capacityTop[0]) : (at.options.map(capacity).find(Boolean) ?? null);
  const cost = v ? `capacity: ${citeLine(doc, v)}` : 'its capacity: not measured';
  return givesUp(cost, `What it gives up: ${cost}.`, v ? [v] : []);
}

function tailLeaf(doc, at) {
  const rate = at.options.map((o) => o.cell.latencyRate).find(Boolean);
  const r = bestLeaf(doc, at, {
    key: 'tail',
    title: 'tail latency',
    metric: 'p99',
    notAsked: 'this run took no windows at a fixed rate here (make bench FULL=1 takes them)',
    decides: 'no p99 verdict tells them apart',
  });
  if (!rate || !r.top.length) return r.leaf;
  const of = doc.cells.find((c) => c.id === rate.of);
  const weakest = `${fmt(rate.weakest)} req/s, ${of ? of.topology.label : rate.of}`;
  const where = `p99 at ${fmt(rate.rate)} req/s: ${fmt(rate.load, 1)} of the weakest capacity (${weakest})`;
  return { ...r.leaf, lines: [`at ${fmt(rate.rate)} req/s:`, ...r.leaf.lines], note: `${where}; ${r.leaf.note}` };
}

function runtimeLeaf(doc, at, capacityTop) {
  const base = at.options[0]?.topology.runtime;
  const others = optionsAt(doc, at.workload, at.budget, (t) => t.runtime !== base && t.strategy === 'one process');
  const key = 'runtime';
  const title = 'runtime';
  if (!others.length) return absent(doc, key, title, [], 'this run measured no app of another runtime here');
  const targets = capacityTop.length ? capacityTop : at.options;
  const capacity = (o, t) => between(doc, at.workload, at.budget, 'capacity', o.topology.id, t.topology.id);
  const vs = others.flatMap((o) => targets.map((t) => capacity(o, t))).filter(Boolean);
  const ok = vs.filter((v) => usable(v, doc));
  if (!ok.length) return absent(doc, key, title, vs, 'no direct verdict between the runtimes was asked here');
  const winners = new Set(ok.map((v) => (labelOf(v, doc) === 'wins' ? v.winner : 'none')));
  const v = [...ok].sort((a, b) => Math.abs(Math.log(a.ratio)) - Math.abs(Math.log(b.ratio)))[0];
  const one = winners.size === 1 && !winners.has('none') ? nameOf(doc, [...winners][0]) : null;
  const against = targets.map((t) => shortName(doc, t.topology)).join(' or ');
  const answer = one ?? (winners.has('none') && winners.size === 1 ? 'either runtime' : 'it depends on the strategy');
  const note = `${others.map((o) => o.name).join(', ')} against ${against}, the best Node strategy here, `
    + 'directly (capacity).';
  return { key, title, lines: [answer, citeLine(doc, v)], answer, cites: ok, note };
}

/** The five leaves at one workload and budget (at: { workload, budget, options: the baseline app's }). */
export function leavesAt(doc, at) {
  const throughput = throughputLeaf(doc, at);
  return [
    throughput.leaf,
    memoryLeaf(doc, at, throughput.top),
    tailLeaf(doc, at),
    deployLeaf(doc, at),
    runtimeLeaf(doc, at, throughput.top),
  ];
}
