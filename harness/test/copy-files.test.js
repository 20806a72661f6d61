// Each sample README's "Copy it into your project" table names the files to copy for Compose and for
// Swarm. Copied alone into an empty folder, those files must load as Docker's own tools load them:
// `docker compose config` (with the metrics profile too) and `docker stack config`. A file the
// deployment reads but the table leaves out (an include:, a bind-mounted folder's config) fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../lib/repo-root.js';

const SAMPLES = ['node-replicas', 'node-cluster', 'dotnet-api'];

/** The table's rows by their first cell, and the README's "app files" list: { rows, appFiles }. */
function copyTable(readme) {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Copy it into your project'));
  if (!section) return null;
  const ticks = (text) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const rows = {};
  for (const line of section.split('\n').filter((l) => /^\|\s*[A-Z]/.test(l))) {
    const [name, files] = line.split(/(?<!\\)\|/).slice(1, 3).map((c) => c.trim());
    rows[name] = ticks(files);
  }
  const appFiles = ticks(/the app files\s*\(([^)]*)\)/.exec(section)?.[1] ?? '');
  return { rows, appFiles };
}

function copyInto(dir, sampleDir, files) {
  for (const f of files) {
    const from = path.join(sampleDir, f);
    if (!fs.existsSync(from)) throw new Error(`${path.basename(sampleDir)}: the table names ${f}, which is not there`);
    fs.cpSync(from, path.join(dir, f), { recursive: true });
  }
}

const docker = (args, cwd) => spawnSync('docker', args, { cwd, encoding: 'utf8', timeout: 60_000 });
const dockerCli = docker(['compose', 'version']).status === 0;

test('the copy table of a README is read: rows, their files, the app files', () => {
  const t = copyTable([
    '## Copy it into your project', '', 'put it in place of the app files (`src/`, `package.json`).', '',
    '| to run on | the files | what to change |', '|---|---|---|',
    '| Compose | the app files, `compose.yaml`, `nginx/` | `image:` |',
    '| Swarm | the same and `compose.swarm.yaml` | a \\| b |', '', '## Next',
  ].join('\n'));
  assert.deepEqual(t, {
    rows: { Compose: ['compose.yaml', 'nginx/'], Swarm: ['compose.swarm.yaml'] },
    appFiles: ['src/', 'package.json'],
  });
  assert.equal(copyTable('# no such section\n'), null);
});

for (const sample of SAMPLES) {
  const skip = !dockerCli && 'no docker CLI (make setup installs it)';
  test(`${sample}: the files its README says to copy load alone, as Compose and Swarm load them`, { skip }, () => {
    const sampleDir = path.join(REPO_ROOT, sample);
    const table = copyTable(fs.readFileSync(path.join(sampleDir, 'README.md'), 'utf8'));
    assert.ok(table?.rows.Compose?.length && table.rows.Swarm, `${sample}/README.md: no Compose, Swarm rows`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `copy-${sample}-`));
    try {
      const compose = [...table.appFiles, ...table.rows.Compose];
      copyInto(dir, sampleDir, compose);
      const files = compose.filter((f) => /^compose\..*ya?ml$/.test(f));
      const loads = [['compose', 'config', '--quiet'], ['compose', '--profile', 'metrics', 'config', '--quiet']];
      // An alternative file (compose.postgres.yaml) is run with -f beside compose.yaml.
      for (const alt of files.filter((f) => !['compose.yaml', 'compose.override.yaml'].includes(f))) {
        loads.push(['compose', '-f', 'compose.yaml', '-f', alt, 'config', '--quiet']);
      }
      for (const args of loads) {
        const r = docker(args, dir);
        assert.equal(r.status, 0, `docker ${args.join(' ')} in a copy of ${sample}'s listed files: ${r.stderr.trim()}`);
      }
      copyInto(dir, sampleDir, table.rows.Swarm);
      // compose.swarm.yaml on compose.yaml; a further swarm file (compose.swarm.postgres.yaml) on both.
      for (const swarm of table.rows.Swarm.filter((f) => /^compose\.swarm.*ya?ml$/.test(f))) {
        const stack = ['compose.yaml', 'compose.swarm.yaml', swarm].filter((f, i, all) => all.indexOf(f) === i);
        const r = docker(['stack', 'config', ...stack.flatMap((f) => ['-c', f])], dir);
        assert.equal(r.status, 0, `docker stack config with ${swarm}, ${sample}'s listed files: ${r.stderr.trim()}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
