// The lint rules live in harness/lint/eslint.config.js, inside the harness whose node_modules hold
// the packages they import.
export { default } from './harness/lint/eslint.config.js';
