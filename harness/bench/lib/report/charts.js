// Vega-Lite charts built from results.json alone, rendered to SVG in Node with vega's headless View.
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { experimentsOf, publishedRows } from './experiments.js';
import { labelOf, LABEL_TEXT, budgetOf, budgetsOf, mainVerdicts, ruleOf } from './labels.js';
import { nameOf } from './leaf-text.js';
import { cpus, machineText } from './format.js';

// Only errors: vega-lite warns about faceted independent scales, which is what we want here.
const quiet = vega.logger(vega.Error);

export async function toSvg(spec) {
  const view = new vega.View(vega.parse(vl.compile(spec, { logger: quiet }).spec), {
    renderer: 'none',
    logLevel: vega.Error,
  });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

// Every chart's caption says when and where it was measured; axis labels are never cut.
const caption = (doc) =>
  `${doc.mode} run of ${doc.startedAt.slice(0, 10)} · ${machineText(doc.meta.machine)} · ${doc.meta.machine.os}`;
const base = (title, values, doc) => ({
  title: { text: title, subtitle: caption(doc), anchor: 'start' },
  data: { values },
  config: {
    font: 'sans-serif',
    view: { stroke: null },
    axis: { labelLimit: 0 },
    header: { labelLimit: 0 },
    legend: { labelLimit: 0 },
  },
});

const OUTCOME = ['the first side wins', 'the second side wins', 'equal', "can't tell", 'bounded', 'suspect'];
const OUTCOME_COLORS = { domain: OUTCOME, range: ['#2ca02c', '#d62728', '#7f7f7f', '#bcbd22', '#9467bd', '#ff7f0e'] };
const outcomeOf = (doc, v) => {
  if (v.suspect) return 'suspect';
  const l = labelOf(v, doc);
  if (l === 'wins') return v.winner === v.a ? OUTCOME[0] : OUTCOME[1];
  return LABEL_TEXT[l];
};

/** The file of a budget's verdict chart. */
export const verdictChartFile = (budget) => `verdicts-b${String(budget).replace('.', '_')}.svg`;

// Linear where every interval of a panel lies within ×0.5–×2 (ratios near 1 read best there), else log.
export const NEAR_ONE = [0.5, 2];
export const scaleTypeOf = (values) =>
  values.every((v) => v.lo >= NEAR_ONE[0] && v.hi <= NEAR_ONE[1]) ? 'linear' : 'log';
export const VERDICT_CHART_NOTE =
  "Each panel is one metric: a dot is a verdict's ratio (the first side ÷ the second), its line the 95% interval, " +
  'the dashed line parity, the grey band the "equal" zone; a panel\'s scale is linear where every interval lies ' +
  `within ×${NEAR_ONE[0]}–×${NEAR_ONE[1]}, logarithmic otherwise.`;

/** Markdown lines of a scenario's charts ({file: {title, scenario}}): each image, a verdict chart's note under it. */
export const chartLines = (charts, scenario) =>
  Object.entries(charts)
    .filter(([, c]) => c.scenario === scenario)
    .flatMap(([file, c]) => {
      const note = file.startsWith('verdicts-') ? [VERDICT_CHART_NOTE, ''] : [];
      return [`![${c.title.text}](${file})`, '', ...note];
    });

// One verdict as a point of the chart: its row names the workload and the two sides.
function verdictPoint(doc, v) {
  return {
    question:
      `${doc.workloads[v.workload]?.title ?? v.workload} · ` +
      `${nameOf(doc, v.a)} ÷ ${nameOf(doc, v.b)}`,
    metric: doc.metrics[v.metric]?.title ?? v.metric,
    ratio: v.ratio,
    lo: v.ci95[0],
    hi: v.ci95[1],
    label: LABEL_TEXT[labelOf(v, doc)],
    outcome: outcomeOf(doc, v),
  };
}

// One metric's panel: the equal band, parity, each interval and ratio; its own scale.
function metricPanel(doc, metric, values, first) {
  const mine = values.filter((v) => v.metric === metric);
  const { down, up } = ruleOf(doc);
  const x = { type: 'quantitative', scale: { type: scaleTypeOf(mine), zero: false }, title: `${metric} (×)` };
  const y = { field: 'question', type: 'nominal', title: null, sort: null, ...(first ? {} : { axis: null }) };
  const color = { field: 'outcome', type: 'nominal', scale: OUTCOME_COLORS };
  return {
    width: 170,
    transform: [{ filter: { field: 'metric', equal: metric } }],
    layer: [
      { mark: { type: 'rect', color: '#eee' }, encoding: { x: { datum: down, ...x }, x2: { datum: up } } },
      { mark: { type: 'rule', color: '#999', strokeDash: [4, 3] }, encoding: { x: { datum: 1, ...x } } },
      {
        mark: { type: 'rule' },
        encoding: {
          y,
          x: { field: 'lo', ...x },
          x2: { field: 'hi' },
          color: { ...color, title: null, legend: { orient: 'bottom' } },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 40 },
        encoding: {
          y,
          x: { field: 'ratio', ...x },
          color,
        },
      },
    ],
  };
}

/** The verdicts of one budget: a panel per metric side by side, a row per question, each panel its own scale. */
export function verdictSpec(doc, budget) {
  const values = mainVerdicts(doc)
    .filter((v) => budgetOf(v, doc) === budget && labelOf(v, doc) !== null && Array.isArray(v.ci95))
    .map((v) => verdictPoint(doc, v));
  const metrics = [...new Set(values.map((v) => v.metric))];
  return {
    ...base(`Verdicts at ${cpus(budget)}: ratio and 95% interval, a panel per metric`, values, doc),
    hconcat: metrics.map((m, i) => metricPanel(doc, m, values, i === 0)),
    resolve: { scale: { y: 'shared', x: 'independent' } },
  };
}

/** A figure of each closed-loop cell of a scenario: median bar, min–max over rounds; one panel per workload. */
export function cellSpec(doc, scenario, { title, pick, unit }) {
  const values = doc.cells
    .filter((c) => c.scenario === scenario && c.status === 'ok' && c.kind === 'closed')
    .map((c) => {
      const { median, min, max } = pick(c) ?? {};
      const workload = doc.workloads[c.workload]?.title ?? c.workload;
      return { topology: c.topology.label, runtime: c.topology.runtime, workload, median, min, max };
    })
    .filter((v) => Number.isFinite(v.median));
  return {
    ...base(title, values, doc),
    facet: { field: 'workload', type: 'nominal', title: null },
    columns: 2,
    resolve: { scale: { x: 'independent', y: 'independent' } },
    spec: {
      width: 240,
      encoding: { y: { field: 'topology', type: 'nominal', title: null, sort: null } },
      layer: [
        {
          mark: { type: 'bar', tooltip: true },
          encoding: {
            x: { field: 'median', type: 'quantitative', title: unit },
            color: { field: 'runtime', type: 'nominal', title: null, legend: { orient: 'bottom' } },
          },
        },
        { mark: { type: 'rule' }, encoding: { x: { field: 'min', type: 'quantitative' }, x2: { field: 'max' } } },
      ],
    },
  };
}

/** Highest sustained rate per topology, the closed-loop capacity beside it. */
export function openloopSpec(doc) {
  const values = doc.cells
    .filter((c) => c.kind === 'openloop' && c.status === 'ok')
    .flatMap((c) => [
      {
        topology: c.topology.label,
        what: c.suspect ? 'highest sustained fixed rate — suspect: above capacity' : 'highest sustained fixed rate',
        rate: c.maxRate,
      },
      { topology: c.topology.label, what: 'closed-loop capacity (probe)', rate: c.probeRps },
    ]);
  return {
    ...base('Open loop: highest fixed rate sustained (p99 < 500 ms, rate met, no failure)', values, doc),
    width: 420,
    encoding: {
      y: { field: 'topology', type: 'nominal', title: null, sort: null },
      yOffset: { field: 'what' },
      x: { field: 'rate', type: 'quantitative', title: 'req/s' },
      color: { field: 'what', type: 'nominal', title: null, legend: { orient: 'bottom' } },
    },
    mark: { type: 'bar', tooltip: true },
  };
}

/** An experiment's published figures beside ours, a panel per kind of figure; lines: ranges over rounds or runs. */
export function publishedSpec(doc, s) {
  const point = (r, source, figures) => {
    const [value, lo, hi] = figures.map((v) => (Number.isFinite(v) ? (r.pct ? 100 * v : v) : undefined));
    return { variant: r.label, figure: r.unit || r.what, source, value, lo, hi };
  };
  const values = publishedRows(doc, s)
    .filter((r) => typeof r.published === 'number' && Number.isFinite(r.ours))
    .flatMap((r) => [
      point(r, 'published', [r.published, r.publishedMin, r.publishedMax]),
      point(r, `ours (${doc.startedAt.slice(0, 10)})`, [r.ours, r.oursMin, r.oursMax]),
    ]);
  return {
    ...base(`Published beside ours: ${s.experiment.title}`, values, doc),
    facet: {
      row: {
        field: 'figure',
        type: 'nominal',
        title: null,
        header: { labelAngle: 0, labelAlign: 'left', labelAnchor: 'start', labelOrient: 'top' },
      },
    },
    resolve: { scale: { x: 'independent', y: 'independent' } },
    spec: {
      width: 420,
      encoding: {
        y: { field: 'variant', type: 'nominal', title: null, sort: null },
        yOffset: { field: 'source' },
        color: { field: 'source', type: 'nominal', title: null, legend: { orient: 'bottom' } },
      },
      layer: [
        {
          mark: { type: 'bar', tooltip: true },
          encoding: {
            x: {
              field: 'value',
              type: 'quantitative',
              stack: null,
              title: 'median; line: range over rounds (ours) or runs (published)',
            },
          },
        },
        {
          mark: { type: 'rule', color: '#333' },
          encoding: { x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } },
        },
        {
          mark: { type: 'text', align: 'left', dx: 3, dy: -4, fontSize: 10 },
          encoding: {
            x: { field: 'value', type: 'quantitative', stack: null },
            text: { field: 'value', type: 'quantitative', format: ',.0f' },
          },
        },
      ],
    },
  };
}

/** Response time against the order the answers came back, per variant (first round). */
export function timelineSpec(doc, s) {
  const values = doc.cells
    .filter((c) => c.scenario === s.name && c.status === 'ok' && c.rounds?.[0]?.timeline)
    .flatMap((c) =>
      c.rounds[0].timeline.map(([status, ms], i) => ({
        variant: c.topology.label,
        answer: i + 1,
        ms,
        failed: status < 200 || status >= 300,
      })),
    );
  return {
    ...base('Response time of each request, in the order the answers came back (first round)', values, doc),
    width: 460,
    height: 260,
    mark: { type: 'line', point: true, tooltip: true },
    encoding: {
      x: { field: 'answer', type: 'quantitative', title: 'answer' },
      y: { field: 'ms', type: 'quantitative', title: 'response time (ms)' },
      color: { field: 'variant', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 1 } },
    },
  };
}

// A scenario's charts of its cells, [file, title, pick, unit]: p99 and CPU per request at the fixed
// rate where it has one; CPU per request only there (at saturation it includes the queue's churn).
const OVER_ROUNDS = 'line: min–max over rounds';
const MEMORY = 'Memory of the whole topology (its own pages: anonymous + shared memory, MiB)';
function cellCharts(paced) {
  const p99 = paced ? 'p99 latency at a fixed rate per workload' : 'p99 latency';
  const cpu = 'CPU time per request at a fixed rate below capacity, whole topology';
  /** @type {[string, string, (c: any) => any, string][]} */
  const out = [
    ['throughput', `Throughput (median req/s; ${OVER_ROUNDS})`, (c) => c.rps, 'req/s'],
    ['p99', `${p99} (median ms; ${OVER_ROUNDS})`, (c) => (paced ? c.paced : c)?.latencyMs?.p99, 'ms'],
  ];
  if (paced) out.push(['cpu-per-request', `${cpu} (median µs; ${OVER_ROUNDS})`, (c) => c.paced?.cpuPerRequestUs, 'µs']);
  out.push(['memory', MEMORY, (c) => c.memoryMiB, 'MiB']);
  return out;
}

/** {file: {spec, scenario}} for every chart the results can fill (a spec without data is left out). */
export function charts(doc) {
  const out = {};
  const add = (file, scenario, spec) => {
    if (spec.data.values.length) out[file] = { spec, scenario };
  };
  const withVerdicts = doc.scenarios.find((s) => doc.verdicts.some((v) => s.cells.includes(v.cells?.[0])));
  for (const b of budgetsOf(doc)) add(verdictChartFile(b), withVerdicts?.name, verdictSpec(doc, b));
  for (const s of doc.scenarios.filter((x) => !x.experiment)) {
    if (!doc.cells.some((c) => c.scenario === s.name && c.kind === 'closed' && c.status === 'ok')) continue;
    const prefix = s.name === 'verdicts' ? '' : `${s.name}-`;
    const paced = doc.cells.some((c) => c.scenario === s.name && c.paced);
    for (const [file, title, pick, unit] of cellCharts(paced))
      add(`${prefix}${file}.svg`, s.name, cellSpec(doc, s.name, { title, pick, unit }));
  }
  add('openloop.svg', 'openloop', openloopSpec(doc));
  for (const s of experimentsOf(doc)) {
    add(`${s.name}.svg`, s.name, publishedSpec(doc, s));
    if (s.experiment.show?.includes('timeline')) add(`${s.name}-timeline.svg`, s.name, timelineSpec(doc, s));
  }
  return out;
}
