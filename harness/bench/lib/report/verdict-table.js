// The one-page verdict table: rows are workload × metric, columns the strategies asked at one CPU
// budget (cluster, PM2, replicas behind nginx, .NET ...; each header names the strategy and its
// baseline), with the baseline's own figure first. From results.json alone.
import { fmt, fmtX, fmtCi, esc, table, topologyOf as topoOf } from './format.js';
import { labelOf, LABEL_TEXT, budgetOf, groupOf, skippedOf, mainVerdicts } from './labels.js';

// A cell's figure of each metric, in words. CPU per request only as measured at a fixed rate below
// capacity (cell.paced), never the saturated figure.
const FIGURE = {
  throughput: (c) => `${fmt(c.rps?.median)} req/s`,
  capacity: (c) => `${fmt(c.capacity?.rps)} req/s`,
  p99: (c) => `${fmt((c.paced ?? c).latencyMs?.p99?.median, 1)} ms`,
  cpu: (c) => `${fmt(c.paced?.cpuPerRequestUs?.median, 0)} µs`,
  memory: (c) => `${fmt(c.memoryMiB?.median)} MiB`,
};
export const GROUP_TITLE = {
  cluster: 'cluster',
  replicas: 'replicas behind nginx',
  reuseport: 'reusePort',
  pm2: 'PM2',
};
/** "cluster", "cluster-vs-replicas": what a verdict's question is called in headers. */
export const strategyTitle = (v) => GROUP_TITLE[groupOf(v)] ?? v.column ?? groupOf(v);
/** "cluster: Express cluster of 2 ÷ Express 1 process": the strategy and the baseline it is judged against. */
const columnTitle = (doc, v) => `${strategyTitle(v)}: ${sideName(topoOf(doc, v.a))} ÷ ${sideName(topoOf(doc, v.b))}`;
// "p99 latency at 1,000 req/s" where the verdicts took it at a fixed rate.
const metricTitle = (doc, m, vs, cellById) => {
  const rate = vs.find((v) => v?.latencyAt === 'fixed rate')
    ? vs.map((v) => v && cellById.get(v.cells?.[1])?.paced?.rate).find(Number.isFinite)
    : null;
  return rate ? `${doc.metrics[m].title} at ${fmt(rate)} req/s` : doc.metrics[m].title;
};

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A topology's strategy in words: "cluster of 2", "2 replicas", "1 process"; one of a kind reads as one. */
export function strategyWords(t) {
  const n = t.processes ?? Math.max(t.workers ?? 1, t.instances ?? 1);
  const words = {
    'one process': '1 process',
    cluster: t.workers === 1 ? 'cluster of 1 worker' : `cluster of ${t.workers}`,
    replicas: count(t.instances, 'replica'),
    reuseport: count(n, 'reusePort process', 'reusePort processes'),
    pm2: n === 1 ? 'PM2, 1 process' : `PM2 cluster of ${n}`,
  };
  return words[t.strategy] ?? t.strategy;
}

/** Short names of a verdict's sides: "Express cluster of 2" vs "Express 1 process". */
export function sideName(t) {
  if (!t) return '?';
  const who = { 'node:http': 'node:http', express: 'Express', aspnet: '.NET' }[t.framework] ?? t.framework;
  return `${who} ${strategyWords(t)}`;
}

export function verdictCell(doc, v) {
  if (!v) return '—';
  const label = labelOf(v, doc);
  if (label === null) return 'not measured';
  const interval = `${fmtX(v.ratio)} (${fmtCi(v.ci95)})`;
  if (v.suspect) return `⚠ suspect ${interval}`;
  if (label === 'bounded') return `bounded (${esc(v.bound?.by ?? '?')}) ${interval}`;
  if (label === 'wins') return `**${esc(sideName(topoOf(doc, v.winner)))}** wins ${interval}`;
  return `${LABEL_TEXT[label]} ${interval}`;
}

/** Markdown lines of the verdict table of one scenario's verdicts at one budget. */
export function verdictTable(doc, { scenario, budget }) {
  // A strategy this machine could not run gets no column: the guide says once why.
  const verdicts = mainVerdicts(doc).filter(
    (v) =>
      budgetOf(v, doc) === budget &&
      !skippedOf(v, doc) &&
      doc.cells.some((c) => c.scenario === scenario && v.cells?.includes(c.id)),
  );
  if (verdicts.length === 0) return [];
  const columns = [...new Map(verdicts.map((v) => [v.comparison, columnTitle(doc, v)])).entries()];
  const workloads = [...new Set(verdicts.map((v) => v.workload))];
  const metrics = Object.keys(doc.metrics);
  const cellById = new Map(doc.cells.map((c) => [c.id, c]));
  const rows = [];
  for (const w of workloads) {
    for (const m of metrics) {
      const vs = columns.map(([comparison]) =>
        verdicts.find((v) => v.workload === w && v.metric === m && v.comparison === comparison),
      );
      if (vs.every((v) => !v)) continue;
      // The single-process figure this row compares against (Express, direct, where measured).
      const bases = vs.map((v) => v && cellById.get(v.cells?.[1])).filter((c) => c?.status === 'ok');
      const baseline = bases.find((c) => c.topology.strategy === 'one process' && !c.topology.viaNginx) ?? bases[0];
      const base = baseline
        ? `${FIGURE[m](baseline)} (${esc(sideName(baseline.topology))}${baseline.topology.viaNginx ? ' + nginx' : ''})`
        : 'n/a';
      rows.push([
        m === metrics[0] ? `**${esc(doc.workloads[w]?.title ?? w)}**` : '',
        metricTitle(doc, m, vs, cellById),
        base,
        ...vs.map((v) => verdictCell(doc, v)),
      ]);
    }
  }
  return [table(['workload', 'metric', 'one process (the baseline)', ...columns.map(([, title]) => title)], rows)];
}
