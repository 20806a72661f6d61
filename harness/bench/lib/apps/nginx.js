// The repository's nginx in front of a generated app: proxy/'s files copied into <generated>/nginx/
// and the service from nginx.compose.yaml, pointed at the app's service and port.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from '../../../lib/repo-root.js';

const PROXY = path.join(REPO_ROOT, 'proxy');
const FILES = ['nginx.conf', 'templates', 'lb', 'docker-entrypoint.d'];
const TEMPLATE = new URL('./nginx.compose.yaml', import.meta.url);

/**
 * The nginx service in front of `app` listening on `port`, started once the app is healthy (or
 * started, where it has no healthcheck); the reference config it mounts is copied into `<genDir>/nginx/`.
 * @param {string} genDir @param {{ app: string, port: number, healthy: boolean }} what
 */
export function nginxService(genDir, { app, port, healthy }) {
  for (const f of FILES) fs.cpSync(path.join(PROXY, f), path.join(genDir, 'nginx', f), { recursive: true });
  const svc = YAML.parse(fs.readFileSync(TEMPLATE, 'utf8')).services.nginx;
  svc.environment.NGINX_UPSTREAM = `${app}:${port}`;
  svc.depends_on = { [app]: { condition: healthy ? 'service_healthy' : 'service_started' } };
  return svc;
}
