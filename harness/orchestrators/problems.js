// What every check returns: a problem names the file to change, the field in it and what is wrong.
// Fields are written the way kubectl explain reads them, with list items by name where they have
// one: spec.template.spec.containers[app].env[WORKERS].valueFrom.
export function problem(file, field, message) {
  return { file, field, message };
}

export function formatProblem(p) {
  return `${p.file}: ${p.field}: ${p.message}`;
}

// ['spec', 'containers', 0, 'image'] on the object -> 'spec.containers[app].image'.
export function fieldName(obj, path) {
  let out = '';
  let node = obj;
  for (const segment of path) {
    if (typeof segment === 'number') {
      const item = Array.isArray(node) ? node[segment] : undefined;
      out += typeof item?.name === 'string' ? `[${item.name}]` : `[${segment}]`;
    } else {
      out += out ? `.${segment}` : segment;
    }
    node = node?.[segment];
  }
  return out;
}

export function objectName(obj) {
  return `${obj?.kind}/${obj?.metadata?.name}`;
}
