// Progress with an estimate of the time left: the plan's own estimate, corrected by the pace so far.
// A bar on a terminal; a line per phase otherwise (CI logs, pipes).
import cliProgress from 'cli-progress';

const mmss = (seconds) => {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export function progress(totalS, { stream = process.stderr } = {}) {
  const t0 = Date.now();
  let done = 0;
  const left = () => {
    const elapsed = (Date.now() - t0) / 1000;
    // Real seconds per planned second, once enough is done for the pace to mean something (the
    // start-up's planned seconds — a build that may be cached — would skew it early on), bounded.
    const pace = done > Math.max(60, totalS / 3) ? Math.min(2, Math.max(0.75, elapsed / done)) : 1;
    return Math.max(0, (totalS - done) * pace);
  };
  if (!stream.isTTY) {
    return {
      phase: (l) => stream.write(`bench: ${l} (about ${mmss(left())} left)\n`),
      tick: (s) => { done += s; },
      log: (l) => stream.write(`  ${l}\n`),
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: 'bench [{bar}] {percentage}% | about {left} left | {label}', stream, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.round(totalS), 0, { label: 'starting', left: mmss(totalS) });
  const at = () => Math.min(Math.round(done), Math.round(totalS));
  return {
    phase: (l) => bar.update(at(), { label: l.slice(0, 70), left: mmss(left()) }),
    tick: (s) => { done += s; bar.update(at(), { left: mmss(left()) }); },
    log: (l) => {
      bar.stop();
      stream.write(`  ${l}\n`);
      bar.start(Math.round(totalS), at(), { label: '', left: mmss(left()) });
    },
    stop: () => bar.stop(),
  };
}
