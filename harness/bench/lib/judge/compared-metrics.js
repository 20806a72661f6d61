// What a verdict can compare, and which way is better.
export const METRICS = {
  throughput: { field: 'rps', better: 'higher', unit: 'req/s', title: 'throughput' },
  capacity: { field: 'capacity', better: 'higher', unit: 'req/s', title: 'capacity at the latency target' },
  p99: { field: 'p99', better: 'lower', unit: 'ms', title: 'p99 latency' },
  cpu: { field: 'cpuPerRequestUs', better: 'lower', unit: 'µs', title: 'CPU per request' },
  memory: { field: 'memoryMiB', better: 'lower', unit: 'MiB', title: 'memory' },
};

// Experiments also compare the slowest response (the Mazira article's figure).
export const EXTRA_METRICS = { max: { field: 'max', better: 'lower', unit: 'ms', title: 'slowest response' } };
