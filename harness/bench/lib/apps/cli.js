// The bench's command-line side of `make bench APP=…` (cli.js calls these): the options, the app
// generated from them before the plan is built, and its check once the engine is up.
import { AppInputError } from './errors.js';
import { prepareApp } from './prepare.js';
import { checkApp } from './check.js';
import { openEngine } from '../run/open-engine.js';
import { stopAll } from '../run/cleanup.js';

const APP_ONLY = {
  paths: '--paths', health: '--health', start: '--start', service: '--service', reusePort: '--reuse-port',
};

/** Adds --app, --paths, --health, --start, --service and --reuse-port to the bench's program. */
export function appOptions(program) {
  return program
    .option('--app <dir>', 'benchmark your own service: a Node folder (package.json and a start command) or a '
      + 'folder with a compose.yaml (docs/benchmark-your-own-service.md)')
    .option('--paths <list>', 'with --app: the requests, comma-separated [METHOD ]/path[ body], e.g. '
      + '\'/,/search?q=a,POST /items {"name":"x"}\' (default: the app\'s x-bench requests, else GET /)')
    .option('--health <path>', 'with --app: answers 2xx once the app is up (default: the path of its compose '
      + 'healthcheck, else /)')
    .option('--start <command>', 'with --app, a Node folder: the command that starts it (default: package.json\'s '
      + '"start" script); $PORT or {port} is its port')
    .option('--service <name>', 'with --app, a compose.yaml of several services: the one that serves the requests')
    .option('--reuse-port', 'with --app, a Node folder: it listens with { reusePort: true }, so measure reusePort too');
}

/**
 * --app: the generated app (not started yet: checkApp does that once the engine runs), or null.
 * `engine`: the one asked for (--engine or ENGINE), undefined to go by the app's kind.
 * @param {Record<string, any>} opts @param {{ engine?: string, log?: (line: string) => void }} [options]
 */
export async function appFromOptions(opts, { engine, log } = {}) {
  if (!opts.app) {
    const stray = Object.keys(APP_ONLY).find((k) => opts[k] !== undefined && opts[k] !== false);
    if (stray) throw new AppInputError(`${APP_ONLY[stray]} goes with --app (make bench APP=<folder>)`);
    return null;
  }
  const other = { sample: '--sample', scenario: '--scenario', matrix: '--matrix', from: '--from', appDir: '--app-dir' };
  const given = Object.keys(other).find((k) => opts[k]);
  if (given) throw new AppInputError(`--app measures your service on its own: leave out ${other[given]}`);
  // What the app adapter takes of the command line, named: the rest of the bench's options are not its.
  const app = await prepareApp({
    app: opts.app, paths: opts.paths, health: opts.health, start: opts.start, service: opts.service,
    reusePort: Boolean(opts.reusePort), engine, out: opts.out, check: false, log,
  });
  for (const note of app.notes) log?.(note); // the strategies this app is not measured under, and why
  return app;
}

/**
 * The app's check on the run's engine, opened for it and released after (the run opens it again):
 * on Docker the private daemon is then this run's to stop. Ctrl-C or SIGTERM meanwhile stops what
 * the check started, and exits 130.
 * @param {any} app @param {{ engine: string, why: string }} engineChoice
 */
export async function checkAppOnEngine(app, engineChoice, { log = (line) => console.log(line) } = {}) {
  const onSignal = (sig) => {
    process.stderr.write(`\nbench: ${sig}: stopping the check of ${app.name}…\n`);
    stopAll().finally(() => process.exit(130));
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, onSignal);
  const engine = await openEngine(engineChoice, { log });
  try {
    await checkApp(app, { log });
  } finally {
    await engine.release();
    for (const sig of ['SIGINT', 'SIGTERM']) process.off(sig, onSignal);
  }
}
