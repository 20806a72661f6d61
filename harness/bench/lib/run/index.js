// The run stage's entry points: a plan run scenario by scenario (scenario.js), the time it will take
// (estimate.js), and stopping whatever it started (cleanup.js).
export { runPlan } from './scenario.js';
export { stopAll } from './cleanup.js';
export { estimateSeconds } from './estimate.js';
