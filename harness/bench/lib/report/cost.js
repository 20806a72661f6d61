// What an operator pays per million requests, from the measured cells: CPU as core-seconds (the
// CPU per request at a fixed rate below capacity — the only CPU-per-request figure shown), memory
// as GiB held × the time a million requests take at the topology's measured capacity. Money only
// where the reader gave prices: a price is the reader's, not a measurement.
import { fmt } from './format.js';
import { sideName } from './verdict-table.js';
import { isControlTopology } from './labels.js';

const MILLION = 1e6;

/** Core-seconds, GiB, GiB-hours (and money) per million requests of one closed-loop cell, or null. */
export function costOf(cell, prices = null) {
  const cpuUs = cell.paced?.cpuPerRequestUs?.median;
  const mib = cell.memoryMiB?.median;
  const rps = cell.rps?.median;
  if (!Number.isFinite(cpuUs) && !Number.isFinite(mib)) return null;
  // µs per request × 1e6 requests = core-seconds per million: the same number.
  const coreSeconds = Number.isFinite(cpuUs) ? cpuUs : null;
  const gib = Number.isFinite(mib) ? mib / 1024 : null;
  const gibHours = gib !== null && rps > 0 ? (gib * MILLION) / rps / 3600 : null;
  const money = prices && coreSeconds !== null && gibHours !== null
    ? (prices.vcpuHour ?? 0) * (coreSeconds / 3600) + (prices.gibHour ?? 0) * gibHours
    : null;
  return { coreSeconds, gib, gibHours, money, perInstanceGib: gib !== null ? gib / (cell.topology.processes || 1) : null };
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

/** Markdown lines: the cost table of the main scenario's closed-loop cells, one block per workload. */
export function costTable(doc, { scenario = 'verdicts' } = {}) {
  const prices = doc.prices ?? null;
  const cells = doc.cells.filter((c) => c.scenario === scenario && c.kind === 'closed' && c.status === 'ok');
  if (!cells.length) return [];
  const head = ['workload', 'topology', 'CPU budget', 'core-seconds per 1M requests', 'memory GiB (per process)', 'GiB-hours per 1M requests at capacity', ...(prices ? ['cost per 1M requests (your currency)'] : [])];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const c of cells) {
    const k = costOf(c, prices);
    if (!k) continue;
    const t = c.topology;
    lines.push(`| ${[doc.workloads[c.workload]?.title ?? c.workload, `${sideName(t)}${t.viaNginx ? ' + nginx' : ''}${isControlTopology(doc, t.id, t.budgetCpus ?? c.budgetCpus) ? ' (control)' : ''}`, t.budgetCpus ?? c.budgetCpus ?? '', k.coreSeconds === null ? 'not measured' : fmt(k.coreSeconds, 0),
      k.gib === null ? 'n/a' : `${fmt(k.gib, 3)} (${fmt(k.perInstanceGib, 3)})`, k.gibHours === null ? 'n/a' : fmt(k.gibHours, 4), ...(prices ? [k.money === null ? 'n/a' : money(k.money)] : [])].join(' | ')} |`);
  }
  return lines;
}

/** One sentence on where the money column comes from, or how to get one. */
export function priceNote(doc) {
  const p = doc.prices;
  if (!p) return 'No price is assumed. To see money, give yours: `make bench PRICE_VCPU_HOUR=0.04 PRICE_GIB_HOUR=0.005` (or add `--price-vcpu-hour` and `--price-gib-hour` to the re-render below).';
  return `Cost at the prices given for this render: ${money(p.vcpuHour)} per vCPU-hour and ${money(p.gibHour)} per GiB-hour (the reader's prices, not measured).`;
}
