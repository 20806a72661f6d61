// Vega-Lite specs built from results, rendered to SVG in Node with vega's headless View.
import * as vega from 'vega';
import * as vl from 'vega-lite';

// Only errors: vega-lite warns about faceted independent scales, which is what we want here.
const quiet = vega.logger(vega.Error);

export async function toSvg(spec) {
  const view = new vega.View(vega.parse(vl.compile(spec, { logger: quiet }).spec), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const base = (title, values) => ({ title, data: { values }, config: { font: 'sans-serif', view: { stroke: null }, axis: { labelLimit: 320 } } });

function facetedBars({ title, values, x, y, yTitle, color, facet, columns = 2, width = 260 }) {
  return {
    ...base(title, values),
    facet: { field: facet, type: 'nominal', title: null },
    columns,
    resolve: { scale: { y: 'independent', x: 'independent' } },
    spec: {
      width,
      layer: [
        { mark: { type: 'bar', tooltip: true }, encoding: {
          y: { field: x, type: 'nominal', title: null, sort: null },
          x: { field: y, type: 'quantitative', title: yTitle },
          color: { field: color, type: 'nominal', title: null, legend: { orient: 'bottom', columns: 3 } },
        } },
        { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: {
          y: { field: x, type: 'nominal', sort: null },
          x: { field: y, type: 'quantitative' },
          text: { field: y, type: 'quantitative', format: ',.0f' },
        } },
      ],
    },
  };
}

function bars({ title, values, x, y, yTitle, color, width = 420, format = ',.0f' }) {
  return {
    ...base(title, values),
    width,
    layer: [
      { mark: { type: 'bar', tooltip: true }, encoding: {
        y: { field: x, type: 'nominal', title: null, sort: null },
        x: { field: y, type: 'quantitative', title: yTitle },
        color: color ? { field: color, type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2 } } : { value: '#4c78a8' },
      } },
      { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: {
        y: { field: x, type: 'nominal', sort: null },
        x: { field: y, type: 'quantitative' },
        text: { field: y, type: 'quantitative', format },
      } },
    ],
  };
}

const ok = (results, scenario, kind) => results.filter((r) => r.scenario === scenario && r.status === 'ok' && (!kind || r.kind === kind));

/** {file: spec} for every chart the results can fill. */
export function chartSpecs(results) {
  const specs = {};
  const matrix = ok(results, 'matrix', 'closed');
  if (matrix.length) {
    const values = matrix.map((r) => ({ topology: r.topology.label, family: r.topology.family, workload: r.workload, rps: r.rps, p99: r.latencyMs.p99 }));
    specs['matrix-throughput.svg'] = facetedBars({ title: 'Throughput by workload (median req/s, no CPU quota)', values, x: 'topology', y: 'rps', yTitle: 'req/s', color: 'family', facet: 'workload' });
    specs['matrix-p99.svg'] = facetedBars({ title: 'p99 latency by workload (ms, lower is better)', values, x: 'topology', y: 'p99', yTitle: 'p99 ms', color: 'family', facet: 'workload' });
  }
  const budget = ok(results, 'cpu-budget', 'closed');
  if (budget.length) {
    const values = budget.map((r) => ({ topology: r.topology.label, family: r.topology.family, workload: r.workload, rps: r.rps }));
    specs['cpu-budget.svg'] = facetedBars({ title: 'One CPU of quota split different ways (median req/s)', values, x: 'topology', y: 'rps', yTitle: 'req/s', color: 'family', facet: 'workload', columns: 1, width: 420 });
  }
  const open = ok(results, 'openloop', 'openloop');
  if (open.length) {
    specs['openloop.svg'] = bars({ title: 'Highest fixed rate with p99 < 500 ms (pi)', values: open.map((r) => ({ topology: r.topology.label, family: r.topology.family, rate: r.maxRate })), x: 'topology', y: 'rate', yTitle: 'req/s sustained', color: 'family' });
  }
  const fault = ok(results, 'fault-drill', 'fault');
  if (fault.length) {
    specs['fault-drill.svg'] = bars({ title: 'Failed requests while instances/workers are killed (%)', values: fault.map((r) => ({ topology: r.topology.label, family: r.topology.family, failedPct: r.failedPct })), x: 'topology', y: 'failedPct', yTitle: '% of requests failed', color: 'family', format: '.2f' });
  }
  return specs;
}

/** Ours beside the published figure, for an experiment with published numbers. */
export function experimentSpec(title, rows) {
  const values = rows.flatMap((r) => [
    { variant: r.variant, source: 'ours (this machine)', rps: r.ours },
    ...(r.published === null || r.published === undefined ? [] : [{ variant: r.variant, source: 'published', rps: r.published }]),
  ]).filter((v) => Number.isFinite(v.rps));
  return {
    ...base(title, values),
    width: 420,
    encoding: {
      y: { field: 'variant', type: 'nominal', title: null, sort: null },
      yOffset: { field: 'source' },
      x: { field: 'rps', type: 'quantitative', title: 'req/s' },
      color: { field: 'source', type: 'nominal', title: null, legend: { orient: 'bottom' } },
    },
    layer: [
      { mark: { type: 'bar', tooltip: true } },
      { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: { text: { field: 'rps', type: 'quantitative', format: ',.0f' } } },
    ],
  };
}
