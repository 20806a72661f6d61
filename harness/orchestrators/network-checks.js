// Who may reach a sample's database on Kubernetes: each stateful workload (samples.js `stateful`)
// must be selected by a NetworkPolicy that admits ingress only from the app's pods (and the
// migrator Job's, where there is one) — no empty selector, namespace selector or IP block.
// Findings as k8s-checks.js makes them: { entry, path, message } or { field, message }.

const refOf = (obj) => `${obj.kind}/${obj.metadata?.name}`;
const podLabels = (obj) => obj.spec?.template?.metadata?.labels ?? {};
// A selector's matchLabels select a pod when every pair is among its labels (an empty one: every pod).
const selects = (selector, labels) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) && !selector?.matchExpressions;

/** The problems of one peer of a `from` list, given the pods it may admit and every pod rendered. */
function peerProblem(peer, allowed, pods) {
  if (peer.ipBlock || peer.namespaceSelector) return 'admits a namespace or an IP range, not only the app\'s pods';
  if (!Object.keys(peer.podSelector?.matchLabels ?? {}).length) return 'admits every pod (empty podSelector)';
  const admitted = pods.filter((p) => selects(peer.podSelector, podLabels(p)));
  const others = admitted.filter((p) => !allowed.includes(refOf(p)));
  if (others.length) return `admits ${others.map(refOf).join(', ')}, not only ${allowed.join(' and ')}`;
  if (!admitted.length) return `selects no rendered pod: expected ${allowed.join(' and ')}`;
  return null;
}

/**
 * @param {{ stateful?: string[], app: { workload: string }, migrator?: { job: string } }} desc
 * @param {{ obj: any }[]} entries the rendered objects
 */
export function databasePolicies(desc, entries) {
  const issues = [];
  const objs = entries.map((e) => e.obj);
  const pods = objs.filter((o) => o.spec?.template?.metadata);
  const allowed = [desc.app.workload, ...(desc.migrator ? [`Job/${desc.migrator.job}`] : [])];
  for (const ref of desc.stateful ?? []) {
    const db = objs.find((o) => refOf(o) === ref);
    if (!db) continue; // stateful() reports it missing
    const policies = entries.filter((e) => e.obj.kind === 'NetworkPolicy'
      && (e.obj.spec.policyTypes ?? ['Ingress']).includes('Ingress') && selects(e.obj.spec.podSelector, podLabels(db)));
    if (!policies.length) {
      const message = `no NetworkPolicy selects its pods: any pod may reach it, not only ${allowed.join(' and ')}`;
      issues.push({ field: ref, message });
      continue;
    }
    for (const entry of policies) {
      (entry.obj.spec.ingress ?? []).forEach((rule, i) => {
        if (!rule.from?.length) {
          issues.push({ entry, path: ['spec', 'ingress', i], message: 'admits every source (no from)' });
          return;
        }
        rule.from.forEach((peer, j) => {
          const problem = peerProblem(peer, allowed, pods);
          if (problem) issues.push({ entry, path: ['spec', 'ingress', i, 'from', j], message: problem });
        });
      });
    }
  }
  return issues;
}
