// An ESLint rule: outside harness/runner, code reaches the runner through harness/runner/index.js
// only — never one of its internal files (generic helpers it shares are in harness/lib/). Covers
// import and export-from declarations, import(), require() and new URL(path, import.meta.url)
// whose path is a string.
import path from 'node:path';

const literal = (node) => {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return undefined;
};

const importMetaUrl = (node) => node?.type === 'MemberExpression' && node.object.type === 'MetaProperty'
  && node.property.type === 'Identifier' && node.property.name === 'url';

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'reach the local runner through harness/runner/index.js only' },
    messages: {
      internal: '{{ target }} is internal to the runner: use harness/runner/index.js (generic helpers: harness/lib/)',
    },
    schema: [],
  },
  create(context) {
    const runner = path.join(context.cwd, 'harness', 'runner');
    const face = path.join(runner, 'index.js');
    const within = (file) => file.startsWith(`${runner}${path.sep}`);
    if (within(context.filename)) return {};
    const check = (node, spec) => {
      if (spec === undefined || !spec.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), spec);
      if (within(target) && target !== face) {
        context.report({ node, messageId: 'internal', data: { target: path.relative(context.cwd, target) } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, literal(node.source)),
      ExportNamedDeclaration: (node) => check(node, literal(node.source)),
      ExportAllDeclaration: (node) => check(node, literal(node.source)),
      ImportExpression: (node) => check(node, literal(node.source)),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require')
          check(node, literal(node.arguments[0]));
      },
      NewExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'URL' && importMetaUrl(node.arguments[1]))
          check(node, literal(node.arguments[0]));
      },
    };
  },
};
