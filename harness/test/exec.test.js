// exec() on the processes engine, against the real local PostgreSQL that stands in for dotnet-api's
// database (its sqlserver service, scripts/local-postgres.sh): what the bench's drills run to read
// back stored rows. argv runs on this host with the instance's environment (its secret as a local
// file), `{port}` being the instance's loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { runnerFor } from '../runner/index.js';
import { tempRunDir, runProcesses } from './helpers.js';

const { up, down, exec, readState } = runnerFor('processes');

// As on Docker (test/docker/engine-backend.test.js): psql as the superuser, its password read from
// the file the service's POSTGRES_PASSWORD_FILE names.
const PSQL = 'PGPASSWORD="$(cat "$POSTGRES_PASSWORD_FILE")" psql -h 127.0.0.1 -p {port} -U postgres -d postgres -tAq';
const havePostgres = fs.existsSync('/usr/lib/postgresql') && fs.readdirSync('/usr/lib/postgresql').length > 0;
const skip = havePostgres ? false : 'no PostgreSQL server here (make setup installs Debian\'s postgresql)';

const runDir = tempRunDir('exec');
const psql = (sql) => exec({ runDir, service: 'sqlserver', argv: ['sh', '-c', `${PSQL} -c "${sql}"`] });

before(async () => {
  if (!skip) await up({ sample: 'dotnet-api', runDir, services: ['sqlserver'], env: { HTTP_PORT: '0' } });
});

after(async () => {
  await down({ runDir });
  assert.deepEqual(runProcesses(runDir), [], 'nothing of the run left');
  fs.rmSync(runDir, { recursive: true, force: true });
});

test('exec: {port} is the instance\'s loopback port, the environment is the instance\'s', { skip }, async () => {
  const { port, name } = (await readState(runDir)).services.sqlserver.instances[0];
  const r = await exec({ runDir, service: 'sqlserver', argv: ['sh', '-c', 'echo {port} "$INSTANCE_NAME"'] });
  assert.deepEqual(r, { code: 0, stdout: `${port} ${name}\n`, stderr: '' });
});

test('exec: psql writes and reads back rows in the real PostgreSQL', { skip }, async () => {
  const made = await psql('CREATE TABLE drill (id text); INSERT INTO drill VALUES (\'a-1\'), (\'a-2\')');
  assert.equal(made.code, 0, made.stderr);
  const read = await psql('SELECT id FROM drill ORDER BY id');
  assert.deepEqual([read.code, read.stdout.trim().split('\n')], [0, ['a-1', 'a-2']]);
});

test('exec: a failing command gives its exit code and stderr; bad targets, one line', { skip }, async () => {
  const bad = await psql('SELECT * FROM no_such_table');
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /no_such_table/);
  const missing = await exec({ runDir, service: 'sqlserver', argv: ['no-such-program-here'] });
  assert.equal(missing.code, 127);
  await assert.rejects(exec({ runDir, service: 'nope', argv: ['true'] }), /no running service 'nope'/);
  await assert.rejects(exec({ runDir, service: 'sqlserver', index: 2, argv: ['true'] }), /sqlserver has no instance 2/);
  await assert.rejects(
    exec({ runDir: tempRunDir('exec-none'), service: 'sqlserver', argv: ['true'] }),
    /nothing running from/,
  );
});
