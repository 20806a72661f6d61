// What an operator pays per million requests, from the measured cells, at capacity: CPU as the
// topology's CPU per request in its saturated windows (microseconds per request are core-seconds
// per million), memory as GiB held × the time a million requests take at the topology's capacity at
// the latency target. The low-rate CPU per request (at the block's fixed rate) only beside them,
// labelled. Money only where the reader gave prices: a price is the reader's, not a measurement.
import { fmt, table } from './format.js';
import { sideName } from './verdict-table.js';
import { lowerMedian } from '../judge/stats.js';
import { fill } from './template.js';

const MILLION = 1e6;

/**
 * The figures of one closed-loop cell, each from the fields it names: { coreSeconds
 * (cpuPerRequestUs.median), capacityRps (capacity.rps), memoryMiB (memoryMiB.median), processes
 * (rounds' processes), perProcessMiB, gibHours, money, lowRate: { rate, us } (paced) }, or null.
 */
export function costOf(cell, prices = null) {
  const finite = (x) => (Number.isFinite(x) ? x : null);
  const coreSeconds = finite(cell.cpuPerRequestUs?.median);
  const memoryMiB = finite(cell.memoryMiB?.median);
  const capacityRps = cell.capacity?.rps ?? null;
  if (coreSeconds === null && memoryMiB === null) return null;
  const processes = lowerMedian((cell.rounds ?? []).map((r) => r.processes));
  const gibHours = memoryMiB !== null && capacityRps > 0 ? ((memoryMiB / 1024) * (MILLION / capacityRps)) / 3600 : null;
  const money = prices && coreSeconds !== null && gibHours !== null
    ? (prices.vcpuHour ?? 0) * (coreSeconds / 3600) + (prices.gibHour ?? 0) * gibHours
    : null;
  const lowUs = finite(cell.paced?.cpuPerRequestUs?.median);
  const perProcessMiB = memoryMiB !== null && processes > 0 ? memoryMiB / processes : null;
  const lowRate = lowUs === null ? null : { rate: cell.paced.rate, us: lowUs };
  return { coreSeconds, capacityRps, memoryMiB, processes, perProcessMiB, gibHours, money, lowRate };
}

/** Prices as the CLI takes them: both optional, no default. null where neither was given. */
/** @param {{ priceVcpuHour?: number, priceGibHour?: number }} [options] */
export function parsePrices({ priceVcpuHour, priceGibHour } = {}) {
  if (priceVcpuHour === undefined && priceGibHour === undefined) return null;
  return { vcpuHour: priceVcpuHour ?? 0, gibHour: priceGibHour ?? 0 };
}

/** The doc with the reader's prices attached for the renderers; not enumerable, so never written to results.json. */
export function withPrices(doc, prices) {
  if (prices) Object.defineProperty(doc, 'prices', { value: prices, enumerable: false, configurable: true });
  return doc;
}

// No currency sign: the prices are the reader's, in whatever currency they were given.
const money = (x) => (x >= 0.01 ? fmt(x, 2) : fmt(x, 4));
const or = (x, text) => (x === null || x === undefined ? 'n/a' : text);

/** The main scenario's ok closed-loop cells, by workload, budget and topology. */
export function costCells(doc) {
  const order = Object.keys(doc.workloads ?? {});
  const budget = (c) => c.topology.budgetCpus ?? c.budgetCpus ?? 0;
  return doc.cells
    .filter((c) => c.scenario === 'verdicts' && c.kind === 'closed' && c.status === 'ok')
    .sort((a, b) => order.indexOf(a.workload) - order.indexOf(b.workload) || budget(a) - budget(b));
}

/** The cost table of the main scenario's closed-loop cells (Markdown), or null where there is none. */
function costTable(doc) {
  const prices = doc.prices ?? null;
  const cells = costCells(doc);
  if (!cells.length) return null;
  const head = [
    'workload',
    'topology',
    'CPUs',
    'capacity req/s',
    'core-seconds per 1M at capacity',
    'memory MiB, whole topology (processes)',
    'MiB per process',
    'GiB-hours per 1M at capacity',
    ...(prices ? ['cost per 1M at capacity (your currency)'] : []),
    'low rate: CPU per request',
  ];
  const rows = cells.flatMap((c) => {
    const k = costOf(c, prices);
    const t = c.topology;
    return k ? [[
      doc.workloads[c.workload]?.title ?? c.workload,
      `${sideName(t)}${t.viaNginx ? ' + nginx' : ''}`,
      t.budgetCpus ?? c.budgetCpus ?? '',
      or(k.capacityRps, fmt(k.capacityRps)),
      or(k.coreSeconds, fmt(k.coreSeconds, 1)),
      or(k.memoryMiB, `${fmt(k.memoryMiB, 1)} (${k.processes ?? '?'})`),
      or(k.perProcessMiB, fmt(k.perProcessMiB, 1)),
      or(k.gibHours, fmt(k.gibHours, 4)),
      ...(prices ? [k.money === null ? 'n/a' : money(k.money)] : []),
      k.lowRate ? `${fmt(k.lowRate.us, 1)} µs at ${fmt(k.lowRate.rate)} req/s` : 'not measured',
    ]] : [];
  });
  return table(head, rows);
}

/** One sentence on where the money column comes from, or how to get one. */
export function priceNote(doc) {
  const p = doc.prices;
  if (!p)
    return (
      'No price is assumed. To see money, give yours: ' +
      '`make report PRICE_VCPU_HOUR=0.04 PRICE_GIB_HOUR=0.005` renders this folder again with it.'
    );
  return (
    `Cost at the prices given for this render: ${money(p.vcpuHour)} per vCPU-hour and ${money(p.gibHour)} ` +
    "per GiB-hour (the reader's prices, not measured)."
  );
}

/** The report's cost section: what each column counts (template), the table, the prices. */
export function costSection(doc) {
  const costs = costTable(doc);
  return costs ? [...fill('report-cost'), '', priceNote(doc), '', costs, ''] : [];
}
