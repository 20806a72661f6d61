// What every launcher here reads: the launch spec the app adapter wrote beside the generated
// compose.yaml (launch.json, harness/bench/lib/apps/node-folder.js), i.e. the user's start command
// resolved once — the app's folder, its argv, and where it is a Node program, its entry file.
import fs from 'node:fs';
import path from 'node:path';

/**
 * @typedef {object} LaunchSpec
 * @property {string} name      the app's name (messages)
 * @property {string} dir       the app's own folder: every process runs there
 * @property {string[]} argv    the start command, tokens as written ({port}, $VAR expanded at launch)
 * @property {Record<string, string>} env   assignments before the command (NODE_ENV=production …)
 * @property {{ execArgv: string[], entry: string, args: string[] } | null} node   the Node entry, if any
 */

/** @returns {LaunchSpec} */
export function readLaunch(file = process.env.BENCH_LAUNCH ?? 'launch.json') {
  try {
    return JSON.parse(fs.readFileSync(path.resolve(file), 'utf8'));
  } catch (err) {
    return fail(`cannot read the launch spec ${file}: ${err.message}`);
  }
}

/** `{port}`, `$VAR` and `${VAR}` in one token, from `env` (unset: empty, as a shell would). */
export function expand(token, env = process.env) {
  return token
    .replaceAll('{port}', env.PORT ?? '')
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (_whole, braced, bare) => env[braced ?? bare] ?? '');
}

/**
 * The app's environment: the caller's without the launchers' own BENCH_* settings, the start
 * command's assignments, and the app's node_modules/.bin first on PATH (as `npm start` does).
 * @param {LaunchSpec} spec
 */
export function appEnv(spec, env = process.env) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('BENCH_') && v !== undefined) out[k] = v;
  for (const [k, v] of Object.entries(spec.env ?? {})) out[k] = expand(v, env);
  out.PATH = [path.join(spec.dir, 'node_modules', '.bin'), env.PATH].filter(Boolean).join(':');
  return out;
}

/** The Node argv of one serving process: [...execArgv, entry, ...args], expanded. */
export function nodeArgs(spec, env = process.env) {
  const { execArgv, entry, args } = spec.node;
  return [...execArgv, entry, ...args].map((t) => expand(t, env));
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
