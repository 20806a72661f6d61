// The four workloads, as each sample spells them, with the check a response must pass
// before anything is timed (status 200, JSON, body shape).

const isObj = (b) => b !== null && typeof b === 'object' && !Array.isArray(b);
const hasPi = (b) => isObj(b) && typeof b.pi === 'number' && b.pi > 2.5 && b.pi < 3.8;
const listIn = (b) => (Array.isArray(b) ? b : isObj(b) && (b.items ?? b.products ?? b.data));

export const WORKLOADS = {
  light: {
    title: 'light JSON',
    paths: { 'node-replicas': '/', 'node-cluster': '/', 'dotnet-api': '/api' },
    check: (b) => isObj(b) && Object.keys(b).length > 0,
    shape: 'a non-empty JSON object',
  },
  pi: {
    title: 'CPU-bound pi',
    // The same Monte Carlo estimate in all three samples, sized so one request costs a few ms
    // of CPU: the server, not the generator, saturates.
    paths: {
      'node-replicas': '/pi?samples=50000',
      'node-cluster': '/pi?samples=50000',
      'dotnet-api': '/pi?samples=50000',
    },
    check: hasPi,
    shape: 'a JSON object with pi between 2.5 and 3.8',
  },
  delay: {
    title: 'slow I/O (50 ms wait)',
    paths: { 'node-replicas': '/delay?ms=50', 'node-cluster': '/delay?ms=50', 'dotnet-api': '/delay?ms=50' },
    check: isObj,
    shape: 'a JSON object',
  },
  db: {
    title: 'database read',
    paths: { 'node-cluster': '/api/items', 'dotnet-api': '/products' },
    check: (b) => Array.isArray(listIn(b)) && listIn(b).length > 0,
    shape: 'a non-empty JSON list (or {items|products|data: [...]})',
  },
};

/** The path for a workload on a sample, or null when that sample doesn't serve it. */
export function pathFor(workload, sample, override) {
  if (override) return override;
  const w = WORKLOADS[workload];
  if (!w) throw new Error(`unknown workload "${workload}"`);
  return w.paths[sample] ?? null;
}
