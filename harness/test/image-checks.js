// What the tests can check about the samples' images without a Docker engine: the Dockerfiles
// (linted with dockerfile-utils, parsed with dockerfile-ast) and the images each compose.yaml runs.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { DockerfileParser } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { REPO_ROOT } from '../lib/repo-root.js';
import { listSamples } from '../runner/index.js';
import { FIXTURE } from './helpers.js';

// The programs a healthcheck may call in each image, as the images ship them (their Dockerfiles
// and documentation): alpine has busybox wget but no curl; the ASP.NET image has neither, so the
// app probes itself; mongo 6+ has mongosh (no legacy mongo shell); SQL Server 2025 has sqlcmd
// under mssql-tools18.
export const IMAGE_PROGRAMS = [
  { image: /^node:\d+\.\d+\.\d+-alpine/, programs: ['node', 'wget', 'sh'] },
  { image: /^(nginxinc\/nginx-unprivileged|nginx):\d+\.\d+\.\d+-alpine/, programs: ['nginx', 'wget', 'sh'] },
  { image: /^mcr\.microsoft\.com\/dotnet\/aspnet:10\./, programs: ['dotnet'] },
  { image: /^mongo:8\./, programs: ['mongosh', 'mongod', 'bash', 'sh'] },
  { image: /^mcr\.microsoft\.com\/mssql\/server:2025-/, programs: ['/opt/mssql-tools18/bin/sqlcmd', 'bash', 'sh'] },
];

// A tag naming a patch release (1.30.6, 26.12.1-alpine, 10.0.12), a SQL Server cumulative update
// (2025-CU9-...), or a digest.
export const isPinned = (ref) => /@sha256:[0-9a-f]{64}$/.test(ref) || /:(\d+\.\d+\.\d+|\d{4}-CU\d+)(\b|-|$)/.test(ref);

// Every rule of the linter as an error.
const STRICT = Object.fromEntries(
  [
    'deprecatedMaintainer',
    'directiveCasing',
    'emptyContinuationLine',
    'instructionCasing',
    'instructionCmdMultiple',
    'instructionEntrypointMultiple',
    'instructionHealthcheckMultiple',
    'instructionJSONInSingleQuotes',
    'instructionWorkdirRelative',
  ].map((k) => [k, ValidationSeverity.ERROR]),
);

// The image a Dockerfile's last stage starts from (following `FROM <stage>`).
export function finalBase(text) {
  const froms = DockerfileParser.parse(text).getFROMs();
  const byStage = new Map(froms.filter((f) => f.getBuildStage()).map((f) => [f.getBuildStage(), f]));
  let from = froms.at(-1);
  while (from && byStage.has(from.getImage()) && byStage.get(from.getImage()) !== from)
    from = byStage.get(from.getImage());
  return from?.getImage();
}

/** Everything wrong with a Dockerfile, one line each (empty when it passes). */
export function dockerfileProblems(text) {
  const problems = validate(text, STRICT).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
  const doc = DockerfileParser.parse(text);
  const froms = doc.getFROMs();
  const stages = new Set(froms.map((f) => f.getBuildStage()).filter(Boolean));
  for (const from of froms) {
    const image = from.getImage() ?? '';
    if (!stages.has(image) && !isPinned(image))
      problems.push(`FROM ${image}: not pinned to a patch release or a digest`);
  }
  const lastFrom = froms.at(-1);
  const finalStage = doc
    .getInstructions()
    .filter((i) => !lastFrom || i.getRange().start.line >= lastFrom.getRange().start.line);
  const user = finalStage.filter((i) => i.getKeyword() === 'USER').at(-1)?.getArgumentsContent()?.trim();
  if (!user || /^(root|0)(:.*)?$/.test(user)) problems.push('the final stage runs as root: add USER <a non-root user>');
  for (const i of [...doc.getENTRYPOINTs(), ...doc.getCMDs()]) {
    if (i.getJSONStrings().length === 0)
      problems.push(`${i.getKeyword()} ${i.getArgumentsContent()}: shell form; use the exec form ["program", "arg"]`);
  }
  return problems;
}

/** The program a compose healthcheck runs: CMD's first word, or CMD-SHELL's. */
export function healthcheckProgram(test) {
  const [kind, ...rest] = Array.isArray(test) ? test : ['CMD-SHELL', test];
  if (kind === 'NONE') return undefined;
  return kind === 'CMD-SHELL' ? String(rest[0]).trim().split(/\s+/)[0] : rest[0];
}

/** Why a healthcheck's program is not in the image it runs in, or undefined. */
export function healthcheckProblem(image, program) {
  const facts = IMAGE_PROGRAMS.find((f) => f.image.test(image));
  if (!facts) return `${image}: unknown image; add what it ships to IMAGE_PROGRAMS in harness/test/image-checks.js`;
  return facts.programs.includes(program)
    ? undefined
    : `${image} has no ${program} (it has: ${facts.programs.join(', ')})`;
}

/** The samples' compose files (and the runner's test fixture), parsed. */
export function composeFiles() {
  return [...listSamples().map((s) => path.join(REPO_ROOT, s)), FIXTURE].map((dir) => ({
    dir,
    name: path.relative(REPO_ROOT, path.join(dir, 'compose.yaml')),
    doc: YAML.parse(fs.readFileSync(path.join(dir, 'compose.yaml'), 'utf8')),
  }));
}

/** Each compose service with the image it runs: its image:, or the base of the Dockerfile it builds. */
export function services() {
  return composeFiles().flatMap(({ dir, name, doc }) => Object.entries(doc.services ?? {}).map(([service, svc]) => {
    const context = typeof svc.build === 'string' ? svc.build : svc.build?.context;
    const dockerfile = svc.build ? path.join(dir, context ?? '.', svc.build?.dockerfile ?? 'Dockerfile') : undefined;
    const image = dockerfile ? finalBase(fs.readFileSync(dockerfile, 'utf8')) : svc.image;
    return { compose: name, service, image, built: Boolean(dockerfile), healthcheck: svc.healthcheck };
  }));
}

/** The samples' Dockerfiles. */
export function dockerfiles() {
  return listSamples().map((s) => path.join(REPO_ROOT, s, 'Dockerfile')).filter((f) => fs.existsSync(f))
    .map((file) => ({ file, name: path.relative(REPO_ROOT, file), text: fs.readFileSync(file, 'utf8') }));
}
