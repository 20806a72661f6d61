// The published experiments in the report and the guide: what the original did and what ran here,
// the published figures beside ours, the original's explanation and the control that tests it.
// Rendered from results.json alone: each experiment's parameters and figures are data in it.
import { fmt, fmtX, fmtCi, verdictSentence } from './format.js';
import { lowerMedian } from '../stats.js';
import { OWN_EXPLANATION, seedAnswers } from './seeds.js';
import { cleanText } from './sanitize.js';

const row = (cells) => `| ${cells.join(' | ')} |`;
const table = (head, rows) => [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
const esc = (s) => cleanText(s).replaceAll('\n', ' ').replaceAll('|', '\\|');
const range = (xs) => { const v = xs.filter(Number.isFinite); return v.length ? `${fmt(Math.min(...v))}–${fmt(Math.max(...v))}` : ''; };
const bounds = (xs) => { const v = (xs ?? []).filter(Number.isFinite); return v.length > 1 ? [Math.min(...v), Math.max(...v)] : [undefined, undefined]; };

export const experimentsOf = (doc) => doc.scenarios.filter((s) => s.experiment);
const cellsOf = (doc, s) => doc.cells.filter((c) => c.scenario === s.name);

// Our figure for a published one, by what the article measured.
const OURS = {
  rps: (c) => ({ value: c.rps?.median ?? c.effectiveRps, range: c.rounds?.length > 1 ? range(c.rounds.map((r) => r.rps)) : '', bounds: bounds(c.rounds?.map((r) => r.rps)), unit: 'req/s' }),
  maxMs: (c) => ({ value: c.latencyMs?.max?.median, range: range(c.rounds?.map((r) => r.latencyMs?.max) ?? []), bounds: bounds(c.rounds?.map((r) => r.latencyMs?.max)), unit: 'ms (slowest response)' }),
  firstMs: (c) => ({ value: lowerMedian(c.rounds?.map((r) => r.timeline?.[0]?.[1]) ?? []), range: range(c.rounds?.map((r) => r.timeline?.[0]?.[1]) ?? []), bounds: bounds(c.rounds?.map((r) => r.timeline?.[0]?.[1])), unit: 'ms (first response)' }),
  failedShare: (c) => ({ value: c.requests ? c.errors / c.requests : null, range: '', unit: 'share of requests failed', pct: true }),
};
/** @type {[string, string, (c: any) => unknown][]} */
const FIELDS = [['effectiveRps', 'effective req/s', (c) => c.effectiveRps], ['errors', 'failed requests', (c) => c.errors], ['requests', 'requests', (c) => c.requests],
  ['p50Ms', 'p50 ms', (c) => c.latencyMs?.p50], ['p90Ms', 'p90 ms', (c) => c.latencyMs?.p90], ['p95Ms', 'p95 ms', (c) => c.latencyMs?.p95], ['p99Ms', 'p99 ms', (c) => c.latencyMs?.p99], ['maxMs', 'slowest ms', (c) => c.latencyMs?.max]];

/** Rows of "published beside ours": { label, what, published, ours, range, unit }. */
export function publishedRows(doc, s) {
  const byId = new Map(doc.cells.map((c) => [c.id, c]));
  const rows = [];
  for (const p of s.experiment.published ?? []) {
    const c = byId.get(p.cell);
    const label = c?.topology.label ?? p.cell;
    const ok = c?.status === 'ok';
    if (p.metric && p.metric !== 'rps' || p.value !== undefined || p.runs) {
      const metric = p.metric ?? 'rps';
      const published = p.runs ? lowerMedian(p.runs) : p.value;
      const ours = ok ? OURS[metric](c) : { value: null, range: '', unit: OURS[metric]({}).unit };
      const [publishedMin, publishedMax] = bounds(p.runs);
      const [oursMin, oursMax] = ours.bounds ?? [];
      rows.push({ label, cell: p.cell, what: metric, published, publishedRange: p.runs ? range(p.runs) : '', publishedMin, publishedMax, ours: ours.value, oursMin, oursMax, range: ours.range, unit: ours.unit, pct: ours.pct, note: p.note, status: c?.status ?? 'not run' });
    } else {
      for (const [key, what, get] of FIELDS) {
        if (p[key] === undefined) continue;
        rows.push({ label, cell: p.cell, what, published: p[key], ours: ok ? get(c) : null, range: '', unit: '', note: p.note, status: c?.status ?? 'not run' });
      }
    }
  }
  return rows;
}

function valueText(v, pct) {
  if (typeof v === 'string') return esc(v);
  return pct ? `${fmt(100 * v, 1)}%` : fmt(v, Number.isFinite(v) && !Number.isInteger(v) && Math.abs(v) < 10 ? 1 : 0);
}

function publishedTable(doc, s) {
  const rows = publishedRows(doc, s);
  if (!rows.length) return [];
  return [table(['variant', 'figure', 'published', 'ours (median; range over rounds)'],
    rows.map((r) => [esc(r.label), esc(r.unit || r.what), `${valueText(r.published, r.pct)}${r.publishedRange ? ` (${r.publishedRange})` : ''}${r.note ? ` — ${esc(r.note)}` : ''}`,
      r.status !== 'ok' ? `**${r.status}**` : `${valueText(r.ours, r.pct)}${r.range ? ` (${r.range})` : ''}`])), ''];
}

function parameterTable(doc, s) {
  const e = s.experiment;
  const cells = cellsOf(doc, s).filter((c) => c.kind !== 'derived');
  const tools = [...new Set(cells.map((c) => c.tool).filter(Boolean))].join(', ');
  const conns = [...new Set(cells.map((c) => c.connections))].join(', ');
  const windows = [...new Set(cells.map((c) => (c.kind === 'closed' ? `${c.windowS} s × ${c.rounds?.length ?? 0} rounds` : c.kind === 'count' ? `${c.amount} requests × ${c.rounds?.length ?? 0} rounds` : c.kind === 'fixedrate' ? `${fmt(c.requests)} requests at ${fmt(c.rate)}/s` : c.kind)))].join('; ');
  const rows = Object.entries(e.original).map(([k, v]) => [esc(k), esc(typeof v === 'object' ? JSON.stringify(v) : v)]);
  return [
    table(['the original', ''], rows), '',
    `Here: ${tools || 'n/a'}; ${conns} connection(s); ${windows}; the load generator on CPU ${doc.isolation.generatorCpus}, the servers on ${doc.isolation.pinned ? `CPU ${doc.isolation.sutCpus}` : 'the same CPUs (unpinned)'} unless said below.`, '',
    ...(e.deviations?.length ? [table(['scaled or changed', 'original', 'here', 'why'], e.deviations.map((d) => [esc(d.what), esc(d.original), esc(d.ours), esc(d.why)])), ''] : []),
  ];
}

function comparisons(doc, s) {
  const vs = doc.verdicts.filter((v) => v.id.startsWith(`${s.name}.`));
  if (!vs.length) return [];
  const pub = new Map((s.experiment.publishedRatios ?? []).map((p) => [p.comparison, p.value]));
  return [table(['question', 'ratio (95% interval)', 'published', 'outcome'],
    vs.map((v) => [esc(v.question), v.measured ? `${fmtX(v.ratio)} (${fmtCi(v.ci95)})` : 'not measured', pub.has(v.id) ? fmtX(pub.get(v.id)) : '—', esc(verdictSentence(doc, v))])), ''];
}

// What each experiment needs shown beyond the common tables.
const SHOW = {
  draw: (doc, s) => {
    const drawn = cellsOf(doc, s).filter((c) => c.draw?.length);
    if (!drawn.length) return [];
    const d = drawn[0].draw;
    return [`The delays the ten replicas drew (seed recorded in the cell's topology): ${d.map((x) => `${x.delayMs} ms`).join(', ')}. `
      + `A single instance's figure depends entirely on its one draw: ${cellsOf(doc, s).filter((c) => /1-instance-\d+ms$/.test(c.id) && c.status === 'ok').map((c) => `${fmt(c.rps.median)} req/s at ${c.topology.env.DELAY_MS} ms`).join(', ')}.`, ''];
  },
  throttling: (doc, s) => {
    const rows = cellsOf(doc, s).filter((c) => c.status === 'ok').map((c) => {
      let periods = 0; let throttled = 0; let ms = 0; let secs = 0;
      for (const r of c.rounds) {
        for (const t of Object.values(r.throttling ?? {})) { periods += t.periods; throttled += t.throttled; ms += t.throttledMs; }
        secs += r.durationS ?? 0;
      }
      return [esc(c.topology.label), fmt(c.rps.median), fmt(periods), fmt(throttled), periods ? `${fmt((100 * throttled) / periods, 1)}%` : 'n/a', secs ? fmt(ms / secs, 0) : 'n/a'];
    });
    return rows.length ? ['CFS throttling during the measured windows, summed over the containers of each variant (cgroup `cpu.stat`: `nr_periods`, `nr_throttled`, `throttled_time`):', '',
      table(['variant', 'req/s', 'periods', 'throttled periods', 'share throttled', 'throttled ms per second'], rows), ''] : [];
  },
  timeline: (doc, s) => {
    const rows = cellsOf(doc, s).filter((c) => c.status === 'ok' && c.rounds?.[0]?.timeline).map((c) => {
      const t = c.rounds[0].timeline.map(([, ms]) => ms);
      return [esc(c.topology.label), fmt(t[0]), fmt(lowerMedian(t)), fmt(Math.max(...t)), fmt(c.rounds[0].durationS, 1)];
    });
    return rows.length ? ['Response times in the order the answers came back (first round; the chart shows every answer):', '', table(['variant', 'first ms', 'median ms', 'slowest ms', 'all 50 answered in s'], rows), ''] : [];
  },
  failures: (doc, s) => {
    const rows = cellsOf(doc, s).filter((c) => c.status === 'ok' && /killed/.test(c.id)).map((c) => [esc(c.topology.label), fmt(c.requests), fmt(c.errors), c.requests ? `${fmt((100 * c.errors) / c.requests, 1)}%` : 'n/a']);
    return rows.length ? ['With one of the three servers killed before the run:', '', table(['balancer', 'requests', 'failed', 'share failed'], rows), ''] : [];
  },
  sockets: (doc, s) => {
    const rows = cellsOf(doc, s).filter((c) => c.status === 'ok').map((c) => [esc(c.topology.label), fmt(c.effectiveRps), fmt(c.errors), esc(Object.entries(c.errorKinds ?? {}).map(([k, n]) => `${k}: ${fmt(n)}`).join(', ') || 'none'),
      fmt(c.latencyMs?.p50, 0), fmt(c.latencyMs?.p99, 0), fmt(c.sockets?.activeOpens), fmt(c.sockets?.listenOverflows), fmt(c.sockets?.timeWaitAfter)]);
    const any = cellsOf(doc, s).find((c) => c.sockets);
    return rows.length ? [table(['variant', 'effective req/s', 'failed', 'failures by kind', 'p50 ms', 'p99 ms', 'connections opened', 'listen-queue overflows', 'TIME_WAIT after'], rows), '',
      any ? `The machine: ephemeral ports ${any.sockets.ephemeralPorts}, tcp_tw_reuse ${any.sockets.tcpTwReuse}, somaxconn ${any.sockets.somaxconn} (Node's listen backlog is 511).` : '', ''] : [];
  },
  scheduling: (doc, s) => {
    let dropped = 0;
    const rows = cellsOf(doc, s).filter((c) => c.status === 'ok').map((c) => {
      // A round whose counts went down lost a thread between the two readings (its counts left
      // with it): its difference is not the round's switches, so it is left out, and said so.
      const kept = c.rounds.filter((r) => r.contextSwitches && r.requests > 0 && r.contextSwitches.voluntary >= 0 && r.contextSwitches.involuntary >= 0);
      dropped += c.rounds.filter((r) => r.contextSwitches).length - kept.length;
      const req = kept.reduce((a, r) => a + r.requests, 0);
      const cs = kept.reduce((a, r) => a + r.contextSwitches.voluntary + r.contextSwitches.involuntary, 0);
      const inv = kept.reduce((a, r) => a + r.contextSwitches.involuntary, 0);
      return [esc(c.topology.label), esc(c.workload), fmt(c.rps.median), fmt(lowerMedian(c.rounds.map((r) => r.appThreads))), req ? fmt(cs / req, 2) : 'n/a', req ? fmt(inv / req, 3) : 'n/a'];
    });
    return rows.length ? [`Context switches of the app processes (every thread, \`/proc/<pid>/task/*/status\`) and their thread counts${dropped ? ` (${dropped} round${dropped > 1 ? 's' : ''} left out, where a thread ended between the two readings and took its counts with it)` : ''}:`, '',
      table(['variant', 'workload', 'req/s', 'threads', 'context switches per request', 'involuntary per request'], rows), ''] : [];
  },
};

export function experimentSection(doc, s, { detail = true, charts = {} } = {}) {
  const e = s.experiment;
  const explanation = !e.explanation ? '' : OWN_EXPLANATION.has(s.name) ? ` **Explanation tested here** (the article gives none; this one is the repository's): ${esc(e.explanation)}` : ` **Its explanation**: ${esc(e.explanation)}`;
  const out = [`## ${s.title}`, '', `${esc(e.source)}. **Claim**: ${esc(e.claim)}${explanation}${e.warning ? ` **Its warning**: ${esc(e.warning)}` : ''}${e.requirement ? ` **Requirement**: ${esc(e.requirement)}.` : ''}`, ''];
  const answer = seedAnswers(doc).find((a) => a.id === s.name);
  if (answer) out.push(`**Answer: ${answer.answer}**${answer.control ? ` (the control: \`${answer.control}\`)` : ''} — ${answer.why}`, '');
  out.push(`Run alone with \`make bench SCENARIO=${s.name}\`${detail ? '' : '; every table is in the report'}.`, '');
  if (detail) out.push(...parameterTable(doc, s));
  for (const [file, c] of Object.entries(charts)) if (c.scenario === s.name) out.push(`![${c.title?.text ?? c.title}](${file})`, '');
  out.push(...publishedTable(doc, s));
  out.push(...comparisons(doc, s));
  if (detail) for (const k of e.show ?? []) out.push(...(SHOW[k]?.(doc, s) ?? []));
  return out;
}

/** The experiments' sections: in full in the report, one short section each in the guide. */
export function experimentSections(doc, where, charts = {}) {
  const exps = experimentsOf(doc);
  if (!exps.length) return [];
  // The guide answers each experiment in a paragraph (seeds.js); the tables are the report's.
  return where === 'report' ? exps.flatMap((s) => experimentSection(doc, s, { charts })) : [];
}
