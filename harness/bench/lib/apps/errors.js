// Bad input to `make bench APP=…`: the CLI prints the message, one line naming what is wrong and
// how to fix it, and exits 2 — having stopped whatever it had started.
export class AppInputError extends Error {
  constructor(message) {
    super(message.replace(/\s*\n\s*/g, ' '));
    this.name = 'AppInputError';
  }
}

export const EXIT_BAD_INPUT = 2;
