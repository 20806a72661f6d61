/** The load generator itself failed (missing, crashed, unreadable output): nothing else can be measured. */
export class GeneratorError extends Error {}
