// Environment parsing in one place, with bounds, so a typo fails at start-up with a clear message.
import fs from 'node:fs';

function int(env, name, fallback, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  }
  return n;
}

// A secret from a file (compose mounts `secrets:` under /run/secrets): NAME_FILE, else NAME.
function secret(env, name) {
  const file = env[`${name}_FILE`];
  if (!file) return env[name] || undefined;
  try {
    return fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new Error(`${name}_FILE=${file} cannot be read (${err.code ?? err.message})`, { cause: err });
  }
}

export function loadConfig(env = process.env) {
  const config = {
    port: int(env, 'PORT', 3000, { min: 0, max: 65535 }),
    // The instance's /metrics (src/metrics-server.js). Unset: none. 0: a free port (tests).
    // compose.yaml sets 9464.
    metricsPort: int(env, 'METRICS_PORT', null, { min: 0, max: 65535 }),
    host: env.HOST || '0.0.0.0',
    mongodbUri: env.MONGODB_URI || 'mongodb://127.0.0.1:27017/items',
    // Credentials apart from the URI, so the password can come from a file and needs no URL-encoding.
    mongodbUsername: env.MONGODB_USERNAME || undefined,
    mongodbPassword: env.MONGODB_USERNAME ? secret(env, 'MONGODB_PASSWORD') : undefined,
    // Connections per worker. Total on the server ≈ replicas × workers × (maxPoolSize + 2
    // monitoring sockets); see README "Connections to MongoDB".
    maxPoolSize: int(env, 'MONGODB_MAX_POOL_SIZE', 10, { min: 1, max: 1000 }),
    bodyLimit: env.BODY_LIMIT || '16kb',
    // /pi and /delay bounds: the same knobs and defaults as node-replicas.
    piDefaultSamples: int(env, 'PI_DEFAULT_SAMPLES', 1_000_000, { min: 1 }),
    piMaxSamples: int(env, 'PI_MAX_SAMPLES', 10_000_000, { min: 1, max: 1_000_000_000 }),
    delayMaxMs: int(env, 'DELAY_MAX_MS', 5_000, { max: 600_000 }),
    // Bound of a worker's whole drain, counted from the signal (the delay below included): then
    // requests still running are cut and it exits. The primary SIGKILLs it 2 s after that.
    drainMs: int(env, 'DRAIN_TIMEOUT_MS', 10_000, { min: 1, max: 600_000 }),
    // On a stop from outside (SIGTERM), how long the workers keep serving first, /ready saying 503
    // and keep-alive on (answers close their connection after it): until a proxy or orchestrator
    // that watches readiness or DNS (nginx re-resolves every 2 s) has stopped sending here. 0: close at once. Not on
    // SIGINT or a rolling restart, where the cluster's other workers keep the port.
    drainDelayMs: int(env, 'DRAIN_DELAY_MS', 0, { min: 0, max: 600_000 }),
    // During a drain, keep-alive sockets get this long to take their `Connection: close` response,
    // and a connection is closed as idle only once quiet this long (its request may be on the way).
    idleGraceMs: int(env, 'DRAIN_IDLE_GRACE_MS', 1_000, { min: 0, max: 60_000 }),
    // Must outlive nginx's upstream keepalive_timeout (10 s) so the proxy closes idle sockets first.
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 65_000, { min: 1 }),
    // Crash respawn: first delay and how many crashes in a row before giving up (see backoff.js).
    respawnInitialMs: int(env, 'RESPAWN_INITIAL_DELAY_MS', 100, { min: 1, max: 60_000 }),
    respawnMaxCrashes: int(env, 'RESPAWN_MAX_CRASHES', 10, { min: 1, max: 1000 }),
    clustering: !/^(false|0|no|off)$/i.test(env.CLUSTERING_ENABLED ?? 'true'),
    instance: env.INSTANCE_NAME || undefined,
  };
  if (config.drainDelayMs >= config.drainMs) {
    throw new Error(`DRAIN_TIMEOUT_MS (${config.drainMs}) bounds the whole drain: it must be above DRAIN_DELAY_MS (${config.drainDelayMs})`);
  }
  return config;
}
