/**
 * The Kubernetes resources a simulated cluster serves (read-only: `get`, `list`) and the
 * discovery documents describing them, as a real API server returns them for legacy
 * (non-aggregated) discovery: `/api`, `/api/v1`, `/apis`, `/apis/discovery.k8s.io[/v1]`.
 * Names, kinds and short names are those of Kubernetes core/v1 and discovery.k8s.io/v1.
 */
import type { WireKubernetes } from '@app/domain';

/** One served resource type. */
export interface K8sResource {
  /** Plural resource name used in paths (`nodes`). */
  name: string;
  singularName: string;
  kind: string;
  /** API group, `''` for core. */
  group: '' | 'discovery.k8s.io';
  version: 'v1';
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  /** Where the objects come from: a WireKubernetes list, or synthesised namespaces. */
  source: keyof WireKubernetes | 'namespaces';
  /** Field selector labels the real API server supports for this resource (besides metadata.name/namespace). */
  fieldLabels: readonly string[];
}

/** `apiVersion` of a resource's objects. */
export const apiVersionOf = (r: K8sResource): string =>
  r.group === '' ? r.version : `${r.group}/${r.version}`;

/** Every served resource. */
export const K8S_RESOURCES: readonly K8sResource[] = [
  {
    name: 'nodes',
    singularName: 'node',
    kind: 'Node',
    group: '',
    version: 'v1',
    namespaced: false,
    shortNames: ['no'],
    categories: [],
    source: 'nodes',
    fieldLabels: ['spec.unschedulable'],
  },
  {
    name: 'namespaces',
    singularName: 'namespace',
    kind: 'Namespace',
    group: '',
    version: 'v1',
    namespaced: false,
    shortNames: ['ns'],
    categories: [],
    source: 'namespaces',
    fieldLabels: ['status.phase'],
  },
  {
    name: 'services',
    singularName: 'service',
    kind: 'Service',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    source: 'services',
    fieldLabels: ['spec.clusterIP', 'spec.type'],
  },
  {
    name: 'pods',
    singularName: 'pod',
    kind: 'Pod',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    source: 'pods',
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  },
  {
    name: 'events',
    singularName: 'event',
    kind: 'Event',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['ev'],
    categories: [],
    source: 'events',
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  {
    name: 'endpointslices',
    singularName: 'endpointslice',
    kind: 'EndpointSlice',
    group: 'discovery.k8s.io',
    version: 'v1',
    namespaced: true,
    shortNames: [],
    categories: [],
    source: 'endpointSlices',
    fieldLabels: [],
  },
];

/** Resources by `group/version` then plural name. */
export const RESOURCES_BY_GROUP_VERSION: ReadonlyMap<string, ReadonlyMap<string, K8sResource>> = (() => {
  const out = new Map<string, Map<string, K8sResource>>();
  for (const r of K8S_RESOURCES) {
    const gv = apiVersionOf(r);
    const m = out.get(gv) ?? new Map<string, K8sResource>();
    m.set(r.name, r);
    out.set(gv, m);
  }
  return out;
})();

/** `GET /api/v1` or `/apis/<group>/v1`: APIResourceList. */
export function apiResourceList(groupVersion: string): Record<string, unknown> | undefined {
  const resources = RESOURCES_BY_GROUP_VERSION.get(groupVersion);
  if (!resources) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: [...resources.values()].map((r) => ({
      name: r.name,
      singularName: r.singularName,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['get', 'list'],
      ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length > 0 ? { categories: r.categories } : {}),
    })),
  };
}

const DISCOVERY_GROUP = {
  name: 'discovery.k8s.io',
  versions: [{ groupVersion: 'discovery.k8s.io/v1', version: 'v1' }],
  preferredVersion: { groupVersion: 'discovery.k8s.io/v1', version: 'v1' },
};

/** `GET /apis`: APIGroupList (the named groups served). */
export const API_GROUP_LIST = { kind: 'APIGroupList', apiVersion: 'v1', groups: [DISCOVERY_GROUP] };

/** `GET /apis/<group>`: APIGroup, by group name. */
export const API_GROUPS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  [DISCOVERY_GROUP.name, { kind: 'APIGroup', apiVersion: 'v1', ...DISCOVERY_GROUP }],
]);

/** `GET /api`: APIVersions. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/**
 * `GET /version` from the cluster's `current_version` (ACK form `1.30.1-aliyun.1`).
 * Unparseable or missing versions report 1.30.0.
 */
export function versionInfo(currentVersion: string | undefined): Record<string, unknown> {
  const v = currentVersion ?? '1.30.0';
  const m = /^v?(\d+)\.(\d+)/.exec(v);
  return {
    major: m?.[1] ?? '1',
    minor: m?.[2] ?? '30',
    gitVersion: v.startsWith('v') ? v : `v${v}`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-01-01T00:00:00Z',
    goVersion: 'go1.22.5',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
