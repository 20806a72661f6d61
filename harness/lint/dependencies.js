// make test's check of the import graph (dependency-cruiser): no import cycle anywhere in the
// harness or the samples, and the walls — the runner's two backends never import each other, what
// they share (common/) imports neither, no file of the runner but its own tests reaches the bench,
// the tests or the test engine (the private daemon it may start is harness/docker-engine/'s), and a
// sample's code outside its tests imports nothing of the harness (a sample is copied on its own).
// Returns one line per violation, "from -> to (rule)"; none means it passes.
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import { REPO_ROOT } from '../lib/repo-root.js';

const RUNNER = '^harness/runner/';
// The folders with JavaScript a user copies on their own: the samples and the example apps.
const SAMPLES = ['node-replicas', 'node-cluster', 'dotnet-api', 'examples'];

/** The rules: each forbids imports `from` a path `to` another (regular expressions on paths from the root). */
export const RULES = [
  { name: 'no-cycle', comment: 'an import cycle', from: {}, to: { circular: true } },
  { name: 'backends-apart', comment: 'the processes backend imports the docker backend',
    from: { path: `${RUNNER}processes/` }, to: { path: `${RUNNER}docker/` } },
  { name: 'backends-apart', comment: 'the docker backend imports the processes backend',
    from: { path: `${RUNNER}docker/` }, to: { path: `${RUNNER}processes/` } },
  { name: 'common-below-backends', comment: 'runner/common imports a backend or the front door',
    from: { path: `${RUNNER}common/` }, to: { path: `${RUNNER}(processes|docker)/|${RUNNER}index\\.js$` } },
  { name: 'runner-not-tests', comment: 'the runner imports the bench, the tests or the test engine',
    from: { path: RUNNER, pathNot: `${RUNNER}test/` }, to: { path: '^harness/(bench|test|test-engine)/' } },
  { name: 'sample-not-harness', comment: "a sample's code outside its tests imports the harness",
    from: { path: `^(${SAMPLES.join('|')})/`, pathNot: '(^|/)test/' }, to: { path: '^harness/' } },
];

/** @param {{ root?: string, roots?: string[] }} [options] @returns {Promise<string[]>} */
export async function dependencyProblems({
  root = REPO_ROOT,
  roots = ['harness', ...SAMPLES],
} = {}) {
  const cwd = process.cwd();
  process.chdir(root); // dependency-cruiser resolves and reports paths from the working folder
  try {
    const forbidden = RULES.map(({ name, comment, from, to }) => ({ name, comment, severity: 'error', from, to }));
    /** @type {any} */
    const ruleSet = { forbidden };
    const { output } = await cruise(roots, {
      validate: true,
      ruleSet,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: ['node_modules', '(^|/)\\.run/', '(^|/)\\.tools/'] },
    });
    const result = /** @type {any} */ (output);
    return result.summary.violations.map((v) => {
      const via = v.cycle?.length ? ` via ${v.cycle.map((c) => c.name ?? c).join(' -> ')}` : '';
      return `${path.normalize(v.from)} -> ${path.normalize(v.to)}${via} (${v.rule.name})`;
    });
  } finally {
    process.chdir(cwd);
  }
}
