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
  // Longer than nginx's upstream keepalive_timeout (10 s in nginx/templates): the proxy closes
  // idle connections first, so it never reuses one Node has just closed (the keep-alive 502 race).
  KEEP_ALIVE_TIMEOUT_MS: 65_000,
  HEADERS_TIMEOUT_MS: 66_000,
  DRAIN_DELAY_MS: 0,
  // nginx's client_max_body_size: any body nginx lets through is read and dropped before the
  // refusal, so nginx gets a clean answer (see src/body.js).
  BODY_DISCARD_MAX_BYTES: 1_048_576,
  DRAIN_TIMEOUT_MS: 8_000,
  // Unset: no metrics server. 0: a free port (tests). compose.yaml sets 9464.
  METRICS_PORT: null,
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

// DELAY_CHOICES_MS="0,500,1000" draws one of the values per instance (the 2025 experiment's
// replicas each drew 0, 500, 1000, 1500 or 2000 ms at start). With DELAY_SEED the draw depends only
// on the seed and the instance name, so a run can be repeated and its draw recorded.
function choices(env) {
  const raw = env.DELAY_CHOICES_MS;
  if (raw === undefined || raw === '') return null;
  const list = raw.split(',').map((v) => v.trim());
  if (!list.every((v) => /^\d+$/.test(v) && Number(v) <= 600_000)) {
    throw new ConfigError(`DELAY_CHOICES_MS must be a comma-separated list of whole milliseconds up to 600000 (got '${raw}')`);
  }
  return list.map(Number);
}

// FNV-1a over "<seed>/<instance>", mixed by murmur3's finaliser (names differ only in their last
// characters), as a fraction in [0, 1).
function seeded(seed, instance) {
  let h = 0x811c9dc5;
  for (const ch of `${seed}/${instance}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

export function loadConfig(env = process.env, random = Math.random) {
  const instance = env.INSTANCE_NAME || os.hostname();
  const config = {
    instance,
    port: integer(env, 'PORT', { max: 65_535 }),
    metricsPort: integer(env, 'METRICS_PORT', { max: 65_535 }),
    host: env.HOST || DEFAULTS.HOST,
    piDefaultSamples: integer(env, 'PI_DEFAULT_SAMPLES', { min: 1 }),
    piMaxSamples: integer(env, 'PI_MAX_SAMPLES', { min: 1, max: 1_000_000_000 }),
    delayMaxMs: integer(env, 'DELAY_MAX_MS', { max: 600_000 }),
    bodyDiscardMaxBytes: integer(env, 'BODY_DISCARD_MAX_BYTES', { max: 100 * 1_048_576 }),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', { min: 1 }),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', { min: 1 }),
    drainDelayMs: integer(env, 'DRAIN_DELAY_MS', { max: 600_000 }),
    drainTimeoutMs: integer(env, 'DRAIN_TIMEOUT_MS', { min: 1, max: 600_000 }),
  };
  if (config.piDefaultSamples > config.piMaxSamples) {
    throw new ConfigError(`PI_DEFAULT_SAMPLES (${config.piDefaultSamples}) is above PI_MAX_SAMPLES (${config.piMaxSamples})`);
  }
  if (config.drainDelayMs >= config.drainTimeoutMs) {
    throw new ConfigError(`DRAIN_TIMEOUT_MS (${config.drainTimeoutMs}) bounds the whole drain: it must be above DRAIN_DELAY_MS (${config.drainDelayMs})`);
  }
  if (config.metricsPort !== null && config.metricsPort !== 0 && config.metricsPort === config.port) {
    throw new ConfigError(`METRICS_PORT (${config.metricsPort}) must differ from PORT: /metrics has a port of its own`);
  }
  if (config.headersTimeoutMs <= config.keepAliveTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${config.headersTimeoutMs}) must be above KEEP_ALIVE_TIMEOUT_MS (${config.keepAliveTimeoutMs})`);
  }
  // The per-instance delay on GET /, chosen once: fixed part + a random part fixed for the
  // process's life (the 2025 experiment's uneven replicas) + the slow instance's extra.
  const randomMax = integer(env, 'DELAY_RANDOM_MAX_MS', { max: 600_000 });
  const slowDelayMs = integer(env, 'SLOW_DELAY_MS', { max: 600_000 });
  const slow = isSlow(env.SLOW_INSTANCE, instance) ? slowDelayMs : 0;
  const drawn = choices(env);
  const seed = env.DELAY_SEED;
  if (seed !== undefined && seed !== '' && !/^\d+$/.test(seed)) throw new ConfigError(`DELAY_SEED must be a whole number (got '${seed}')`);
  const pick = drawn ? drawn[Math.floor((seed ? seeded(seed, instance) : random()) * drawn.length)] : 0;
  config.homeDelayMs = integer(env, 'DELAY_MS', { max: 600_000 }) + Math.floor(random() * (randomMax + 1)) + pick + slow;
  return config;
}
