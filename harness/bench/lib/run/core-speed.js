// How fast the system under test's CPU ran through the run. On a shared VM a vCPU can run at a half
// to two thirds of its speed for seconds at a time while the guest counts no steal; this says how
// much of the run that was (report/core-speed.js: what it did to the saturated slices).
// run/core-speed-probe.js times it.
import { spawn, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';
import { track } from './cleanup.js';
import { round, median } from '../judge/stats.js';

const PROBE = fileURLToPath(new URL('./core-speed-probe.js', import.meta.url));
export const PROBE_PERIOD_MS = 200;
export const SLOW_BELOW = 0.7; // a reading slower than 70% of the run's fast readings

function hasTaskset() {
  try { execFileSync('taskset', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

/**
 * Starts the probe on `cpus` (a cpu list, e.g. "1"); call before this process is pinned elsewhere
 * (a child starts in its parent's cpuset). Returns { pid, readings (so far), stop() -> readings
 * [[epoch ms, µs], …] }, or null where it can't be pinned (no taskset).
 */
export function startCoreProbe(cpus, { periodMs = PROBE_PERIOD_MS } = {}) {
  if (!cpus || !hasTaskset()) return null;
  const child = spawn('taskset', ['-c', String(cpus), process.execPath, PROBE, String(periodMs)], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const readings = [];
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    const [t, us] = l.split(' ').map(Number);
    if (Number.isFinite(t) && Number.isFinite(us)) readings.push([t, us]);
  });
  child.on('error', () => {});
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const untrack = track(stop);
  return { pid: child.pid, readings, stop: async () => { await stop(); untrack(); return readings; } };
}

/**
 * readings [[epoch ms, µs], …] -> { probes, periodMs, fastUs (the run's fast reading: its 10th
 * percentile time), medianUs, slowShare (readings slower than SLOW_BELOW of fast), slowShareByMinute
 * and, withReadings, the readings themselves }.
 */
export function summariseCoreSpeed(readings, { cpus = null, periodMs = PROBE_PERIOD_MS, withReadings = false } = {}) {
  if (!readings?.length) return null;
  const us = readings.map((r) => r[1]).sort((a, b) => a - b);
  const fastUs = us[Math.floor(0.1 * (us.length - 1))];
  const slow = (x) => fastUs / x < SLOW_BELOW;
  const t0 = readings[0][0];
  const minutes = [];
  for (const [t, x] of readings) {
    const m = Math.floor((t - t0) / 60000);
    minutes[m] ??= [0, 0];
    minutes[m][0] += slow(x) ? 1 : 0;
    minutes[m][1] += 1;
  }
  return {
    cpus,
    periodMs,
    probes: readings.length,
    fastUs: round(fastUs, 1),
    medianUs: round(median(us), 1),
    slowBelow: SLOW_BELOW,
    slowShare: round(readings.filter((r) => slow(r[1])).length / readings.length, 3),
    slowShareByMinute: minutes.map((m) => (m ? round(m[0] / m[1], 2) : null)),
    // Each reading as [ms since startedAt, µs], to set beside the slices' start times (sliceAt).
    ...(withReadings
      ? { startedAt: new Date(t0).toISOString(), readings: readings.map(([t, x]) => [t - t0, round(x, 0)]) }
      : {}),
  };
}
