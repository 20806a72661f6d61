// What the store kept of a load's POSTs, read back the way the bench's drills read it: the sample's
// x-bench.writes (compose.lab.yaml; x-bench.docker.writes on Docker) names the database service and
// the command that prints one stored id per line for the ids starting with a prefix, run there
// with `docker compose exec -T`.
import { readCompose } from '../../runner/index.js';

/** The sample's writes description on Docker: { post, body, service, list }. */
export function writesOf(sampleDir) {
  const bench = readCompose(sampleDir)['x-bench'];
  if (!bench.writes) return null;
  return { ...bench.writes, ...(bench.docker?.writes ?? {}) };
}

/** The JSON body of the POSTs, with "{id}" where each puts its own id (the load fills it in). */
export function bodyTemplate(writes) {
  return typeof writes.body === 'string' ? writes.body : JSON.stringify(writes.body);
}

/**
 * The ids the store holds for `prefix`, one per stored row (a duplicate shows twice). Throws,
 * naming the store, when it cannot be read.
 * @param {import('./helpers.js').Project} project
 */
export function listStored(project, writes, { prefix, port }) {
  // Compose text: $$ is one $ once loaded. {port}: the database's own port in its container.
  const argv = writes.list.map((a) =>
    a.replaceAll('$$', '$').replaceAll('{prefix}', prefix).replaceAll('{port}', String(port)),
  );
  const res = project.run(['exec', '-T', writes.service, ...argv], { check: false, timeout: 60_000 });
  if (res.status !== 0) {
    const last = (res.stderr || res.stdout).trim().split('\n').at(-1);
    throw new Error(`the store (service ${writes.service}) could not be read: ${last}`);
  }
  return res.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
}

/**
 * Acknowledged, stored, lost (acknowledged, not stored), duplicated (stored twice or more), ambiguous
 * (failed at the client, stored).
 */
export function account({ acked, failedIds }, stored) {
  const times = new Map();
  for (const id of stored) times.set(id, (times.get(id) ?? 0) + 1);
  const failed = new Set(failedIds);
  const sent = new Set([...acked, ...failedIds]);
  return {
    acknowledged: acked.length,
    stored: stored.length,
    lost: acked.filter((id) => !times.has(id)).length,
    duplicated: [...times.values()].filter((c) => c > 1).length,
    ambiguous: [...times.keys()].filter((id) => failed.has(id)).length,
    unknown: [...times.keys()].filter((id) => !sent.has(id)).length,
  };
}
