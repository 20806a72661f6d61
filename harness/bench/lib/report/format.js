// Number formatting for the report and the guide: a missing number prints as "n/a", never as NaN.
export function fmt(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function ratio(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null;
}
