// The report's section on the samples' own /metrics beside the bench's probes (run/app-metrics.js
// reads them into each cell's `appMetrics`): both answers per cell, and where they disagree.

// Beyond these the two readings disagree: spreads more than 20% apart; a busiest loop and the
// busiest instance's CPU more than 0.2 of a CPU apart.
const SPREAD_GAP = 0.2;
const LOOP_GAP = 0.2;

/** Where the app's metrics and the bench's probes disagree on a cell: [{ what, app, probe }]. */
export function disagreements(m) {
  if (!m) return [];
  const out = [];
  const [s, cs, l, lc] = [m.spread.median, m.cpuSpread.median, m.busiestLoop.median, m.busiestCpu.median];
  if (Number.isFinite(s) && Number.isFinite(cs) && Math.abs(s - cs) / cs > SPREAD_GAP) {
    out.push({ what: 'spread: requests (metrics) against CPU time (cgroups)', app: s, probe: cs });
  }
  if (Number.isFinite(l) && Number.isFinite(lc) && Math.abs(l - lc) > LOOP_GAP) {
    out.push({ what: 'busiest: event-loop utilization (metrics) against CPU share (cgroups)', app: l, probe: lc });
  }
  return out;
}

/**
 * The report's section (sections.js): per cell read, both answers and the probes beside them, and
 * where they disagree. Nothing where no cell has a reading (the Docker engine, a run before them).
 */
export function appMetricsSection(doc, where) {
  const cells = (doc.cells ?? []).filter((c) => c.status === 'ok' && c.appMetrics);
  if (where !== 'report' || !cells.length) return [];
  const f = (s) => (Number.isFinite(s?.median)
    ? `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})` : '—');
  const rows = cells.map((c) => {
    const m = c.appMetrics;
    const gaps = disagreements(m).map((d) => `${d.what}: ${d.app.toFixed(2)} against ${d.probe.toFixed(2)}`);
    const cols = [`\`${c.id}\``, m.processes, f(m.spread), f(m.cpuSpread), f(m.busiestLoop), f(m.busiestCpu)];
    return `| ${[...cols, gaps.join('; ') || 'agree'].join(' | ')} |`;
  });
  return [
    '## The samples\' own metrics beside the bench\'s probes',
    '',
    'Each saturated window, read from the apps\' `/metrics` (`METRICS_PORT`) before and after it: the spread of '
      + 'requests over the serving processes (the busiest one\'s over the mean; 1 is even) and the busiest event loop '
      + '(the share of the window it ran code). Beside them, the bench\'s probes: the spread of CPU time over the '
      + 'instances, and the busiest instance\'s share of one CPU (one process per instance only). Medians over '
      + `the rounds (min–max). They disagree beyond ${SPREAD_GAP * 100}% of a spread or ${LOOP_GAP} of a loop.`,
    '',
    '| cell | processes | spread (metrics) | spread of CPU (cgroups) | busiest loop (metrics) '
      + '| busiest CPU share (cgroups) | where they disagree |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ];
}
