// What every launcher here reads: the launch spec the app adapter wrote beside the generated
// compose.yaml (launch.json, harness/bench/lib/apps/node-folder.js) — the user's start command as
// npm start gives it to sh, and the environment npm adds for it — and the pieces they share.
import fs from 'node:fs';
import path from 'node:path';

/**
 * @typedef {object} LaunchSpec
 * @property {string} name        the app's name (messages)
 * @property {string} dir         the app's own folder: the script runs there, as under npm start
 * @property {string} script      the start command, as npm hands it to `sh -c`
 * @property {string} execScript  the same, with `exec` before its last command (shell-script.js)
 * @property {Record<string, string>} npmEnv  what npm adds to a script's environment (npm_package_*, …)
 * @property {string[]} pathPrefix  the folders npm puts first on PATH (node_modules/.bin, up the tree)
 * @property {boolean} forks      whether it starts one Node program, which cluster and PM2 can fork
 * @property {string | null} why  where it doesn't, why
 */

/** @returns {LaunchSpec} */
export function readLaunch(file = process.env.BENCH_LAUNCH ?? 'launch.json') {
  try {
    return JSON.parse(fs.readFileSync(path.resolve(file), 'utf8'));
  } catch (err) {
    return fail(`cannot read the launch spec ${file}: ${err.message}`);
  }
}

/**
 * What npm adds to `base` for a script: the variables it sets or changes, and the folders before
 * base's PATH. `scriptEnv` is the environment npm gave a script when started with `base`.
 * @param {Record<string, string>} scriptEnv @param {Record<string, string | undefined>} base
 */
export function npmAdditions(scriptEnv, base) {
  const npmEnv = Object.fromEntries(Object.entries(scriptEnv).filter(([k, v]) => k !== 'PATH' && base[k] !== v));
  const dirs = (scriptEnv.PATH ?? '').split(':');
  const rest = (base.PATH ?? '').split(':').filter(Boolean);
  const at = rest.length ? dirs.findIndex((_d, i) => dirs.slice(i).join(':') === rest.join(':')) : dirs.length;
  return { npmEnv, pathPrefix: dirs.slice(0, at < 0 ? dirs.length : at).filter(Boolean) };
}

/**
 * The script's environment, as npm start would give it here: the caller's without the launchers'
 * own BENCH_* settings, npm's additions, npm's folders first on PATH.
 * @param {Pick<LaunchSpec, 'npmEnv' | 'pathPrefix'>} spec
 */
export function appEnv(spec, env = process.env) {
  const own = Object.entries(env).filter(([k, v]) => !k.startsWith('BENCH_') && v !== undefined);
  const PATH = [...(spec.pathPrefix ?? []), env.PATH].filter(Boolean).join(':');
  return /** @type {Record<string, string>} */ ({ ...Object.fromEntries(own), ...spec.npmEnv, PATH });
}

/** Every launcher's progress line, in the instance's log. */
export function log(message) {
  process.stdout.write(`[bench-wrap ${process.pid}] ${message}\n`);
}

/** One line naming what is wrong, exit 2 (the runner shows it as the instance's last log line). */
export function fail(message) {
  process.stderr.write(`bench-wrap: ${message}\n`);
  return process.exit(2);
}

/** BENCH_WORKERS, else the CPUs this process may use (os.availableParallelism follows the cgroup quota). */
export function workerCount(env, available) {
  const raw = (env.BENCH_WORKERS ?? '').trim();
  if (raw === '') return available;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) return fail(`BENCH_WORKERS must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** Milliseconds a process may take to drain after SIGTERM before it is killed (BENCH_DRAIN_MS). */
export const drainMs = (env = process.env) => Number(env.BENCH_DRAIN_MS) > 0 ? Number(env.BENCH_DRAIN_MS) : 10_000;
