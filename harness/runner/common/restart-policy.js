// Compose's `restart:` policy, decided the way Docker's restart manager decides it
// (moby restartmanager): `no`, `always`, `unless-stopped`, `on-failure[:max-retries]`.
// Between restarts of an instance that keeps dying the delay doubles from 100 ms up to 1 minute,
// and goes back to 100 ms once the instance had run for 10 s. Docker's numbers, not PM2's, since
// the runner stands in for Docker here.
export const BACKOFF = Object.freeze({ initialMs: 100, factor: 2, maxMs: 60_000, resetAfterMs: 10_000 });

const ACCEPTED = 'no, always, on-failure[:max-retries], unless-stopped';

/** 'on-failure:3' -> { name: 'on-failure', maxRetries: 3 }; throws one line for what compose refuses. */
export function parseRestartPolicy(raw, service = 'service') {
  if (raw === undefined || raw === null) return { name: 'no', maxRetries: 0 };
  const text = typeof raw === 'string' ? raw.trim() : undefined;
  const bad = () =>
    new Error(`${service}: restart: ${JSON.stringify(raw)} is not a restart policy compose accepts (${ACCEPTED})`);
  if (text === undefined) throw bad();
  const [name, max, ...rest] = text.split(':');
  if (rest.length) throw bad();
  if (max !== undefined) {
    if (name !== 'on-failure')
      throw new Error(`${service}: restart: "${text}": only on-failure takes a maximum retry count`);
    if (!/^\d+$/.test(max))
      throw new Error(`${service}: restart: "${text}": the maximum retry count must be a whole number`);
  }
  if (!['no', 'always', 'unless-stopped', 'on-failure'].includes(name)) throw bad();
  return { name, maxRetries: max === undefined ? 0 : Number(max) };
}

/** The exit code Docker reports: the process's own, or 128 + signal number when a signal killed it. */
export function exitCodeOf({ code, signal }, signalNumbers) {
  if (code !== null && code !== undefined) return code;
  return 128 + (signalNumbers[signal] ?? 0);
}

/**
 * Whether an instance that exited with `exitCode` comes back, having been restarted `restarts`
 * times already. An instance stopped on purpose (down, restart, reload) never reaches this.
 */
export function shouldRestart(policy, { exitCode, restarts }) {
  switch (policy.name) {
    case 'always':
    case 'unless-stopped':
      return true;
    case 'on-failure':
      return exitCode !== 0 && (policy.maxRetries === 0 || restarts < policy.maxRetries);
    default:
      return false;
  }
}

/** The delay before the next restart, from the previous one and how long the instance ran. */
export function nextDelayMs(previousMs, uptimeMs, b = BACKOFF) {
  if (!previousMs || uptimeMs >= b.resetAfterMs) return b.initialMs;
  return Math.min(b.maxMs, previousMs * b.factor);
}
