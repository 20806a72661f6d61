// Strict query-string parsing: every parameter must be known, given at most once, non-empty and a
// whole number within bounds. Anything else is the client's mistake (400), never a 500.

export class BadRequest extends Error {}

// Echo at most this much of a bad value back, so an error never reflects a huge input.
const ECHO_MAX = 40;
const echo = (value) => (value.length > ECHO_MAX ? `${value.slice(0, ECHO_MAX)}...` : value);

// spec: { name: { min, max, default } }. Returns { name: number }; throws BadRequest.
export function parseQuery(search, spec) {
  const params = new URLSearchParams(search);
  for (const name of new Set(params.keys())) {
    if (!Object.hasOwn(spec, name)) {
      const known = Object.keys(spec);
      throw new BadRequest(`unknown query parameter '${echo(name)}'${known.length ? `; expected ${known.join(', ')}` : '; this path takes none'}`);
    }
  }
  const values = {};
  for (const [name, { min, max, default: fallback }] of Object.entries(spec)) {
    const all = params.getAll(name);
    if (all.length > 1) throw new BadRequest(`query parameter '${name}' given ${all.length} times; give it once`);
    if (all.length === 0) {
      values[name] = fallback;
      continue;
    }
    const raw = all[0];
    if (raw === '') throw new BadRequest(`query parameter '${name}' is empty; expected a whole number from ${min} to ${max}`);
    // Digits only: no sign, no exponent, no decimals, no spaces. The length check keeps
    // Number() away from absurdly long digit strings.
    if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new BadRequest(`query parameter '${name}' must be a whole number from ${min} to ${max} (got '${echo(raw)}')`);
    }
    values[name] = Number(raw);
  }
  return values;
}
