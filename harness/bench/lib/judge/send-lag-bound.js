// How late a load generator may send before what it measured is thrown away. Open-loop latency is
// timed from each request's intended send, so a generator that stalls (its thread blocked, the
// machine starved) charges its own stall to the server: on Docker the drills' load once shared its
// thread with `docker stop` and `docker compose up --wait` and published p99s of 18–35 s that a
// generator in a process of its own, on the same port at the same time, saw as 11–14 ms. Every
// open-loop generator here records its send lag (actual minus intended send) per request; a drill
// or a latency block whose lag p99 passes this bound is measured again (a bounded number of times)
// and, if it stays late, published as not measured, with the lag it saw.
export const SEND_LAG_P99_BOUND_MS = 50;

/** How many times a late measurement is taken in all before it is given up. */
export const LATE_TRIES = 3;

/**
 * Why a measurement's generator was too late (one line), or null when it held its schedule.
 * @param {{ p99?: number | null, max?: number | null } | null | undefined} sendLagMs @param {number} [bound]
 */
export function lateWhy(sendLagMs, bound = SEND_LAG_P99_BOUND_MS) {
  const p99 = sendLagMs?.p99;
  if (!(p99 > bound)) return null;
  const max = Number.isFinite(sendLagMs?.max) ? `, max ${Math.round(sendLagMs.max)} ms` : '';
  return `the generator sent late: send lag p99 ${Math.round(p99)} ms${max}, over the ${bound} ms bound`;
}
