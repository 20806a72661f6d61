// What nginx's passive health check does with an upstream server's parameters, as both backends'
// waitServing need it: how long a server that failed stays out of rotation.

/**
 * ms after a server's last failure by which nginx certainly sends to it again: its fail_timeout
 * (default 10 s) counted in whole seconds (ngx_time()), + 1 s; 0 with max_fails=0 (never out).
 * @param {string} params the `server …;` line's parameters
 */
export function passiveCheckMs(params) {
  if (/max_fails=0\b/.test(params)) return 0;
  const ft = /fail_timeout=(\d+)(ms|s|m)?\b/.exec(params);
  const failTimeoutMs = ft ? Number(ft[1]) * { ms: 1, s: 1000, m: 60_000 }[ft[2] ?? 's'] : 10_000;
  return Math.ceil(failTimeoutMs / 1000) * 1000 + 1000;
}
