// ESLint over every JavaScript file of the repository (the harness and the Node samples). The
// repository root's eslint.config.js re-exports this file, so paths here are relative to the root;
// it lives in the harness because its packages are harness devDependencies.
import js from '@eslint/js';
import globals from 'globals';
import runnerInterface from './runner-interface.js';

// Small functions, short lines (issue #41): at most 80 lines a function (its blank lines and comments
// count), at most 120 characters a line (a URL or a regular expression may run longer).
const SIZE_RULES = {
  'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
  'max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }],
};

// The folders held to them.
const SIZED = [
  'harness/runner', 'harness/lib', 'harness/bin', 'harness/test-engine', 'harness/docker-engine', 'harness/lint',
  'harness/orchestrators', 'harness/test', 'harness/bench',
];

export default [
  { ignores: ['**/node_modules/', '.run/', '.tools/', 'dotnet-api/**/bin/', 'dotnet-api/**/obj/', 'dotnet-api/out/'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names mark what is left unused on purpose, and so does `const { a, ...rest } = o`
      // (a dropped from a copy); a caught error need not be used.
      'no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // Outside harness/runner, the runner is reached through its index.js only (runner-interface.js).
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    plugins: { 'scaling-lab': { rules: { 'runner-interface': runnerInterface } } },
    rules: { 'scaling-lab/runner-interface': 'error' },
  },
  { files: SIZED.map((dir) => `${dir}/**/*.{js,mjs,cjs}`), rules: SIZE_RULES },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  // The MongoDB image runs these with mongosh on an empty volume: CommonJS, Node's globals, `db` and `print`.
  {
    files: ['database/mongo/*.js', 'node-cluster/k8s/**/mongo-init/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, db: 'readonly', print: 'readonly' } },
  },
];
