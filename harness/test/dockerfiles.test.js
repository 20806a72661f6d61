// The samples' Dockerfiles, checked without a Docker engine: dockerfile-utils (the linter behind
// the Dockerfile language server) with every rule an error, then checks it does not make: base
// images pinned, a non-root final user, exec-form ENTRYPOINT/CMD. And each compose healthcheck's
// program is one the image it runs in ships.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dockerfileProblems, dockerfiles, healthcheckProblem, healthcheckProgram, services } from './image-checks.js';

// The checks below are one test per file found: none found would check nothing.
test('every sample with a Dockerfile is checked, and its services\' healthchecks too', () => {
  assert.ok(dockerfiles().length >= 3, `Dockerfiles found: ${dockerfiles().map((d) => d.name).join(', ')}`);
  assert.ok(services().filter((x) => x.healthcheck?.test).length >= 6, 'healthchecks found');
});

for (const { name, text } of dockerfiles()) {
  test(`${name}: lint-clean, pinned bases, non-root, exec form`, () => {
    assert.deepEqual(dockerfileProblems(text), []);
  });
}

test('the Dockerfile checks fail on a Dockerfile that breaks each rule', () => {
  const bad = [
    'FROM node:26-alpine AS build',
    'workdir app',
    'FROM node:latest',
    'COPY --from=build /app /app',
    'CMD node server.js',
  ].join('\n');
  const problems = dockerfileProblems(bad);
  assert.ok(problems.some((p) => /line 2: .*(uppercase|absolute)/i.test(p)), problems.join('\n'));
  assert.ok(problems.includes('FROM node:26-alpine: not pinned to a patch release or a digest'));
  assert.ok(problems.includes('FROM node:latest: not pinned to a patch release or a digest'));
  assert.ok(problems.includes('the final stage runs as root: add USER <a non-root user>'));
  assert.ok(problems.includes('CMD node server.js: shell form; use the exec form ["program", "arg"]'));
  assert.deepEqual(
    dockerfileProblems('FROM node:26.12.1-alpine@sha256:' + 'a'.repeat(64) + '\nUSER root\nENTRYPOINT ["node"]\n'),
    ['the final stage runs as root: add USER <a non-root user>'],
  );
});

for (const s of services().filter((x) => x.healthcheck?.test)) {
  test(`${s.compose} ${s.service}: the healthcheck's program is in ${s.image}`, () => {
    assert.equal(healthcheckProblem(s.image, healthcheckProgram(s.healthcheck.test)), undefined);
  });
}

test('the healthcheck check fails where the program is missing', () => {
  assert.equal(healthcheckProgram(['CMD', 'curl', '-f', 'http://127.0.0.1/']), 'curl');
  assert.equal(
    healthcheckProgram(['CMD-SHELL', '/opt/mssql-tools18/bin/sqlcmd -S localhost']),
    '/opt/mssql-tools18/bin/sqlcmd',
  );
  assert.match(healthcheckProblem('mcr.microsoft.com/dotnet/aspnet:10.0.12', 'curl'), /has no curl/);
  assert.match(healthcheckProblem('node:26.12.1-slim', 'wget'), /unknown image/);
  assert.equal(healthcheckProblem('node:26.12.1-alpine', 'wget'), undefined);
});
