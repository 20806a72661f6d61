// Light JSON: a small JSON object and next to no work, so what a request costs is the HTTP stack's
// and the strategy's overhead.
export default {
  name: 'light',
  order: 0,
  title: 'light JSON',
  params: {},
  connections: 64,
  // p99 is compared at this rate per CPU of the budget (or latencyLoad of the slowest side's
  // capacity, if less). 2,000 was tried: the p99 intervals stayed ±45–69% within a run (a slice's
  // p99 is set by the machine's few-millisecond stalls either way), and CPU per request came out
  // ×0.78 and ×0.90 for .NET in two runs (default runs, 2026-11-25).
  latencyRatePerCpu: 1000,
  // The default run asks it at every budget, where the per-request overhead decides.
  defaultRun: 'every budget',
  check: (b) => b !== null && typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length > 0,
  shape: 'a non-empty JSON object',
};
