// The worker's MongoDB connection. Each worker process has its own mongoose connection and pool.
import mongoose from 'mongoose';
import { log } from './log.js';

// Filters built from user input can't carry query operators: {"name": {"$ne": null}} is
// matched as a literal value instead of "any name".
mongoose.set('sanitizeFilter', true);
mongoose.set('strictQuery', true);

const RETRY_MS = 2_000;

export function connectionState() {
  // 0 disconnected, 1 connected, 2 connecting, 3 disconnecting
  return ['disconnected', 'connected', 'connecting', 'disconnecting'][mongoose.connection.readyState] ?? 'unknown';
}

export const isConnected = () => mongoose.connection.readyState === 1;

let retryTimer;
let stopped = false;

// Connects in the background and keeps trying until the first connection succeeds; after that
// the driver reconnects by itself. The HTTP server doesn't wait for this: /health, /pi and
// /delay work without a database, and /ready and /api answer 503 until it is there.
export function connect(uri, { maxPoolSize, username, password }) {
  stopped = false;
  let everConnected = false;
  mongoose.connection.on('connected', () => { everConnected = true; });
  mongoose.connection.on('disconnected', () => { if (everConnected && !stopped) log('mongodb disconnected'); });
  mongoose.connection.on('reconnected', () => log('mongodb reconnected'));
  const attempt = async () => {
    try {
      await mongoose.connect(uri, {
        maxPoolSize,
        ...(username ? { auth: { username, password } } : {}),
        // Fail fast instead of queueing operations while the database is away: a request gets
        // a 503 at once rather than hanging until a client timeout.
        bufferCommands: false,
        serverSelectionTimeoutMS: 2_000,
        heartbeatFrequencyMS: 2_000,
        connectTimeoutMS: 2_000,
      });
      log('mongodb connected', { maxPoolSize });
    } catch (err) {
      if (stopped) return;
      log('mongodb connect failed, retrying', { error: err.name, retryMs: RETRY_MS });
      retryTimer = setTimeout(attempt, RETRY_MS);
    }
  };
  attempt();
}

export async function disconnect() {
  stopped = true;
  clearTimeout(retryTimer);
  // Bounded: a connection attempt still in flight must not hold up a shutdown.
  await Promise.race([
    mongoose.disconnect().catch(() => {}),
    new Promise((resolve) => { setTimeout(resolve, 1_000).unref(); }),
  ]);
}

/**
 * What the benchmark records beside a database-bound measurement: the driver it went through and the
 * server's own version (buildInfo). Throws while the database does not answer.
 */
export async function databaseInfo() {
  if (!isConnected()) throw new Error('not connected');
  const info = await mongoose.connection.db.admin().buildInfo();
  return { provider: `MongoDB (mongoose ${mongoose.version})`, serverVersion: info.version };
}
