// The decision guide's section "When something dies / when you deploy", written from the drills of
// a run (doc.cells of kind fault, rollout, stop and scale-down): a table per engine with each
// strategy judged against the pass line (drill-verdict.js), then every drill with its counts, and
// why requests failed. Every number comes from the cells.
import { aboutCell, drillCellsOf, judgeDrill, kindName, measured, DRILL_KINDS } from './drill-verdict.js';

export { drillVerdict, judgeDrill, aboutCell } from './drill-verdict.js';

const num = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ms = (x) => (Number.isFinite(x) ? `${num(x)} ms` : 'n/a');
const failedOf = (part) => `${num(part.failed)} of ${num(part.requests)}`;

const ENGINE_NAME = { processes: 'the process engine (processes on 127.0.0.1, the local runner)', docker: 'Docker (the samples\' own compose files)' };

function writesText(w) {
  if (!w?.counted) return 'not counted';
  const extra = [w.ambiguous ? `${num(w.ambiguous)} ambiguous` : '', w.unexpected ? `${num(w.unexpected)} unexpected` : ''].filter(Boolean).join(', ');
  return `${num(w.acknowledged)} acknowledged: ${num(w.lost)} lost, ${num(w.duplicated)} duplicated${extra ? `, ${extra}` : ''}`;
}

// The strategies in the order the guide explains them (others after, as they come).
const ORDER = ['one-process', 'cluster', 'reuseport', 'pm2', 'replicas'];
const orderOf = (s) => (ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length);

// The rows of the summary: one per app, strategy, processes and budget, in the strategies' order.
function strategyRows(cells, doc) {
  const rows = new Map();
  for (const c of cells) {
    const a = aboutCell(c, doc);
    const key = `${a.app}|${a.strategy}|${a.processes}|${a.budget}`;
    if (!rows.has(key)) rows.set(key, { ...a, cells: {} });
    rows.get(key).cells[c.kind] = c;
  }
  return [...rows.values()].sort((x, y) => orderOf(x.strategy) - orderOf(y.strategy) || String(x.app).localeCompare(String(y.app)) || x.processes - y.processes);
}

function kindCell(c) {
  if (!c) return '—';
  if (!measured(c)) return `not measured (${c.status})`;
  return `GET ${failedOf(c.drill.get)}, POST ${failedOf(c.drill.post)}`;
}

function passLine(row) {
  const done = DRILL_KINDS.map((k) => row.cells[k]).filter(Boolean);
  if (!done.length || !done.every(measured) || !row.cells.fault || !row.cells.rollout) return 'not drilled';
  if (row.processes < 2) return 'counter-example';
  const judged = done.map(judgeDrill);
  if (!judged.every((j) => j.lostNothing)) return '**fail**';
  return judged.every((j) => j.writes === 'kept') ? 'pass' : 'pass (writes not counted)';
}

function rowWrites(row) {
  const ws = Object.values(row.cells).filter(measured).map((c) => c.drill.writes);
  const counted = ws.filter((w) => w?.counted);
  if (!counted.length) return 'not counted';
  const sum = (k) => counted.reduce((n, w) => n + (w[k] ?? 0), 0);
  return writesText({ counted: true, acknowledged: sum('acknowledged'), lost: sum('lost'), duplicated: sum('duplicated'), ambiguous: sum('ambiguous'), unexpected: sum('unexpected') }) + (counted.length < ws.length ? ` (${counted.length} of ${ws.length} drills)` : '');
}

function summaryTable(cells, doc) {
  const out = ['| strategy | app | processes | CPU | crash: failed | rollout: failed | stop: failed | scale-down: failed | writes | pass line |', '|---|---|---|---|---|---|---|---|---|---|'];
  for (const r of strategyRows(cells, doc)) {
    out.push(`| ${r.strategy} | ${r.app ?? '—'} | ${num(r.processes)} | ${r.budget ?? '—'} | ${kindCell(r.cells.fault)} | ${kindCell(r.cells.rollout)} | ${kindCell(r.cells.stop)} | ${kindCell(r.cells['scale-down'])} | ${rowWrites(r)} | ${passLine(r)} |`);
  }
  return out;
}

const eventsOf = (d) => d.kills?.length ?? d.steps?.length ?? d.events?.length ?? 0;

function detailTable(cells, doc) {
  const out = ['| drill | strategy | app | processes | events | failed GETs | failed POSTs | back after (median / max) | clients saw failures for (max) | writes | p99 |', '|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const c of cells.filter(measured)) {
    const a = aboutCell(c, doc);
    const d = c.drill;
    const back = d.backMs ?? d.recoverMs;
    out.push(`| ${kindName(c.kind)} | ${a.strategy} | ${a.app ?? '—'} | ${num(a.processes)} | ${num(eventsOf(d))} | ${failedOf(d.get)} | ${failedOf(d.post)} | ${ms(back?.median)} / ${ms(back?.max)} | ${d.outageMs ? ms(d.outageMs.max) : 'n/a'} | ${writesText(d.writes)} | ${ms(d.latencyMs?.p99)} |`);
  }
  return out;
}

// Why requests failed, for the kinds of failure this run saw.
function lostRequests(cells) {
  const lines = [];
  const errorsOf = (d, key) => (d.get.errors?.[key] ?? 0) + (d.post.errors?.[key] ?? 0);
  const seen = (key) => cells.some((c) => errorsOf(c.drill, key) > 0);
  if (seen('HTTP 502')) {
    lines.push('- **502 from nginx**: a POST in flight on a process that died, or sent to an instance nginx still listed after it left. nginx retries a failed GET on another '
      + 'instance (`proxy_next_upstream error timeout`) but never replays a POST it has already sent (it may have been processed), so the client gets the error. '
      + 'The store\'s count says whether it was kept anyway (ambiguous) or not.');
  }
  if (seen('ECONNRESET')) {
    lines.push('- **ECONNRESET**: the connection the request travelled on was closed under it — by a killed process, or by a server closing an idle keep-alive '
      + 'connection as the request arrived (nginx before 1.27.4 closes them at once on a reload). The client resends a GET on a new connection (counted as retried) but cannot resend a POST.');
  }
  if (seen('ECONNREFUSED')) lines.push('- **ECONNREFUSED**: nothing listened — one process with nothing in front to fail over to, between its death or stop and its restart.');
  if (seen('ETIMEDOUT')) lines.push('- **ETIMEDOUT**: no answer within the client\'s 10 s — a connection handed to a process that died before it read it; nobody answers or closes it.');
  return lines;
}

// What each drill did to each strategy, in the words its records keep (`what`).
function howDrilled(cells, doc) {
  const by = new Map();
  for (const c of cells) {
    const a = aboutCell(c, doc);
    if (!c.drill.what) continue;
    if (!by.has(a.strategy)) by.set(a.strategy, new Map());
    by.get(a.strategy).set(c.kind, c.drill.what);
  }
  return [...by].sort(([x], [y]) => orderOf(x) - orderOf(y))
    .map(([s, kinds]) => `- **${s}**: ${DRILL_KINDS.filter((k) => kinds.has(k)).map((k) => `${kindName(k)} — ${kinds.get(k)}`).join('; ')}.`);
}

/** Markdown lines of the section, from doc.cells. */
export function renderDrills(doc, { docs = '' } = {}) {
  const cells = drillCellsOf(doc);
  const out = ['## When something dies / when you deploy', ''];
  if (!cells.length) return [...out, 'No drill in this run (`make bench FULL=1` runs them).', ''];
  const ok = cells.filter(measured);
  const any = ok[0]?.drill;
  if (any) {
    out.push(`Each strategy is crashed and rolled out under ${num(any.rate)} requests/s, ${Math.round((any.mix.postShare ?? 0) * 100)} % of them POSTs, `
      + 'the rest GETs, always behind the app\'s nginx; each POST carries an id of its own, and after every drill the store is read back and each id counted: '
      + 'acknowledged (2xx) and stored, acknowledged and missing (**lost**), stored twice (**duplicated**), failed at the client but stored (ambiguous: allowed, counted).', '');
  }
  out.push('**The pass line**, for every strategy that runs 2 or more processes: 0 lost and 0 duplicated writes wherever they are counted, no GET failed '
    + 'in a crash (a POST in flight on the killed process may fail: counted), and no request at all failed in a rollout, a graceful stop or a scale-down. '
    + 'One process is the counter-example: its row says what it loses. *Back after* is measured — until the new or remaining processes answer their health '
    + 'check — and *clients saw failures for* is the span of the failed requests themselves.', '');
  const how = howDrilled(ok, doc);
  if (how.length) out.push('How each strategy is drilled:', '', ...how, '');
  const engines = [...new Set(cells.map((c) => aboutCell(c, doc).engine))].sort((a, b) => Object.keys(ENGINE_NAME).indexOf(a) - Object.keys(ENGINE_NAME).indexOf(b));
  for (const engine of engines) {
    const mine = cells.filter((c) => aboutCell(c, doc).engine === engine);
    out.push(`### On ${ENGINE_NAME[engine] ?? engine}`, '', ...summaryTable(mine, doc), '', 'Each drill:', '', ...detailTable(mine, doc), '');
  }
  const whys = [...new Set(ok.filter((c) => !c.drill.writes?.counted).map((c) => c.drill.writes?.why ?? 'this drill did not count its writes'))];
  if (whys.length) out.push('Writes not counted:', '', ...whys.map((w) => `- ${w}.`), '');
  const why = lostRequests(ok);
  if (why.length) out.push('Why requests failed:', '', ...why, '');
  const notRun = cells.filter((c) => !measured(c));
  if (notRun.length) {
    out.push('Not measured in this run:', '');
    for (const c of notRun) {
      const a = aboutCell(c, doc);
      out.push(`- ${kindName(c.kind)} of ${a.strategy} (${a.app ?? a.label ?? c.id}, ${a.engine}): ${c.status}${c.error ? ` — ${c.error}` : ''}`);
    }
    out.push('');
  }
  out.push(`How to run the same drills, restart policies and rolling restarts by hand, and their Docker equivalents: [when-something-dies.md](${docs}when-something-dies.md).`, '');
  return out;
}
