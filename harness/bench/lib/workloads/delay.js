// Slow I/O: every request waits 50 ms on a timer, as on a slow service, and does no work.
export default {
  name: 'delay',
  order: 2,
  title: 'slow I/O (50 ms wait)',
  params: { ms: 50 },
  // Enough that the connections are not what bounds it: by Little's law a 50 ms wait caps n
  // connections at n / 0.05 s req/s (256 capped every strategy at 5,120, so all came out equal).
  connections: 2048,
  // The shortest time a request can take: what the connection cap is computed from (judge/bottleneck.js).
  minLatencyMs: 50,
  latencyRatePerCpu: 1000,
  // The default run asks it at the budgets above one CPU, and between the core strategies only: a
  // wait tests how many processes hold connections, not how they share a port (PM2, reusePort).
  defaultRun: 'larger budgets',
  defaultRunCoreOnly: true,
  check: (b) => b !== null && typeof b === 'object' && !Array.isArray(b),
  shape: 'a JSON object',
};
