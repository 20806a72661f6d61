// The runner's compose `secrets:` support (secrets.js): /run/secrets/<target> in an
// environment value becomes the secret's local file; a secret that is missing, unlisted or not a
// file is an error naming it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { localSecrets } from '../processes/secrets.js';
import { tempRunDir } from '../../test/helpers.js';

const root = tempRunDir('secrets');
after(() => fs.rmSync(root, { recursive: true, force: true }));

const sampleDir = path.join(root, 'sample');
fs.mkdirSync(path.join(sampleDir, 'secrets'), { recursive: true });
fs.writeFileSync(path.join(sampleDir, 'compose.yaml'), `
services:
  app:
    image: example
    secrets:
      - token
      - source: db_password
        target: dbpw
      - from_env
  other:
    image: example
secrets:
  token:
    file: ./secrets/token.txt
  db_password:
    file: \${DB_SECRET_FILE:-./secrets/db_password.txt}
  from_env:
    environment: SOME_VAR
`);
const topology = { dir: sampleDir, sample: 'sample', vars: {} };
const tokenFile = path.join(sampleDir, 'secrets', 'token.txt');
fs.writeFileSync(tokenFile, 'not-a-real-token');

test('a listed secret: its /run/secrets path becomes the local file, in any value', () => {
  const env = { TOKEN_FILE: '/run/secrets/token', ARGS: '--password-file=/run/secrets/token --x', PLAIN: 'value' };
  assert.deepEqual(localSecrets(topology, 'app', env), {
    TOKEN_FILE: tokenFile,
    ARGS: `--password-file=${tokenFile} --x`,
  });
});

test('long syntax: the target names the mount, the source the file (interpolated like compose)', () => {
  const custom = path.join(root, 'custom.txt');
  fs.writeFileSync(custom, 'x');
  const changed = localSecrets({ ...topology, vars: { DB_SECRET_FILE: custom } }, 'app', {
    DB_PASSWORD_FILE: '/run/secrets/dbpw',
  });
  assert.deepEqual(changed, { DB_PASSWORD_FILE: custom });
});

test('no /run/secrets in the environment: nothing to do, nothing read', () => {
  assert.deepEqual(localSecrets({ dir: path.join(root, 'no-such-sample') }, 'app', { A: '1' }), {});
});

test('a missing secret file: one line naming the file and `make secrets`', () => {
  assert.throws(() => localSecrets(topology, 'app', { DB_PASSWORD_FILE: '/run/secrets/dbpw' }), {
    message:
      "app: secret 'db_password' needs sample/secrets/db_password.txt, which does not exist: run `make secrets` " +
        "(see sample/README.md)",
  });
});

test('a secret the service does not list, or that is not a file, is an error naming it', () => {
  assert.throws(() => localSecrets(topology, 'other', { T: '/run/secrets/token' }), {
    message: 'other: T names /run/secrets/token, but the service lists no secret mounted there (compose.yaml secrets:)',
  });
  assert.throws(() => localSecrets(topology, 'app', { V: '/run/secrets/from_env' }), {
    message: "app: secret 'from_env' is not a file: secret, which is all the local runner supports",
  });
});
