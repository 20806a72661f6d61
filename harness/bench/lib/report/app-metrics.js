// The report's section on the samples' own /metrics beside the bench's probes (run/app-metrics.js
// reads them into each cell's `appMetrics`): both answers per cell, and where they disagree.
import { table } from './format.js';
import { fill, inline } from './template.js';

// Beyond these the two readings disagree: spreads more than 20% apart; a busiest loop and the
// busiest instance's use of its CPU allowance (its quota, at most one CPU: a loop runs on one)
// more than 0.2 apart.
const SPREAD_GAP = 0.2;
const LOOP_GAP = 0.2;

/** The busiest instance's CPU (a share of one CPU) as a share of what it may use: its quota, at most one CPU. */
export const ofAllowance = (share, cpusPerInstance) =>
  (Number.isFinite(share) ? share / Math.min(1, cpusPerInstance || 1) : null);

/**
 * Where the app's metrics and the bench's probes disagree on a cell: [{ what, app, probe }].
 * @param {any} m the cell's appMetrics @param {number} [cpusPerInstance] its topology's quota per instance
 */
export function disagreements(m, cpusPerInstance) {
  const out = [];
  const lc = ofAllowance(m.busiestCpu.median, cpusPerInstance);
  const [s, cs, l] = [m.spread.median, m.cpuSpread.median, m.busiestLoop.median];
  if (Number.isFinite(s) && Number.isFinite(cs) && Math.abs(s - cs) / cs > SPREAD_GAP) {
    out.push({ what: 'spread: requests (metrics) against CPU time (cgroups)', app: s, probe: cs });
  }
  if (Number.isFinite(l) && Number.isFinite(lc) && Math.abs(l - lc) > LOOP_GAP) {
    out.push({ what: 'busiest: event-loop utilization (metrics) against CPU use (cgroups)', app: l, probe: lc });
  }
  return out;
}

const TITLE = '## The samples\' own metrics beside the bench\'s probes';

/**
 * The report's section (markdown.js): per cell read, both answers and the probes beside them, and
 * where they disagree. On Docker with no reading, why; nothing for a run before them.
 */
export function appMetricsSection(doc, where) {
  const cells = (doc.cells ?? []).filter((c) => c.status === 'ok' && c.appMetrics);
  if (where !== 'report') return [];
  if (!cells.length) {
    return doc.protocol?.engine?.name === 'docker' ? [TITLE, '', inline('report-app-metrics-docker'), ''] : [];
  }
  const f = (s) => (Number.isFinite(s?.median)
    ? `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})` : '—');
  const rows = cells.map((c) => {
    const m = c.appMetrics;
    const quota = c.topology?.cpusPerInstance;
    const gaps = disagreements(m, quota).map((d) => `${d.what}: ${d.app.toFixed(2)} against ${d.probe.toFixed(2)}`);
    const used = Object.fromEntries(['median', 'min', 'max'].map((k) => [k, ofAllowance(m.busiestCpu?.[k], quota)]));
    return [`\`${c.id}\``, m.processes, f(m.spread), f(m.cpuSpread), f(m.busiestLoop), f(used),
      gaps.join('; ') || 'agree'];
  });
  return [
    TITLE,
    '',
    ...fill('report-app-metrics', { spread: SPREAD_GAP * 100, loop: LOOP_GAP }),
    '',
    table(['cell', 'processes', 'spread (metrics)', 'spread of CPU (cgroups)', 'busiest loop (metrics)',
      'busiest CPU use (cgroups)', 'where they disagree'], rows),
    '',
  ];
}
