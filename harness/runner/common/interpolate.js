// Compose-file variable interpolation: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
// ${VAR:?error}, ${VAR?error}, ${VAR:+alt}, ${VAR+alt}, and $$ for a literal $.
const PATTERN =
  /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export function interpolateString(text, vars) {
  return text.replace(PATTERN, (whole, dollar, braced, op, arg = '', bare) => {
    if (dollar) return '$';
    const name = braced ?? bare;
    const value = vars[name];
    const set = value !== undefined;
    const nonEmpty = set && value !== '';
    switch (op) {
      case ':-': return nonEmpty ? value : interpolateString(arg, vars);
      case '-': return set ? value : interpolateString(arg, vars);
      case ':?': if (!nonEmpty) throw new Error(`${name} must be set: ${arg || 'required variable'}`); return value;
      case '?': if (!set) throw new Error(`${name} must be set: ${arg || 'required variable'}`); return value;
      case ':+': return nonEmpty ? interpolateString(arg, vars) : '';
      case '+': return set ? interpolateString(arg, vars) : '';
      default: return value ?? '';
    }
  });
}

// Interpolates every string value (not keys) of a parsed compose document.
export function interpolateDeep(node, vars) {
  if (typeof node === 'string') return interpolateString(node, vars);
  if (Array.isArray(node)) return node.map((item) => interpolateDeep(item, vars));
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateDeep(v, vars)]));
  }
  return node;
}
