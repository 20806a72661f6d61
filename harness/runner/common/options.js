// Validation of the knobs users pass to `make up` (they reach compose.yaml through interpolation).
import { availableCpus } from './cgroup.js';

export const LB_METHODS = ['least_conn', 'round_robin', 'hash'];

const rules = {
  REPLICAS: (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 64 || 'must be a whole number from 1 to 64',
  WORKERS: (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 64 || 'must be a whole number from 1 to 64',
  CPUS: (v) => {
    const n = Number(v);
    // The machine's CPUs, not the caller's: the benchmark runs pinned to a CPU of its own.
    const max = availableCpus().length;
    return (
      (/^\d*\.?\d+$/.test(v) && n >= 0.01 && n <= max) || `must be a number of CPUs from 0.01 to ${max} (e.g. 0.5)`
    );
  },
  LB: (v) => LB_METHODS.includes(v) || `must be one of ${LB_METHODS.join(', ')}`,
  HTTP_PORT: (v) => /^\d+$/.test(v) && Number(v) <= 65535 || 'must be a port number (0 picks a free one)',
};

// Throws one line naming the first bad knob and what it accepts.
export function validateKnobs(env) {
  for (const [name, rule] of Object.entries(rules)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const verdict = rule(String(value));
    if (verdict !== true) throw new Error(`${name}=${value} ${verdict}`);
  }
}

/** Throws one line unless `replicas` is a whole number the runner accepts (REPLICAS's rule). */
export function checkReplicas(replicas) {
  if (replicas === undefined || replicas === null || replicas === '')
    throw new Error('how many instances? make scale SERVICE=<name> REPLICAS=<n>');
  validateKnobs({ REPLICAS: String(replicas) });
  return Number(replicas);
}
