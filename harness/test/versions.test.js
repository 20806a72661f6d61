// One place lists every version the repository pins (versions.yaml): each Dockerfile, compose file,
// Kubernetes file and project file must pin exactly that, and every line there must be used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { pinsIn, pinProblems, versionsOf } from './pins.js';

test('every image, NuGet and npm package pinned in the repository is the version versions.yaml lists', () => {
  const pins = pinsIn(REPO_ROOT);
  const kinds = (k) => pins.filter((p) => p.kind === k).length;
  // Each kind found where the samples keep it: an empty walk would check nothing.
  assert.ok(kinds('images') >= 15 && kinds('nuget') >= 10 && kinds('npm') >= 6, `${pins.length} pins found`);
  assert.deepEqual(pinProblems(pins, versionsOf(REPO_ROOT)), []);
});

test('a file that pins another version, a package versions.yaml lacks, or an unused line are each reported', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-'));
  try {
    fs.mkdirSync(path.join(root, 'app', 'src'), { recursive: true });
    fs.writeFileSync(path.join(root, 'versions.yaml'), [
      'images: { node: 26.12.1-alpine, postgres: "18.6" }',
      'nuget: { Npgsql.EntityFrameworkCore.PostgreSQL: 10.0.3 }',
      'npm: { express: 5.3.0, left-over: 1.0.0 }',
    ].join('\n'));
    const write = (file, text) => fs.writeFileSync(path.join(root, 'app', file), text);
    write('Dockerfile', 'FROM node:26.12.0-alpine AS build\nFROM build\n');
    write('compose.yaml', 'services:\n  db:\n    image: postgres:18.6\n  app:\n    image: scaling-lab/app:local\n');
    write('src/App.csproj', '<Project><PropertyGroup><V>10.0.0</V></PropertyGroup><ItemGroup>'
      + '<PackageReference Include="Npgsql.EntityFrameworkCore.PostgreSQL" Version="$(V)" /></ItemGroup></Project>');
    write('package.json', JSON.stringify({ dependencies: { express: '5.3.0', pm2: '7.0.4' } }));
    assert.deepEqual(pinProblems(pinsIn(root), versionsOf(root)).sort(), [
      'app/Dockerfile: node 26.12.0-alpine, versions.yaml says 26.12.1-alpine',
      'app/package.json: pm2 7.0.4 is not in versions.yaml npm',
      'app/src/App.csproj: Npgsql.EntityFrameworkCore.PostgreSQL 10.0.0, versions.yaml says 10.0.3',
      'versions.yaml npm.left-over: no file pins it',
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
