// Which nginx runs here: Debian's (make setup installs it), or the one NGINX_BIN names. The runner
// starts it; the benchmark records its version.
import fs from 'node:fs';

export function nginxBinary() {
  if (process.env.NGINX_BIN) {
    if (fs.existsSync(process.env.NGINX_BIN)) return process.env.NGINX_BIN;
    throw new Error(`NGINX_BIN=${process.env.NGINX_BIN} does not exist: unset it or point it at an nginx binary`);
  }
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('nginx not found: run `make setup` (installs Debian\'s nginx) or set NGINX_BIN to an nginx binary');
}
