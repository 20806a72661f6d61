// Bad input to `make bench APP=…`: the CLI prints the message — one line naming what is wrong and
// how to fix it, then, where the service ran, the evidence (where it listens, its last output), each
// line indented — and exits 2, having stopped whatever it had started.
export class AppInputError extends Error {
  /** @param {string} message @param {{ evidence?: string }} [options] */
  constructor(message, { evidence = '' } = {}) {
    const line = message.replace(/\s*\n\s*/g, ' ');
    super(evidence.trim() ? `${line}\n${evidence.replace(/\s+$/, '')}` : line);
    this.name = 'AppInputError';
    this.line = line;
  }
}

/** Output lines as evidence under a one-line message: a heading, then each line indented with `| `. */
export function outputBlock(heading, text) {
  const lines = String(text ?? '').replace(/\s+$/, '').split('\n').filter((l) => l.trim());
  return lines.length ? [`  ${heading}`, ...lines.map((l) => `    | ${l.slice(0, 300)}`)].join('\n') : '';
}
