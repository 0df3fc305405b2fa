/**
 * The Kubernetes API calls of a live crawl (kubernetes.collector.ts makes exactly these) and the
 * least-privilege RBAC they need: `fleet-audit rbac` prints it, as `iam-policy` prints the RAM policy
 * from ram-actions.ts.
 *
 * RBAC semantics follow the Kubernetes RBAC API (https://kubernetes.io/docs/reference/access-authn-authz/rbac/):
 * a rule allows a request when its `apiGroups`, `resources` and `verbs` each contain the request's
 * value or `*`. The built-in `view` role leaves out cluster-scoped objects such as nodes, so the crawl
 * needs a ClusterRole of its own (research/reach.md 2.4). The ACK kubeconfig of DescribeClusterUserKubeconfig
 * acts as the caller's RAM identity, the numeric id of the RAM user or role (research/reach.md 2.3), which is
 * the binding's `User` subject.
 *
 * test/collectors/rbac.e2e-spec.ts keeps this list honest: a crawl through the simulator enforcing exactly
 * this ClusterRole gets no 403, and with one rule removed the coverage names that verb and resource.
 */
import type { CoverageDataset } from '@app/domain';

/** One Kubernetes API call of the crawl. */
export interface KubernetesCall {
  /** The name the collector gives the call in coverage messages (`list nodes`). */
  api: string;
  /** RBAC verb. */
  verb: 'list';
  /** API group, `''` for core. */
  group: '' | 'discovery.k8s.io';
  /** Plural resource name. */
  resource: 'nodes' | 'services' | 'pods' | 'endpointslices' | 'events';
  /** Whether it is read across all namespaces (namespaced kinds) or at cluster scope (nodes). */
  scope: 'cluster' | 'all-namespaces';
  /** The coverage entry that cannot be read without it. */
  dataset: CoverageDataset;
}

/** Every Kubernetes call of a crawl (one paged list each): what kubernetes.collector.ts `readKubernetes` lists. */
export const KUBERNETES_CALLS: readonly KubernetesCall[] = [
  { api: 'list nodes', verb: 'list', group: '', resource: 'nodes', scope: 'cluster', dataset: 'kubernetes' },
  { api: 'list services', verb: 'list', group: '', resource: 'services', scope: 'all-namespaces', dataset: 'kubernetes' },
  { api: 'list pods', verb: 'list', group: '', resource: 'pods', scope: 'all-namespaces', dataset: 'kubernetes' },
  { api: 'list endpointslices', verb: 'list', group: 'discovery.k8s.io', resource: 'endpointslices', scope: 'all-namespaces', dataset: 'kubernetes' },
  { api: 'list events', verb: 'list', group: '', resource: 'events', scope: 'all-namespaces', dataset: 'kubernetes' },
];

/** The call of a resource. @throws Error for a resource the crawl does not read (a programming error) */
export function kubernetesCallOf(resource: KubernetesCall['resource']): KubernetesCall {
  const c = KUBERNETES_CALLS.find((k) => k.resource === resource);
  if (!c) throw new Error(`no Kubernetes call for ${resource}`);
  return c;
}

/** One RBAC policy rule (rbac.authorization.k8s.io/v1 PolicyRule, the fields used here). */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** A ClusterRole (rbac.authorization.k8s.io/v1). */
export interface ClusterRoleDocument {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole';
  metadata: { name: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

/** A ClusterRoleBinding (rbac.authorization.k8s.io/v1) of a ClusterRole to users. */
export interface ClusterRoleBindingDocument {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRoleBinding';
  metadata: { name: string; labels?: Record<string, string> };
  roleRef: { apiGroup: 'rbac.authorization.k8s.io'; kind: 'ClusterRole'; name: string };
  subjects: { kind: 'User'; apiGroup: 'rbac.authorization.k8s.io'; name: string }[];
}

/** Default name of the ClusterRole and its binding. */
export const RBAC_ROLE_NAME = 'fleet-audit-read';

const LABELS = { 'app.kubernetes.io/name': 'fleet-audit' };

/**
 * The least-privilege ClusterRole of the crawl: per API group, the verbs and resources of
 * {@link KUBERNETES_CALLS}, sorted (read-only: `list` only; no secrets, no writes, no watch).
 */
export function leastPrivilegeClusterRole(name: string = RBAC_ROLE_NAME): ClusterRoleDocument {
  const byGroup = new Map<string, { resources: Set<string>; verbs: Set<string> }>();
  for (const c of KUBERNETES_CALLS) {
    let g = byGroup.get(c.group);
    if (!g) byGroup.set(c.group, (g = { resources: new Set(), verbs: new Set() }));
    g.resources.add(c.resource);
    g.verbs.add(c.verb);
  }
  const rules = [...byGroup]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, g]) => ({ apiGroups: [group], resources: [...g.resources].sort(), verbs: [...g.verbs].sort() }));
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels: LABELS }, rules };
}

/**
 * The binding of the ClusterRole to the audit identity.
 * @param users the numeric ids of the RAM users or roles the crawl runs as (the ACK kubeconfig's identity)
 */
export function clusterRoleBinding(users: readonly string[], name: string = RBAC_ROLE_NAME): ClusterRoleBindingDocument {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: LABELS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: users.map((u) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: u })),
  };
}

/** Whether the rules allow `verb` on `resource` of API `group` (`*` matches anything in each list). */
export function rbacAllows(rules: readonly PolicyRule[], verb: string, group: string, resource: string): boolean {
  const has = (list: readonly string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);
  return rules.some((r) => has(r.apiGroups, group) && has(r.resources, resource) && has(r.verbs, verb));
}

/** What a 403 of a call means for the operator: the missing verb and resource, and where the grant comes from. */
export function forbiddenHint(call: KubernetesCall): string {
  return (
    `the audit identity lacks "${call.verb}" on "${call.resource}" (API group "${call.group}"${call.scope === 'all-namespaces' ? ', all namespaces' : ''}): ` +
    `grant the ClusterRole of \`fleet-audit rbac\` (ACK: GrantPermissions / UpdateUserPermissions with is_custom)`
  );
}
