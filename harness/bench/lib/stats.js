// Small statistics over repeated measurements.

export function median(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** min, max and (max - min) / median: how far repeats disagree. */
export function spread(values) {
  const v = values.filter(Number.isFinite);
  if (v.length === 0) return { min: null, max: null, relative: null };
  const min = Math.min(...v);
  const max = Math.max(...v);
  const m = median(v);
  return { min, max, relative: m ? round((max - min) / m, 3) : null };
}

export function round(x, digits = 1) {
  if (!Number.isFinite(x)) return x ?? null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Median of each numeric field across repeat results (tool-normalised shape). */
export function summarise(repeats) {
  const pick = (f) => repeats.map(f);
  const rps = pick((r) => r.rps);
  return {
    rps: round(median(rps)),
    rpsSpread: spread(rps),
    latencyMs: {
      p50: round(median(pick((r) => r.latencyMs.p50)), 2),
      p99: round(median(pick((r) => r.latencyMs.p99)), 2),
      max: round(Math.max(...pick((r) => r.latencyMs.max).filter(Number.isFinite)), 2),
    },
    requests: repeats.reduce((s, r) => s + r.requests, 0),
    non2xx: repeats.reduce((s, r) => s + r.non2xx, 0),
    socketErrors: repeats.reduce((s, r) => s + r.socketErrors, 0),
  };
}
