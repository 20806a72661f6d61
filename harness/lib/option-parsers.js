// Parsers of command-line values for commander, one set for the harness's commands: a value that
// won't do throws InvalidArgumentError, which commander prints as one line before the command exits.
import { InvalidArgumentError } from 'commander';

/** A number above 0 (`integer`: a whole one; at most `max`), named in the error by `name`. */
export const positive =
  (name, { integer = false, max = Infinity } = {}) =>
  (v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n > max || (integer && !Number.isInteger(n)))
      throw new InvalidArgumentError(
        `${name} must be a positive ${integer ? 'whole ' : ''}number${max < Infinity ? ` of at most ${max}` : ''}, ` +
          `got '${v}'`,
      );
    return n;
  };

/** NAME=value,… as { NAME: value, … } (a value may hold '='). */
export const envList = (v) =>
  Object.fromEntries(
    v.split(',').filter(Boolean).map((kv) => {
      const at = kv.indexOf('=');
      if (at < 1) throw new InvalidArgumentError(`--env takes NAME=value,…; got "${kv}"`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
