// What a deploy event left behind, kept so a failed or slow one can be explained: nginx's log (its
// access lines name the replica that answered and how long it took; its error lines say why it
// gave up on one) and the replicas' own logs, each line stamped by Docker. deploy-events.js writes
// them to a folder of the run and prints, under an event that missed the bar, nginx's lines of
// that event which say something went wrong.

// An nginx line worth showing: its own error log (warn and worse), or an access line (the
// samples' `upstream` log_format) with a 5xx, a retry on another replica, or a slow answer.
const NGINX_ERROR = /\[(warn|error|crit|alert|emerg)\]/;
const ACCESS = /" (\d{3}) \d+ upstream=(\S+(?:, \S+)*) upstream_status=(\S+(?:, \S+)*) rt=([\d.]+)/;

/**
 * @param {string} line   without Docker's timestamp
 * @param {number} slowMs an answer at least this slow is shown
 */
export function noteworthy(line, slowMs) {
  if (NGINX_ERROR.test(line)) return true;
  const m = ACCESS.exec(line);
  if (!m) return false;
  return Number(m[1]) >= 500 || m[3].includes(',') || Number(m[4]) * 1000 >= slowMs;
}

/**
 * The lines of `docker logs --timestamps` output stamped in [fromMs, toMs) (epoch ms) that are
 * noteworthy, at most `limit`, each as "HH:MM:SS.mmm line".
 * @param {string} text
 * @param {{ fromMs: number, toMs: number, slowMs: number, limit?: number }} window
 */
export function linesIn(text, { fromMs, toMs, slowMs, limit = 8 }) {
  const out = [];
  for (const raw of text.split('\n')) {
    const at = raw.indexOf(' ');
    const t = Date.parse(raw.slice(0, at));
    if (!(t >= fromMs && t < toMs)) continue;
    const line = raw.slice(at + 1);
    if (noteworthy(line, slowMs)) out.push(`${new Date(t).toISOString().slice(11, 23)} ${line}`);
    if (out.length === limit) break;
  }
  return out;
}
