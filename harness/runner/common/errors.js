// Errors both backends and the engine choice throw.

/** A usage error about the engine (an unknown one, or none can run): the CLIs print its one line and exit 2. */
export class EngineChoiceError extends Error {}

/** A `place` the run can't take (bad input): the CLI prints its one line and exits 2; nothing was changed. */
export class PlacementError extends Error {}
