// CPU-bound work: pi by Monte Carlo, the same xorshift32 loop in all three apps.
export default {
  name: 'pi',
  order: 1,
  title: 'CPU-bound (pi)',
  // About 1 ms of CPU per request in Node: the work, not the HTTP overhead, dominates.
  params: { samples: 100000 },
  connections: 32,
  latencyRatePerCpu: 200,
  defaultRun: 'every budget',
  check: (b) => b !== null && typeof b === 'object' && typeof b.pi === 'number' && b.pi > 2.5 && b.pi < 3.8,
  shape: 'a JSON object with pi between 2.5 and 3.8',
};
