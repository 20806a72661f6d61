// The published experiments in the report and the guide: what the original did and what ran here,
// the published figures beside ours, the original's explanation and the control that tests it.
// Rendered from results.json alone: each experiment's parameters and figures are data in it.
import { fmt, fmtX, fmtCi, verdictSentence, table, escText as esc } from './format.js';
import { lowerMedian } from '../judge/stats.js';
import { OWN_EXPLANATION, seedAnswers, paragraphsUnder } from './seeds.js';
import { inline } from './template.js';

const range = (xs) => {
  const v = xs.filter(Number.isFinite);
  return v.length ? `${fmt(Math.min(...v))}–${fmt(Math.max(...v))}` : '';
};
const bounds = (xs) => {
  const v = (xs ?? []).filter(Number.isFinite);
  return v.length > 1 ? [Math.min(...v), Math.max(...v)] : [undefined, undefined];
};

export const experimentsOf = (doc) => doc.scenarios.filter((s) => s.experiment);
const cellsOf = (doc, s) => doc.cells.filter((c) => c.scenario === s.name);

// A figure of ours over a cell's rounds: its value, and the rounds' values as a min–max text and bounds.
const overRounds = (xs, value, unit) => ({ value, range: range(xs ?? []), bounds: bounds(xs), unit });
const firstMsOf = (c) => c.rounds?.map((r) => r.timeline?.[0]?.[1]);

// Our figure for a published one, by what the article measured.
const OURS = {
  rps: (c) => ({
    ...overRounds(c.rounds?.map((r) => r.rps), c.rps?.median ?? c.effectiveRps, 'req/s'),
    ...(c.rounds?.length > 1 ? {} : { range: '' }),
  }),
  maxMs: (c) => overRounds(c.rounds?.map((r) => r.latencyMs?.max), c.latencyMs?.max?.median, 'ms (slowest response)'),
  firstMs: (c) => overRounds(firstMsOf(c), lowerMedian(firstMsOf(c) ?? []), 'ms (first response)'),
  failedShare: (c) => ({
    value: c.requests ? c.errors / c.requests : null,
    range: '',
    unit: 'share of requests failed',
    pct: true,
  }),
};
/** @type {[string, string, (c: any) => unknown][]} */
const FIELDS = [
  ['effectiveRps', 'effective req/s', (c) => c.effectiveRps],
  ['errors', 'failed requests', (c) => c.errors],
  ['requests', 'requests', (c) => c.requests],
  ['p50Ms', 'p50 ms', (c) => c.latencyMs?.p50],
  ['p90Ms', 'p90 ms', (c) => c.latencyMs?.p90],
  ['p95Ms', 'p95 ms', (c) => c.latencyMs?.p95],
  ['p99Ms', 'p99 ms', (c) => c.latencyMs?.p99],
  ['maxMs', 'slowest ms', (c) => c.latencyMs?.max],
];

/** Rows of "published beside ours": { label, what, published, ours, range, unit }. */
export function publishedRows(doc, s) {
  const byId = new Map(doc.cells.map((c) => [c.id, c]));
  return (s.experiment.published ?? []).flatMap((p) => {
    const c = byId.get(p.cell);
    const ok = c?.status === 'ok';
    const label = c?.topology.label ?? p.cell;
    const row = { label, cell: p.cell, note: p.note, status: c?.status ?? 'not run', range: '', unit: '' };
    if (!(p.metric && p.metric !== 'rps' || p.value !== undefined || p.runs)) {
      const given = FIELDS.filter(([key]) => p[key] !== undefined);
      return given.map(([key, what, get]) => ({ ...row, what, published: p[key], ours: ok ? get(c) : null }));
    }
    const metric = p.metric ?? 'rps';
    const published = p.runs ? lowerMedian(p.runs) : p.value;
    const ours = ok ? OURS[metric](c) : { value: null, range: '', unit: OURS[metric]({}).unit };
    const [publishedMin, publishedMax] = bounds(p.runs);
    const [oursMin, oursMax] = ours.bounds ?? [];
    return [{
      ...row, what: metric, published, publishedRange: p.runs ? range(p.runs) : '', publishedMin, publishedMax,
      ours: ours.value, oursMin, oursMax, range: ours.range, unit: ours.unit, pct: ours.pct,
    }];
  });
}

function valueText(v, pct) {
  if (typeof v === 'string') return esc(v);
  return pct ? `${fmt(100 * v, 1)}%` : fmt(v, Number.isFinite(v) && !Number.isInteger(v) && Math.abs(v) < 10 ? 1 : 0);
}

const publishedText = (r) => {
  const range = r.publishedRange ? ` (${r.publishedRange})` : '';
  return `${valueText(r.published, r.pct)}${range}${r.note ? ` — ${esc(r.note)}` : ''}`;
};
const oursText = (r) =>
  (r.status !== 'ok' ? `**${r.status}**` : `${valueText(r.ours, r.pct)}${r.range ? ` (${r.range})` : ''}`);

function publishedTable(doc, s) {
  const rows = publishedRows(doc, s);
  if (!rows.length) return [];
  return [table(['variant', 'figure', 'published', 'ours (median; range over rounds)'],
    rows.map((r) => [esc(r.label), esc(r.unit || r.what), publishedText(r), oursText(r)])), ''];
}

// How long a cell of each kind ran.
function windowText(c) {
  const rounds = c.rounds?.length ?? 0;
  if (c.kind === 'closed') return `${c.windowS} s × ${rounds} rounds`;
  if (c.kind === 'count') return `${c.amount} requests × ${rounds} rounds`;
  if (c.kind === 'fixedrate') return `${fmt(c.requests)} requests at ${fmt(c.rate)}/s`;
  return c.kind;
}

function parameterTable(doc, s) {
  const e = s.experiment;
  const cells = cellsOf(doc, s).filter((c) => c.kind !== 'derived');
  const tools = [...new Set(cells.map((c) => c.tool).filter(Boolean))].join(', ');
  const conns = [...new Set(cells.map((c) => c.connections))].join(', ');
  const windows = [...new Set(cells.map(windowText))].join('; ');
  const rows = Object.entries(e.original).map(([k, v]) => [esc(k), esc(typeof v === 'object' ? JSON.stringify(v) : v)]);
  const iso = doc.isolation;
  const servers = iso.pinned ? `CPU ${iso.sutCpus}` : 'the same CPUs (unpinned)';
  const deviations = (e.deviations ?? []).map((d) => [esc(d.what), esc(d.original), esc(d.ours), esc(d.why)]);
  return [
    table(['the original', ''], rows), '',
    `Here: ${tools || 'n/a'}; ${conns} connection(s); ${windows}; the load generator on CPU ${iso.generatorCpus}, `
      + `the servers on ${servers} unless said below.`, '',
    ...(e.deviations?.length ? [table(['scaled or changed', 'original', 'here', 'why'], deviations), ''] : []),
  ];
}

function comparisons(doc, s) {
  const vs = doc.verdicts.filter((v) => v.id.startsWith(`${s.name}.`));
  if (!vs.length) return [];
  const pub = new Map((s.experiment.publishedRatios ?? []).map((p) => [p.comparison, p.value]));
  return [table(['question', 'ratio (95% interval)', 'published', 'outcome'], vs.map((v) => [
    esc(v.question),
    v.measured ? `${fmtX(v.ratio)} (${fmtCi(v.ci95)})` : 'not measured',
    pub.has(v.id) ? fmtX(pub.get(v.id)) : '—',
    esc(verdictSentence(doc, v)),
  ])), ''];
}

const okCellsOf = (doc, s) => cellsOf(doc, s).filter((c) => c.status === 'ok');
const pctOf = (part, whole) => (whole ? `${fmt((100 * part) / whole, 1)}%` : 'n/a');
const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);

// CFS throttling of one cell's containers, summed over its rounds: a table row.
function throttlingRow(c) {
  const ts = c.rounds.flatMap((r) => Object.values(r.throttling ?? {}));
  const [periods, throttled, ms] = ['periods', 'throttled', 'throttledMs'].map((k) => sum(ts, (t) => t[k]));
  const secs = sum(c.rounds, (r) => r.durationS ?? 0);
  return [
    esc(c.topology.label), fmt(c.rps.median), fmt(periods), fmt(throttled), pctOf(throttled, periods),
    secs ? fmt(ms / secs, 0) : 'n/a',
  ];
}

function socketsRow(c) {
  const kinds = Object.entries(c.errorKinds ?? {}).map(([k, n]) => `${k}: ${fmt(n)}`).join(', ') || 'none';
  return [
    esc(c.topology.label), fmt(c.effectiveRps), fmt(c.errors), esc(kinds), fmt(c.latencyMs?.p50, 0),
    fmt(c.latencyMs?.p99, 0), fmt(c.sockets?.activeOpens), fmt(c.sockets?.listenOverflows),
    fmt(c.sockets?.timeWaitAfter),
  ];
}

// Context switches of one cell's app processes per request: a table row; `kept` its usable rounds.
function schedulingRow(c, kept) {
  const req = sum(kept, (r) => r.requests);
  const cs = sum(kept, (r) => r.contextSwitches.voluntary + r.contextSwitches.involuntary);
  const inv = sum(kept, (r) => r.contextSwitches.involuntary);
  return [
    esc(c.topology.label), esc(c.workload), fmt(c.rps.median), fmt(lowerMedian(c.rounds.map((r) => r.appThreads))),
    req ? fmt(cs / req, 2) : 'n/a', req ? fmt(inv / req, 3) : 'n/a',
  ];
}

// What each experiment needs shown beyond the common tables.
const SHOW = {
  draw: (doc, s) => {
    const drawn = cellsOf(doc, s).filter((c) => c.draw?.length);
    if (!drawn.length) return [];
    const singles = okCellsOf(doc, s).filter((c) => /1-instance-\d+ms$/.test(c.id));
    return [inline('report-exp-draw', {
      delays: drawn[0].draw.map((x) => `${x.delayMs} ms`).join(', '),
      singles: singles.map((c) => `${fmt(c.rps.median)} req/s at ${c.topology.env.DELAY_MS} ms`).join(', '),
    }), ''];
  },
  throttling: (doc, s) => {
    const rows = okCellsOf(doc, s).map(throttlingRow);
    const head = ['variant', 'req/s', 'periods', 'throttled periods', 'share throttled', 'throttled ms per second'];
    return rows.length ? [inline('report-exp-throttling'), '', table(head, rows), ''] : [];
  },
  timeline: (doc, s) => {
    const rows = okCellsOf(doc, s).filter((c) => c.rounds?.[0]?.timeline).map((c) => {
      const t = c.rounds[0].timeline.map(([, ms]) => ms);
      const last = fmt(c.rounds[0].durationS, 1);
      return [esc(c.topology.label), fmt(t[0]), fmt(lowerMedian(t)), fmt(Math.max(...t)), last];
    });
    const head = ['variant', 'first ms', 'median ms', 'slowest ms', 'all 50 answered in s'];
    const intro = 'Response times in the order the answers came back (first round; the chart shows every answer):';
    return rows.length ? [intro, '', table(head, rows), ''] : [];
  },
  failures: (doc, s) => {
    const rows = okCellsOf(doc, s).filter((c) => /killed/.test(c.id))
      .map((c) => [esc(c.topology.label), fmt(c.requests), fmt(c.errors), pctOf(c.errors, c.requests)]);
    const head = ['balancer', 'requests', 'failed', 'share failed'];
    return rows.length ? ['With one of the three servers killed before the run:', '', table(head, rows), ''] : [];
  },
  sockets: (doc, s) => {
    const rows = okCellsOf(doc, s).map(socketsRow);
    const any = cellsOf(doc, s).find((c) => c.sockets);
    const head = [
      'variant', 'effective req/s', 'failed', 'failures by kind', 'p50 ms', 'p99 ms', 'connections opened',
      'listen-queue overflows', 'TIME_WAIT after',
    ];
    const machine = any ? inline('report-exp-machine', {
      ports: `${any.sockets.ephemeralPorts}`, reuse: `${any.sockets.tcpTwReuse}`, somaxconn: `${any.sockets.somaxconn}`,
    }) : '';
    return rows.length ? [table(head, rows), '', machine, ''] : [];
  },
  scheduling: (doc, s) => {
    let dropped = 0;
    const rows = okCellsOf(doc, s).map((c) => {
      // A round whose counts went down lost a thread between the two readings (its counts left
      // with it): its difference is not the round's switches, so it is left out, and said so.
      const kept = c.rounds.filter((r) => r.contextSwitches && r.requests > 0
        && r.contextSwitches.voluntary >= 0 && r.contextSwitches.involuntary >= 0);
      dropped += c.rounds.filter((r) => r.contextSwitches).length - kept.length;
      return schedulingRow(c, kept);
    });
    const rounds = dropped > 1 ? 'rounds' : 'round';
    const left = dropped ? ` ${inline('report-exp-dropped', { dropped, rounds })}` : '';
    const head = ['variant', 'workload', 'req/s', 'threads', 'context switches per request', 'involuntary per request'];
    return rows.length ? [inline('report-exp-scheduling', { dropped: left }), '', table(head, rows), ''] : [];
  },
};

function claimText(s) {
  const e = s.experiment;
  const explanation = !e.explanation ? ''
    : OWN_EXPLANATION.has(s.name)
      ? ` **Explanation tested here** (the article gives none; this one is the repository's): ${esc(e.explanation)}`
      : ` **Its explanation**: ${esc(e.explanation)}`;
  const warning = e.warning ? ` **Its warning**: ${esc(e.warning)}` : '';
  const requirement = e.requirement ? ` **Requirement**: ${esc(e.requirement)}.` : '';
  return `${esc(e.source)}. **Claim**: ${esc(e.claim)}${explanation}${warning}${requirement}`;
}

/** An experiment's section of the report: the claim, the answer, what ran, its charts (Markdown lines) and tables. */
export function experimentSection(doc, s, chartLines) {
  const e = s.experiment;
  const out = [`## ${s.title}`, '', claimText(s), ''];
  const answer = seedAnswers(doc).find((a) => a.id === s.name);
  const control = answer?.control ? ` (the control: \`${answer.control}\`)` : '';
  if (answer) {
    const [first, ...more] = paragraphsUnder(answer.why);
    out.push(`**Answer: ${answer.answer}**${control} — ${first}`, '', ...more.flatMap((p) => [p, '']));
  }
  out.push(`Run alone with \`make bench SCENARIO=${s.name}\`.`, '', ...parameterTable(doc, s));
  out.push(...chartLines, ...publishedTable(doc, s), ...comparisons(doc, s));
  for (const k of e.show ?? []) out.push(...(SHOW[k]?.(doc, s) ?? []));
  return out;
}
