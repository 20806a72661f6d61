// Everything the benchmark has started and must stop, even on Ctrl-C or a fatal error.
const active = new Set();

export function track(stop) {
  active.add(stop);
  return () => active.delete(stop);
}

export async function stopAll() {
  const stops = [...active];
  active.clear();
  await Promise.allSettled(stops.map((stop) => stop()));
}
