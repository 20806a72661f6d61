// A Node folder's start command (START=…, else package.json's "start" script, else npm's own default
// `node server.js`), taken as npm start takes it — npm is asked what it would hand `sh -c` and in
// which environment (wrap/entry-probe.js npmStart) — and run once under the entry probe, to know
// whether it starts one Node program that the cluster module and PM2 can fork. Nothing here reads
// the command's words: sh expands them, node reads its options. What goes into launch.json.
import fs from 'node:fs';
import path from 'node:path';
import { AppInputError, outputBlock } from './errors.js';
import { npmStart, resolveEntry, StartError } from '../../wrap/entry-probe.js';
import { shapeOf } from '../../wrap/shell-script.js';
import { npmAdditions } from '../../wrap/launch-spec.js';

// The command as given, before npm: there is one, and it says something.
function checkGiven({ dir, start, pkg }) {
  if (start !== undefined) {
    if (start.includes('{port}')) {
      throw new AppInputError('START: {port} is not filled in: write $PORT, as in a package.json script '
        + '(under make, $$PORT: make reads a single $ itself)');
    }
    if (!start.trim()) {
      throw new AppInputError('START is empty: give the command that starts the app, e.g. START=\'node server.js\'');
    }
    return;
  }
  const script = pkg.scripts?.start;
  if (script === undefined && !fs.existsSync(path.join(dir, 'server.js'))) {
    throw new AppInputError(
      `${dir} has no start command: add a "start" script to its package.json, or give START='node server.js'`);
  }
  if (script !== undefined && !String(script).trim()) {
    throw new AppInputError(
      `package.json's "start" script in ${dir} is empty: give it the command that starts the app`);
  }
}

/**
 * @param {{ dir: string, start?: string, pkg: Record<string, any>, port: number }} what
 * @returns {Omit<import('../../wrap/launch-spec.js').LaunchSpec, 'name'> & { said: string, entry: string | null }}
 */
export function startOf({ dir, start, pkg, port }) {
  checkGiven({ dir, start, pkg });
  const said = start !== undefined ? 'START' : 'package.json\'s "start" script';
  try {
    const npm = npmStart({ dir, start });
    const { npmEnv, pathPrefix } = npmAdditions(npm.env, /** @type {Record<string, string>} */ (process.env));
    const found = resolveEntry({ script: npm.script, env: { ...npm.env, PORT: String(port) }, cwd: dir, said });
    return {
      dir, said, script: npm.script, execScript: shapeOf(npm.script).execScript, npmEnv, pathPrefix,
      forks: found.kind === 'node', why: found.why ?? null, entry: found.node?.entry ?? null,
    };
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    throw new AppInputError(err.message, { evidence: outputBlock('it printed:', err.output) });
  }
}
