// No committed file holds a real-looking secret. What counts (harness/CONVENTIONS.md, "Secrets"):
//   - any file committed under a secrets/ folder, other than README.md, .gitignore, .gitkeep;
//   - a private key block, or a token in a well-known format (AWS, GitHub, npm, Slack);
//   - a password-like key (password, passwd, pwd, secret, token, api key) given a literal value
//     that looks real: 8 or more characters, not a placeholder (change-me, example, your-..., <...>,
//     ***), not a reference (${VAR}, $VAR, {field}, a path such as /run/secrets/..., code such as
//     a call or env.NAME), and mixing at least three of lower case, upper case, digits and symbols.
// Placeholders pass; so do generated files (lock files, docs/results/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

const SKIP = [/(^|\/)package-lock\.json$/, /(^|\/)packages\.lock\.json$/, /^docs\/results\//, /\.(svg|png|jpg|ico)$/];
/** @type {[RegExp, string][]} */
const TOKENS = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key id'],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}\b/, 'a GitHub token'],
  [/\bnpm_[A-Za-z0-9]{36}\b/, 'an npm token'],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/, 'a Slack token'],
];
// key = value, key: value, "key": "value", Key=value; in a connection string.
// The value on the key's own line: a YAML key that opens a nested block (`secret:`) has none.
const ASSIGNMENT =
  /\b([\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key)[\w.-]*)["']?[ \t]*[:=][ \t]*(["']?)([^\s"';,}]+)\2/gi;
const PLACEHOLDER = /change.?me|example|placeholder|dummy|sample|redacted|your[-_]|^<.*>$|\*\*\*|x{4,}|not-a-real/i;
// A variable, a path, or code (a call, a member access) names a secret rather than holding one.
const REFERENCE = /^\$|\$\{|\$\(|\{|\(|^[A-Za-z_$][\w$]*\.[A-Za-z_$]|^\/|^\.\.?\/|^[A-Z][A-Z0-9_]*$/;

function classes(value) {
  return [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
}

/** Why `text` (the content of `file`) looks like it holds a real secret; empty when it does not. */
export function secretsIn(file, text) {
  if (/(^|\/)secrets\//.test(file) && !/(^|\/)(README\.md|\.gitignore|\.gitkeep)$/.test(file))
    return [`${file}: a file in a secrets/ folder`];
  const found = TOKENS.filter(([re]) => re.test(text)).map(([, what]) => `${file}: ${what}`);
  for (const [, key, , value] of text.matchAll(ASSIGNMENT)) {
    if (value.length < 8 || PLACEHOLDER.test(value) || REFERENCE.test(value) || classes(value) < 3) continue;
    found.push(`${file}: ${key} = ${value.slice(0, 3)}… looks like a real secret`);
  }
  return found;
}

test('no committed file holds a real-looking secret', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  assert.ok(files.length > 100, `git ls-files found ${files.length} files`);
  const found = files.filter((f) => !SKIP.some((re) => re.test(f)) && fs.existsSync(path.join(REPO_ROOT, f)))
    .flatMap((f) => secretsIn(f, fs.readFileSync(path.join(REPO_ROOT, f), 'utf8')));
  assert.deepEqual(found, []);
});

test('the check finds real-looking secrets and lets placeholders and references pass', () => {
  // Made up at run time, so this file holds none.
  const real = `${crypto.randomBytes(9).toString('base64url')}Aa1`;
  const leaks = [
    ['app/.env', `MSSQL_SA_PASSWORD=${real}\n`],
    ['app/compose.yaml', `      MONGO_INITDB_ROOT_PASSWORD: "${real}"\n`],
    ['app/appsettings.json', `{ "ConnectionStrings": { "Default": "Server=db;User Id=sa;Password=${real};" } }`],
    ['app/config.js', `const apiKey = '${real}';`],
    ['app/secrets/db_password.txt', 'anything'],
    ['app/key.pem', ['-----BEGIN', 'RSA PRIVATE KEY-----'].join(' ')],
    ['app/ci.yml', `token: gh${'p'}_${'a1B2'.repeat(9)}`],
  ];
  for (const [file, text] of leaks) assert.notDeepEqual(secretsIn(file, text), [], file);

  const fine = [
    ['app/.env.example', 'MSSQL_SA_PASSWORD=Change-me-2026!\nMONGO_APP_PASSWORD=change-me-app\n'],
    ['app/compose.yaml', 'DB_PASSWORD_FILE: /run/secrets/db_app_password\nPASSWORD: ${MSSQL_SA_PASSWORD}\n'],
    ['app/Program.cs', 'var password = SecretFile.Read(config, "DB_PASSWORD_FILE");\nPassword={AdminPassword};'],
    ['app/run.sh', 'PGPASSWORD="$(cat "$POSTGRES_PASSWORD_FILE")"\n'],
    ['app/secrets/README.md', 'how to create them'],
  ];
  for (const [file, text] of fine) assert.deepEqual(secretsIn(file, text), [], file);
});
