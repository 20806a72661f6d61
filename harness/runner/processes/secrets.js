// Compose `secrets:` for local runs. In a container a secret a service lists is the file
// /run/secrets/<target>; locally that path, wherever it appears in an environment value, becomes the
// secret's own file (top-level `secrets.<name>.file`, relative to the sample folder). A secret that
// is named but missing is an error naming the file and how to create it.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { interpolateDeep } from '../common/interpolate.js';

const MOUNT_DIR = '/run/secrets';

function composeDoc(topology) {
  const text = fs.readFileSync(path.join(topology.dir, 'compose.yaml'), 'utf8');
  return interpolateDeep(YAML.parse(text), topology.vars ?? {});
}

// The secrets a service lists: container path -> { name, file } (file undefined if not file-based).
function mounts(doc, serviceName, dir) {
  const out = new Map();
  for (const entry of doc.services?.[serviceName]?.secrets ?? []) {
    const name = typeof entry === 'string' ? entry : entry.source;
    const target = (typeof entry === 'string' ? undefined : entry.target) ?? name;
    const def = doc.secrets?.[name];
    if (!def)
      throw new Error(`${serviceName}: secret '${name}' is not defined under the top-level secrets: of compose.yaml`);
    out.set(path.posix.resolve(MOUNT_DIR, target), { name, file: def.file ? path.resolve(dir, def.file) : undefined });
  }
  return out;
}

/**
 * Environment values with /run/secrets/<target> replaced by the local secret files.
 * @param {{dir: string, sample?: string, vars?: object}} topology  from compose.js loadTopology
 * @param {string} serviceName
 * @param {Record<string, string>} env  the instance's environment
 * @returns {Record<string, string>} the variables that changed
 */
export function localSecrets(topology, serviceName, env) {
  const referenced = Object.entries(env).filter(([, v]) => String(v).includes(`${MOUNT_DIR}/`));
  if (!referenced.length) return {};
  const listed = mounts(composeDoc(topology), serviceName, topology.dir);
  /** @type {Record<string, string>} */
  const changed = {};
  for (const [key, value] of referenced) {
    changed[key] = String(value).replace(/\/run\/secrets\/[\w.-]+/g, (mount) => {
      const secret = listed.get(mount);
      if (!secret)
        throw new Error(
          `${serviceName}: ${key} names ${mount}, but the service lists no secret mounted there (compose.yaml ` +
            `secrets:)`,
        );
      if (!secret.file)
        throw new Error(
          `${serviceName}: secret '${secret.name}' is not a file: secret, which is all the local runner supports`,
        );
      if (!fs.existsSync(secret.file)) {
        throw new Error(
          `${serviceName}: secret '${secret.name}' needs ` +
            `${path.relative(path.dirname(topology.dir), secret.file)}, which does not exist: run \`make ` +
              `secrets\` (see ${topology.sample}/README.md)`,
        );
      }
      return secret.file;
    });
  }
  return changed;
}
