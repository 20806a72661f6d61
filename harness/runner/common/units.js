// Compose's duration ("1m30s", "500ms", "10s") and byte-size ("256M", "1g", "512mb") notations.
const DURATION_UNITS = { us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

export function durationMs(value, fallbackMs) {
  if (value === undefined || value === null || value === '') return fallbackMs;
  if (typeof value === 'number') return value * 1000;
  const parts = [...String(value).matchAll(/(\d+(?:\.\d+)?)(us|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== String(value).trim()) {
    throw new Error(`invalid duration "${value}" (expected e.g. 10s, 1m30s, 500ms)`);
  }
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * DURATION_UNITS[unit], 0);
}

export function sizeBytes(value) {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)\s*([bkmg])?b?$/i.exec(String(value).trim());
  if (!match) throw new Error(`invalid memory size "${value}" (expected e.g. 256M, 1G)`);
  return Math.round(Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]);
}
