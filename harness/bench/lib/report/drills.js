// The decision guide's section "When something dies / when you deploy", written from the fault
// and rollout drills of a run (doc.cells of kind 'fault' and 'rollout'). Like is compared with
// like: topologies are grouped by how many processes serve the app (1, 2, 4...), so a redundant
// topology never stands beside a single process. Every number comes from the cells.

const num = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ms = (x) => (Number.isFinite(x) ? `${num(x)} ms` : 'n/a');
const ok = (c) => c.status === 'ok' && c.drill;

/** Processes serving the app: instances × workers (a cluster of 2 in one container is 2). */
export const processesOf = (t) => (t.instances ?? 1) * Math.max(1, t.workers ?? 1);

/**
 * The targets, from the drill's own counts:
 *   fault: 0 failed GETs, for every topology with 2 or more processes behind nginx;
 *   rollout: 0 failed requests (GET and POST), for every strategy with 2 or more processes.
 * Returns true / false, or null where the target does not apply.
 */
export function faultTargetMet(cell) {
  if (!ok(cell) || !cell.topology.viaNginx || processesOf(cell.topology) < 2) return null;
  return cell.drill.get.failed === 0;
}

export function rolloutTargetMet(cell) {
  if (!ok(cell) || processesOf(cell.topology) < 2) return null;
  return cell.drill.get.failed === 0 && cell.drill.post.failed === 0;
}

const verdict = (met) => (met === null ? '—' : met ? 'met' : '**missed**');
const failedOf = (part) => `${num(part.failed)} of ${num(part.requests)}`;

function groups(cells) {
  const by = new Map();
  for (const c of cells) {
    const n = processesOf(c.topology);
    if (!by.has(n)) by.set(n, []);
    by.get(n).push(c);
  }
  return [...by.entries()].sort(([a], [b]) => a - b);
}

const groupTitle = (n) => (n === 1 ? 'One process' : `${n} processes`);

const STRATEGY = {
  proxy: 'start-first behind nginx',
  signal: 'the primary replaces its workers (SIGHUP)',
  restart: 'stop, start (no proxy in front)',
  nginx: 'nginx -s reload',
};

// Why requests failed, for the kinds of failure this run saw.
function lostRequests(cells) {
  const lines = [];
  const seen = (pred) => cells.some((c) => pred(c.drill));
  const postErrors = (d, key) => (d.post.errors?.[key] ?? 0) > 0;
  if (seen((d) => postErrors(d, 'HTTP 502'))) {
    lines.push('- **POSTs answered 502 behind nginx** were in flight on the process that was killed. nginx retries a failed GET on another '
      + 'instance (`proxy_next_upstream error timeout`) but never replays a POST it has already sent (it may have been processed), so '
      + 'the client gets the error. They are lost with the process, not hidden: make such requests safe to retry (an idempotency key) '
      + 'if a crash must cost none.');
  }
  if (seen((d) => postErrors(d, 'ECONNRESET') || (d.get.errors?.ECONNRESET ?? 0) > 0)) {
    lines.push('- **ECONNRESET**: the connection the request travelled on was closed under it — by a killed process, or by a server '
      + 'closing an idle keep-alive connection as the request arrived (nginx closes them on a reload; 1.27.4 added '
      + '`keepalive_min_timeout` to hold them a moment, which the reference config leaves unset because the local runner\'s older nginx rejects it). The client resends a GET on a new connection (counted as retried) but cannot resend a POST.');
  }
  if (seen((d) => (d.get.errors?.ECONNREFUSED ?? 0) + (d.post.errors?.ECONNREFUSED ?? 0) > 0)) {
    lines.push('- **ECONNREFUSED**: nothing listened — one process without a proxy, between its death and its restart. Every request fails until it is back.');
  }
  const timedOut = cells.filter((c) => (c.drill.get.errors?.ETIMEDOUT ?? 0) + (c.drill.post.errors?.ETIMEDOUT ?? 0) > 0);
  if (timedOut.length) {
    const cluster = timedOut.every((c) => c.topology.strategy === 'cluster');
    lines.push(`- **ETIMEDOUT** (${timedOut.map((c) => c.topology.label).join(', ')}): no answer within the client's 10 s`
      + (cluster ? ' — a connection the cluster primary had handed to a worker that died before it read it; nobody answers or closes it.' : '.'));
  }
  return lines;
}

function faultSection(cells) {
  const out = [];
  const any = cells[0].drill;
  out.push('### When a process dies', '');
  out.push(`Each drill kills one process with SIGKILL ${num(any.kills.length)} times under ${num(any.rate)} requests/s `
    + `(${Math.round((any.mix.postShare ?? 0) * 100)} % of them POST ${any.mix.post?.path ?? ''}, the rest GET ${any.mix.get}). `
    + 'The restart policy (or the cluster primary, for a worker) brings the process back, and the next kill waits until it serves again — '
    + 'behind nginx, until nginx takes it back — so every topology gets the same kills, one at a time.', '',
    '*Back* is the time from the kill to a healthy process; *serving* adds the wait for nginx, which skips a failed server for its fail_timeout.', '');
  for (const [n, group] of groups(cells)) {
    out.push(`**${groupTitle(n)}**`, '');
    out.push('| topology | killed | failed GETs | failed POSTs | back (median / max) | serving (median / max) | p99 | target: 0 failed GETs |');
    out.push('|---|---|---|---|---|---|---|---|');
    for (const c of group) {
      const d = c.drill;
      out.push(`| ${c.topology.label} | ${num(d.kills.length)} × ${d.how === 'worker' ? 'a worker' : 'an instance'} | ${failedOf(d.get)} | ${failedOf(d.post)} `
        + `| ${ms(d.recoverMs.median)} / ${ms(d.recoverMs.max)} | ${ms(d.inRotationMs?.median)} / ${ms(d.inRotationMs?.max)} | ${ms(d.latencyMs.p99)} | ${verdict(faultTargetMet(c))} |`);
    }
    out.push('');
    if (n === 1) {
      out.push('One process has nothing to fail over to: until it is back every request fails, whatever the runtime. Compare it with one process, '
        + 'never with a redundant topology — the difference would be redundancy, not the runtime.', '');
    }
  }
  return out;
}

function rolloutSection(cells) {
  const out = ['### When you deploy', ''];
  const any = cells[0].drill;
  out.push(`\`make reload\` replaces every process one at a time under the same ${num(any.rate)} requests/s. `
    + 'Replicas behind nginx: a new process on a new port, healthy first, then nginx switches to it and the old one drains. '
    + 'The cluster: its primary forks a new worker, waits until it listens, then retires an old one. '
    + 'Without a proxy, a process is stopped and started again on its port: that cannot be zero-downtime.', '');
  for (const [n, group] of groups(cells)) {
    out.push(`**${groupTitle(n)}**`, '');
    out.push('| topology | how | rollout took | failed GETs | failed POSTs | p99 | target: 0 failed requests |');
    out.push('|---|---|---|---|---|---|---|');
    for (const c of group) {
      const d = c.drill;
      // The sample's nginx swaps to a new process on a new port; a client of the process itself
      // keeps calling the old port, which goes away.
      const how = d.strategy === 'proxy' && !c.topology.viaNginx ? 'a new process on a new port behind nginx; this client calls the old one directly' : STRATEGY[d.strategy] ?? d.strategy;
      out.push(`| ${c.topology.label} | ${how} | ${ms(d.reloadMs)} | ${failedOf(d.get)} | ${failedOf(d.post)} | ${ms(d.latencyMs.p99)} | ${verdict(rolloutTargetMet(c))} |`);
    }
    out.push('');
  }
  return out;
}

function targetsSummary(faults, rollouts) {
  const line = (cells, met, what) => {
    const judged = cells.filter((c) => met(c) !== null);
    if (!judged.length) return `- ${what}: no topology in this run to judge it by.`;
    const missed = judged.filter((c) => met(c) === false);
    return `- ${what}: ${missed.length ? `**missed** by ${missed.map((c) => c.topology.label).join(', ')}` : `met by all ${judged.length} (${judged.map((c) => c.topology.label).join(', ')})`}.`;
  };
  return ['Targets of this run:', '',
    line(faults, faultTargetMet, '0 failed GETs when a process dies, for every topology with 2 or more processes behind nginx'),
    line(rollouts, rolloutTargetMet, '0 failed requests, GET and POST, during a rollout of any strategy with 2 or more processes'), ''];
}

/** Markdown lines of the section, from doc.cells. */
export function renderDrills(doc, { docs = '' } = {}) {
  const cells = (doc.cells ?? []).filter((c) => c.kind === 'fault' || c.kind === 'rollout');
  const out = ['## When something dies / when you deploy', ''];
  if (!cells.length) return [...out, 'No fault or rollout drill in this run (`make bench` runs them by default).', ''];
  const faults = cells.filter((c) => c.kind === 'fault' && ok(c));
  const rollouts = cells.filter((c) => c.kind === 'rollout' && ok(c));
  out.push(...targetsSummary(faults, rollouts));
  if (faults.length) out.push(...faultSection(faults));
  if (rollouts.length) out.push(...rolloutSection(rollouts));
  const why = lostRequests([...faults, ...rollouts]);
  if (why.length) out.push('Why requests failed:', '', ...why, '');
  const notRun = cells.filter((c) => !ok(c));
  if (notRun.length) {
    out.push('Not measured in this run:', '');
    for (const c of notRun) out.push(`- ${c.topology.label} (${c.kind}): ${c.status}${c.error ? ` — ${c.error}` : ''}`);
    out.push('');
  }
  out.push(`How to run the same drills, restart policies and rolling restarts by hand, and their Docker equivalents: [when-something-dies.md](${docs}when-something-dies.md).`, '');
  return out;
}
