// Validates Kubernetes objects against the API schema of one pinned Kubernetes version, strictly:
// wrong types, missing required fields and bad enum values (the JSON schema compiled into
// kubernetes-models), and unknown fields, which the schema itself lets through but the API
// server's strict field validation rejects — found by walking the object along the same
// package's type declarations with the TypeScript compiler.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const MODELS_DIR = path.dirname(require.resolve('kubernetes-models/package.json'));
const MODELS_VERSION = JSON.parse(fs.readFileSync(path.join(MODELS_DIR, 'package.json'), 'utf8')).version;
// The Kubernetes release kubernetes-models 5.x is generated from (its CHANGELOG, 5.0.0).
export const KUBERNETES_VERSION = '1.36';
export const SCHEMA_SOURCE = `kubernetes-models ${MODELS_VERSION} (Kubernetes ${KUBERNETES_VERSION})`;

// 'apps/v1' + 'Deployment' -> 'apps/v1/Deployment'; the core group is plain 'v1'.
function modelPath(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Za-z]+$/.test(kind)) return undefined;
  if (!/^([a-z0-9.-]+\/)?v\d+[a-z0-9]*$/.test(apiVersion)) return undefined;
  const file = path.join(MODELS_DIR, apiVersion, `${kind}.d.ts`);
  return fs.existsSync(file) ? `${apiVersion}/${kind}` : undefined;
}

let typeProgram;
function typeChecker(paths) {
  const missing = paths.filter((p) => !typeProgram?.entries.has(p));
  if (missing.length) {
    const entries = new Set([...(typeProgram?.entries ?? []), ...paths]);
    const program = ts.createProgram({
      rootNames: [...entries].map((p) => path.join(MODELS_DIR, `${p}.d.ts`)),
      options: {
        noEmit: true,
        skipLibCheck: true,
        types: [],
        lib: ['lib.es5.d.ts'],
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
      },
      oldProgram: typeProgram?.program, // reuses the files already parsed
    });
    typeProgram = { entries, program, checker: program.getTypeChecker() };
  }
  return typeProgram;
}

function declaredType({ program, checker }, modelPathName, kind) {
  const file = program.getSourceFile(path.join(MODELS_DIR, `${modelPathName}.d.ts`));
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(file)).find((s) => s.name === `I${kind}`);
  return checker.getDeclaredTypeOfSymbol(exported);
}

// Every key of `value` must be a property of `type` (or fall under its index signature, as
// labels and resource lists do), recursively.
function unknownFields(checker, value, type, at, out) {
  if (value === null || typeof value !== 'object') return;
  let t = checker.getNonNullableType(type);
  if (t.isUnion()) {
    const objects = t.types.filter((m) => m.flags & ts.TypeFlags.Object);
    if (objects.length !== 1) return; // e.g. int-or-string: the schema check covers the type
    [t] = objects;
  }
  if (Array.isArray(value)) {
    const element = checker.isArrayType(t)
      ? checker.getTypeArguments(t)[0]
      : checker.getIndexTypeOfType(t, ts.IndexKind.Number);
    if (element) value.forEach((item, i) => unknownFields(checker, item, element, [...at, i], out));
    return;
  }
  const index = checker.getIndexTypeOfType(t, ts.IndexKind.String);
  for (const [key, child] of Object.entries(value)) {
    const prop = checker.getPropertyOfType(t, key);
    if (prop) unknownFields(checker, child, checker.getTypeOfSymbol(prop), [...at, key], out);
    else if (index) unknownFields(checker, child, index, [...at, key], out);
    else out.push({ path: [...at, key], message: 'unknown field' });
  }
}

function pointerToPath(pointer) {
  return pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describe(e) {
  if (e.keyword === 'enum') return `must be one of ${e.params.allowedValues.join(', ')}`;
  return e.message;
}

async function schemaErrors(obj, modelPathName) {
  const mod = await import(`kubernetes-models/${modelPathName}`);
  try {
    new mod[obj.kind](obj).validate();
    return [];
  } catch (err) {
    if (!Array.isArray(err.errors)) throw err;
    const byPath = new Map();
    for (const e of err.errors) {
      const at =
        e.keyword === 'required'
          ? [...pointerToPath(e.instancePath), e.params.missingProperty]
          : pointerToPath(e.instancePath);
      const key = at.join('/');
      if (!byPath.has(key)) byPath.set(key, { path: at, errors: [] });
      byPath.get(key).errors.push(e);
    }
    return [...byPath.values()].map(({ path: at, errors }) => {
      if (errors.some((e) => e.keyword === 'required')) return { path: at, message: 'required field is missing' };
      // int-or-string, quantities: one line for the alternatives instead of one per branch.
      const alternatives = errors.filter((e) => !['oneOf', 'anyOf'].includes(e.keyword)).map(describe);
      return { path: at, message: [...new Set(alternatives)].join(', or ').replace(/, or must /g, ', or ') };
    });
  }
}

// Returns [{ path: ['spec', 'template', ...], message }]; empty when the object is valid.
export async function validateObject(obj) {
  const modelPathName = modelPath(obj?.apiVersion, obj?.kind);
  if (!modelPathName) {
    return [
      { path: ['kind'], message: `no ${obj?.apiVersion} ${obj?.kind} in the Kubernetes ${KUBERNETES_VERSION} API` },
    ];
  }
  const found = await schemaErrors(obj, modelPathName);
  const program = typeChecker([modelPathName]);
  unknownFields(program.checker, obj, declaredType(program, modelPathName, obj.kind), [], found);
  // One message per field: a wrong type often also shows up as a member the union can't match.
  const seen = new Set();
  return found.filter((p) => {
    const key = `${p.path.join('.')}|${p.message}`;
    return !seen.has(key) && seen.add(key);
  });
}

// Builds the type program for these objects' kinds in one go (each new program costs seconds).
export function preload(objects) {
  const paths = objects.map((o) => modelPath(o.apiVersion, o.kind)).filter(Boolean);
  typeChecker([...new Set(paths)]);
}
