// The sample's nginx in front of a service on Docker, and how long it takes to send to a container
// again: nginx re-resolves the service's name every `valid=` seconds (its templates' resolver), so
// a container that came back (or a new one) is used within that, + 1 s; and a server its passive
// check took out is tried again after fail_timeout, counted in whole seconds (+ 1 s).
import fs from 'node:fs';
import path from 'node:path';
import { passiveCheckMs } from '../common/nginx-params.js';

function templates(sampleDir) {
  const dir = path.join(sampleDir, 'nginx', 'templates');
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
        .join('\n')
    : '';
}

/** The sample's nginx service (x-bench.proxy, else the one whose x-local says nginx), or undefined. */
export function proxyOf(file) {
  return file['x-bench']?.proxy ?? Object.keys(file.services ?? {}).find((n) => file.services[n]['x-local']?.nginx);
}

/** How long nginx keeps a resolved address (resolver … valid=Ns), + 1 s; 11 s when it says nothing. */
export function reResolveMs(sampleDir) {
  const m = /resolver\s[^;]*valid=(\d+)s/.exec(templates(sampleDir));
  return ((m ? Number(m[1]) : 10) + 1) * 1000;
}

/**
 * How long after a crashed container answers again nginx may still not send to it: the longer of
 * the re-resolution (its address left the name while it was down) and the passive check's
 * fail_timeout (nginx had it marked failed). nginx's defaults where the templates set none.
 */
export function readmissionMs(sampleDir) {
  // The upstream's `server …;` line (its address may be a ${VARIABLE}), not a `server {` block.
  const server = /^\s*server\s+(?!\{)[^;]*;/m.exec(templates(sampleDir).replace(/^\s*#.*$/gm, ''))?.[0] ?? '';
  return Math.max(reResolveMs(sampleDir), passiveCheckMs(server));
}
