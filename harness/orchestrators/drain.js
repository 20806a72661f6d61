// The samples' one drain contract (README.md, "One drain contract"): after SIGTERM the app serves
// on for the drain delay, not ready, then stops accepting; the drain timeout bounds the whole
// drain, counted from the signal with the delay inside it. The platform's grace (compose's
// stop_grace_period; Kubernetes' terminationGracePeriodSeconds, the preStop pause inside it) must
// outlast the timeout plus any kill margin of the app's own (node-cluster's primary).
// Each sample's variables: `app.drain` in samples.js, { delay, timeout: { env, unit }, marginMs }.

function read(part, valueOf) {
  const raw = part ? valueOf(part.env) : undefined;
  if (raw === undefined || raw === '') return undefined;
  const ms = Number(raw) * (part.unit === 's' ? 1000 : 1);
  return { raw, ms, text: `${part.env}=${raw}`, unit: part.unit, bad: !(Number.isFinite(ms) && ms >= 0) };
}

/**
 * The app's drain as `valueOf(name)` (an env lookup) gives it: { delayMs, timeoutMs, boundMs (the
 * timeout + the app's kill margin), delayText and parts (what was read, for messages) }, or { error }.
 * @param {{ delay?: { env: string, unit: string }, timeout: { env: string, unit: string }, marginMs?: number }} drain
 * @param {(name: string) => string | undefined} valueOf
 */
export function drainOf(drain, valueOf) {
  const timeout = read(drain.timeout, valueOf);
  const delay = read(drain.delay, valueOf);
  if (!timeout) return { error: `${drain.timeout.env} is not set` };
  const bad = [timeout, delay].find((p) => p?.bad);
  if (bad) return { error: `${bad.text} is not a whole number of ${bad.unit}` };
  const marginMs = drain.marginMs ?? 0;
  return {
    delayMs: delay?.ms ?? 0,
    timeoutMs: timeout.ms,
    boundMs: timeout.ms + marginMs,
    delayText: delay?.text ?? `${drain.delay?.env ?? 'no delay'} unset (0)`,
    parts: [timeout.text, ...(marginMs ? [`${marginMs} ms margin`] : [])],
  };
}

/**
 * What is wrong with a drain against the grace around it (ms): the timeout must outlast the
 * delay (`about: 'delay'`), and `graceMs` must outlast `beforeMs` (Kubernetes' preStop pause) +
 * the timeout + the app's margin (`about: 'grace'`).
 * @returns {{ about: 'delay' | 'grace', message: string }[]}
 */
export function drainOrder(drain, graceMs, beforeMs = 0) {
  /** @type {{ about: 'delay' | 'grace', message: string }[]} */
  const out = [];
  if (drain.delayMs >= drain.timeoutMs) {
    const message = `${drain.delayText} is not below ${drain.parts[0]}: the timeout bounds the whole drain, `
      + 'the delay included';
    out.push({ about: 'delay', message });
  }
  if (graceMs <= beforeMs + drain.boundMs) {
    const before = beforeMs ? `the preStop pause (${beforeMs / 1000} s) + ` : '';
    const message = `${graceMs / 1000} s does not cover ${before}the app's drain (${drain.parts.join(' + ')})`;
    out.push({ about: 'grace', message });
  }
  return out;
}
