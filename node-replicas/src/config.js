// Configuration from the environment, checked once at start-up: a typo fails fast with a
// clear message instead of surfacing later as odd behaviour.
import os from 'node:os';

const DEFAULTS = {
  PORT: 3000,
  HOST: '0.0.0.0',
  PI_DEFAULT_SAMPLES: 1_000_000,
  PI_MAX_SAMPLES: 10_000_000,
  DELAY_MAX_MS: 5_000,
  DELAY_MS: 0,
  DELAY_RANDOM_MAX_MS: 0,
  SLOW_DELAY_MS: 0,
  // Longer than nginx's upstream keepalive_timeout (30 s in nginx/templates): the proxy closes
  // idle connections first, so it never reuses one Node has just closed (the keep-alive 502 race).
  KEEP_ALIVE_TIMEOUT_MS: 65_000,
  HEADERS_TIMEOUT_MS: 66_000,
  SHUTDOWN_DELAY_MS: 0,
  // nginx's client_max_body_size: any body nginx lets through is read and dropped before the
  // refusal, so nginx gets a clean answer (see src/body.js).
  BODY_DISCARD_MAX_BYTES: 1_048_576,
  SHUTDOWN_TIMEOUT_MS: 8_000,
};

export class ConfigError extends Error {}

function integer(env, name, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const raw = env[name];
  if (raw === undefined || raw === '') return DEFAULTS[name];
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
  }
  return Number(raw);
}

// The instance whose name ends in `-<SLOW_INSTANCE>` (e.g. `1` -> node-replicas-app-1) is made
// slow. Instance names come from INSTANCE_NAME, which the local runner sets per instance; under
// Docker every replica gets the same environment, so use DELAY_RANDOM_MAX_MS there instead.
function isSlow(slowInstance, instance) {
  if (!slowInstance) return false;
  return instance === slowInstance || instance.endsWith(`-${slowInstance}`);
}

export function loadConfig(env = process.env, random = Math.random) {
  const instance = env.INSTANCE_NAME || os.hostname();
  const config = {
    instance,
    port: integer(env, 'PORT', { max: 65_535 }),
    host: env.HOST || DEFAULTS.HOST,
    piDefaultSamples: integer(env, 'PI_DEFAULT_SAMPLES', { min: 1 }),
    piMaxSamples: integer(env, 'PI_MAX_SAMPLES', { min: 1, max: 1_000_000_000 }),
    delayMaxMs: integer(env, 'DELAY_MAX_MS', { max: 600_000 }),
    bodyDiscardMaxBytes: integer(env, 'BODY_DISCARD_MAX_BYTES', { max: 100 * 1_048_576 }),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', { min: 1 }),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', { min: 1 }),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', { max: 600_000 }),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', { min: 1, max: 600_000 }),
  };
  if (config.piDefaultSamples > config.piMaxSamples) {
    throw new ConfigError(`PI_DEFAULT_SAMPLES (${config.piDefaultSamples}) is above PI_MAX_SAMPLES (${config.piMaxSamples})`);
  }
  if (config.headersTimeoutMs <= config.keepAliveTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${config.headersTimeoutMs}) must be above KEEP_ALIVE_TIMEOUT_MS (${config.keepAliveTimeoutMs})`);
  }
  // The per-instance delay on GET /, chosen once: fixed part + a random part fixed for the
  // process's life (the 2025 experiment's uneven replicas) + the slow instance's extra.
  const randomMax = integer(env, 'DELAY_RANDOM_MAX_MS', { max: 600_000 });
  const slowDelayMs = integer(env, 'SLOW_DELAY_MS', { max: 600_000 });
  const slow = isSlow(env.SLOW_INSTANCE, instance) ? slowDelayMs : 0;
  config.homeDelayMs = integer(env, 'DELAY_MS', { max: 600_000 }) + Math.floor(random() * (randomMax + 1)) + slow;
  return config;
}
