// The decision guide's section "When something dies / when you deploy", written from the drills of
// a run (doc.cells of kind fault, rollout, stop and scale-down): a table per engine with each
// strategy judged against the pass line (drill-verdict.js), then every drill with its counts, and
// why requests failed. Every number comes from the cells; the prose from templates/drills-*.md.
import {
  aboutCell, drillCellsOf, judgeDrill, kindName, measured, neededKinds, notCountedWhys, DRILL_KINDS,
} from './drill-verdict.js';
import { fill } from './template.js';
import { num, table } from './format.js';

export { drillVerdict, judgeDrill, aboutCell } from './drill-verdict.js';

const ms = (x) => (Number.isFinite(x) ? `${num(x)} ms` : 'n/a');
const failedOf = (part) => `${num(part.failed)} of ${num(part.requests)}`;

export const ENGINE_NAME = {
  processes: 'the process engine (processes on 127.0.0.1, the local runner)',
  docker: "Docker (the samples' own compose files)",
  swarm: "Docker Swarm (`docker stack deploy` of the samples' own files, compose.swarm.yaml on top)",
};

// The strategies in the order the guide explains them (others after, as they come).
const ORDER = ['one-process', 'cluster', 'reuseport', 'pm2', 'replicas'];
const orderOf = (s) => (ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length);

function writesText(w) {
  if (!w?.counted) return 'not counted';
  const extra = ['ambiguous', 'unexpected'].map((k) => (w[k] ? `, ${num(w[k])} ${k}` : '')).join('');
  return `${num(w.acknowledged)} acknowledged: ${num(w.lost)} lost, ${num(w.duplicated)} duplicated${extra}`;
}

// The rows of the summary: one per app, strategy, processes and budget, in the strategies' order.
function strategyRows(cells, doc) {
  const keyOf = (a) => `${a.app}|${a.strategy}|${a.processes}|${a.budget}`;
  const groups = Map.groupBy(cells, (c) => keyOf(aboutCell(c, doc)));
  const rows = [...groups.values()].map((cs) =>
    ({ ...aboutCell(cs[0], doc), cells: Object.fromEntries(cs.map((c) => [c.kind, c])) }));
  return rows.sort(
    (x, y) =>
      orderOf(x.strategy) - orderOf(y.strategy) ||
      String(x.app).localeCompare(String(y.app)) ||
      x.processes - y.processes,
  );
}

// What an event cost the clients: the requests that failed, then the latency of those sent while it
// ran (p50 / p99 / max), or why that is not published.
function kindCell(c) {
  if (!c) return '—';
  if (!measured(c)) return `not measured (${c.status})`;
  return `GET ${failedOf(c.drill.get)}, POST ${failedOf(c.drill.post)}; ${eventLatency(c.drill)[0]}`;
}

// How late the generator sent, the worst of the row's drills (p99 / max): each is under the bound.
function rowLateness(r) {
  const lags = Object.values(r.cells).filter(measured).map((c) => duringOf(c.drill).sendLagMs).filter(Boolean);
  if (!lags.length) return 'not recorded';
  return `${lat(Math.max(...lags.map((l) => l.p99)))} / ${lat(Math.max(...lags.map((l) => l.max)))} ms`;
}

function passLine(r, engine) {
  const done = DRILL_KINDS.map((k) => r.cells[k]).filter(Boolean);
  const needed = neededKinds(engine).every((k) => r.cells[k]);
  if (!done.length || !done.every(measured) || !needed) return 'not drilled';
  if (r.processes < 2) return 'counter-example';
  const judged = done.map(judgeDrill);
  if (!judged.every((j) => j.lostNothing)) return '**fail**';
  return judged.every((j) => j.writes === 'kept') ? 'pass' : 'pass (writes not counted)';
}

function rowWrites(r) {
  const ws = Object.values(r.cells)
    .filter(measured)
    .map((c) => c.drill.writes);
  const counted = ws.filter((w) => w?.counted);
  if (!counted.length) return 'not counted';
  const sum = (k) => counted.reduce((n, w) => n + (w[k] ?? 0), 0);
  const keys = ['acknowledged', 'lost', 'duplicated', 'ambiguous', 'unexpected'];
  const text = writesText({ counted: true, ...Object.fromEntries(keys.map((k) => [k, sum(k)])) });
  return counted.length < ws.length ? `${text} (${counted.length} of ${ws.length} drills)` : text;
}

function summaryTable(cells, doc, engine) {
  const byKind = DRILL_KINDS.map((k) => `${k === 'fault' ? 'crash' : k}: failed; p50 / p99 / max`);
  const head = ['strategy', 'app', 'processes', 'CPU', ...byKind, 'writes', 'generator late by (p99 / max)',
    'pass line'];
  return table(head, strategyRows(cells, doc).map((r) => {
    const kinds = DRILL_KINDS.map((k) => kindCell(r.cells[k]));
    return [r.strategy, r.app ?? '—', num(r.processes), r.budget ?? '—', ...kinds, rowWrites(r), rowLateness(r),
      passLine(r, engine)];
  }));
}

// The figures of the requests sent while the events ran; an older record keeps them on the drill itself.
const duringOf = (d) => d.duringEvents ?? d;
const eventsOf = (d) => d.kills?.length ?? d.steps?.length ?? d.events?.length ?? 0;

// Latency to 0.1 ms below 10 ms, whole ms above.
const lat = (x) => (!Number.isFinite(x) ? 'n/a' : x < 10 ? x.toFixed(1) : num(x));
const triple = (l) => (l ? `${lat(l.p50)} / ${lat(l.p99)} / ${lat(l.max)} ms` : 'n/a');

/**
 * What the clients saw of the requests sent while the drill's events ran (from the first one's start
 * to the drill's end): p50 / p99 / max, timed from each request's intended send; and how late the
 * generator itself sent them (p99 / max), which a drill keeps under its bound or is not published.
 * A record without the generator's lateness (a run before it was recorded) publishes no latency:
 * its generator may have stalled with the orchestration, and its figures would be the stall's.
 */
function eventLatency(d) {
  const during = duringOf(d);
  const lag = during.sendLagMs;
  if (!lag) return ['not published: no lateness record', 'not recorded'];
  return [triple(during.latencyMs), `${lat(lag.p99)} / ${lat(lag.max)} ms`];
}

function detailTable(cells, doc) {
  const head = ['drill', 'strategy', 'app', 'processes', 'events', 'failed GETs', 'failed POSTs',
    'back after (median / max)', 'clients saw failures for (max)', 'writes',
    'latency during the events (p50 / p99 / max)', 'generator late by (p99 / max)'];
  return table(head, cells.filter(measured).map((c) => {
    const a = aboutCell(c, doc);
    const d = c.drill;
    const back = d.backMs ?? d.recoverMs;
    const outage = d.outageMs ? ms(d.outageMs.max) : 'n/a';
    return [kindName(c.kind), a.strategy, a.app ?? '—', num(a.processes), num(eventsOf(d)), failedOf(d.get),
      failedOf(d.post), `${ms(back?.median)} / ${ms(back?.max)}`, outage, writesText(d.writes), ...eventLatency(d)];
  }));
}

// Why requests failed, for the kinds of failure this run saw.
const WHY = { 'HTTP 502': 'drills-why-502', ECONNRESET: 'drills-why-reset', ECONNREFUSED: 'drills-why-refused',
  ETIMEDOUT: 'drills-why-timeout' };
function lostRequests(cells) {
  const errorsOf = (d, key) => (d.get.errors?.[key] ?? 0) + (d.post.errors?.[key] ?? 0);
  const seen = (key) => cells.some((c) => errorsOf(c.drill, key) > 0);
  return Object.entries(WHY).filter(([k]) => seen(k)).flatMap(([, t]) => fill(t));
}

// What each drill did to each strategy, in the words its records keep (`what`).
function howDrilled(cells, doc) {
  const by = Map.groupBy(cells.filter((c) => c.drill.what), (c) => aboutCell(c, doc).strategy);
  // One item per strategy and drill (the last record of a kind): short enough to read at a glance.
  const line = ([s, mine]) =>
    DRILL_KINDS.map((k) => mine.findLast((c) => c.kind === k))
      .filter(Boolean)
      .map((c) => `- **${s}**, ${kindName(c.kind)}: ${c.drill.what}.`)
      .join('\n');
  return [...by].sort(([x], [y]) => orderOf(x) - orderOf(y)).map(line);
}

function notMeasured(cells, doc) {
  return cells
    .filter((c) => !measured(c))
    .map((c) => {
      const a = aboutCell(c, doc);
      const why = `${c.status}${c.error ? ` — ${c.error}` : ''}`;
      return `- ${kindName(c.kind)} of ${a.strategy} (${a.app ?? a.label ?? c.id}, ${a.engine}): ${why}`;
    });
}

const engineOrder = (a, b) => Object.keys(ENGINE_NAME).indexOf(a) - Object.keys(ENGINE_NAME).indexOf(b);
const block = (title, lines) => (lines.length ? [title, '', ...lines, ''] : []);

/** Markdown lines of the section, from doc.cells. */
export function renderDrills(doc, { docs = '' } = {}) {
  const cells = drillCellsOf(doc);
  const out = ['## When something dies / when you deploy', ''];
  if (!cells.length) return [...out, 'No drill in this run (`make bench FULL=1` runs them).', ''];
  const ok = cells.filter(measured);
  const any = ok[0]?.drill;
  if (any)
    out.push(
      ...fill('drills-intro', { rate: num(any.rate), postShare: Math.round((any.mix.postShare ?? 0) * 100) }),
      '',
    );
  out.push(...fill('drills-pass-line'), '');
  out.push(...block('How each strategy is drilled:', howDrilled(ok, doc)));
  const engines = [...new Set(cells.map((c) => aboutCell(c, doc).engine))].sort(engineOrder);
  for (const engine of engines) {
    const mine = cells.filter((c) => aboutCell(c, doc).engine === engine);
    out.push(`### On ${ENGINE_NAME[engine] ?? engine}`, '', summaryTable(mine, doc, engine), '');
    out.push('Each drill:', '', detailTable(mine, doc), '');
  }
  const whys = notCountedWhys(ok, 'this drill did not count its writes');
  out.push(...block('Writes not counted:', whys.map((w) => `- ${w}.`)));
  out.push(...block('Why requests failed:', lostRequests(ok)));
  out.push(...block('Not measured in this run:', notMeasured(cells, doc)));
  out.push(...fill('drills-by-hand', { docs }), '');
  return out;
}
