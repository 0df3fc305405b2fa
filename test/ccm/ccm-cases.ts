/**
 * Acceptance cases of the CCM model, read from `test/ccm/cases/*.yaml` (data, not code): each case is the
 * Kubernetes input of one CLB Service (nodes, Service, one EndpointSlice, the cluster's CCM version) and what
 * CCM sets for it (the vServer groups with their backends and weights) or the error CCM fails the sync with,
 * citing the CCM test or file+function (and tag) it comes from. See test/ccm/README.md for the format.
 *
 * The loader turns a case into the wire shapes `kubectl get -o json` prints and maps them with the product's
 * own mapper (`mapKubernetes`), so conditions such as a missing Ready condition or an unset endpoint `ready`
 * reach the model exactly as a scan would deliver them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load as parse } from 'js-yaml';
import { z } from 'zod';
import {
  CCM_FEATURES,
  eligibleBackendNodes,
  expectedVServerGroups,
  k8sEndpointSliceSchema,
  k8sNodeSchema,
  k8sServiceSchema,
  mapKubernetes,
  nodeSelectionOptionsOf,
  serviceTrafficPolicy,
  type KubernetesSnapshot,
} from '@app/domain';

/** Directory of the case files. */
export const CASES_DIR = join(__dirname, 'cases');

/** Cluster id every case uses (CCM's own fixtures use `clusterid`). */
export const CASE_CLUSTER_ID = 'clusterid';
/** Region of the providerIDs the loader writes (`cn-hangzhou.<ecs id>`, service_controller_test.go fixtures). */
export const CASE_REGION = 'cn-hangzhou';
/** LB annotation prefix; case annotations without a `/` are suffixes of it. */
export const LB_PREFIX = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';
/** Service UID of every case (CCM annotations_test.go TestGetDefaultLoadBalancerName fixture). */
export const CASE_UID = '5e4dbfc9-c2ae-4642-b033-5607860aef6a';

/**
 * Behaviours that do not depend on the CCM version (the version-dependent ones are the keys of
 * `CCM_FEATURES`). Each case names one behaviour from either list; docs/ccm-model.md counts cases per behaviour.
 */
export const BASELINE_BEHAVIOURS = {
  clusterAllNodes: 'Cluster mode: every candidate node is an ECS backend on the NodePort, weight 100',
  masterLabel:
    'nodes labelled node-role.kubernetes.io/master are dropped (only that key; control-plane is not checked)',
  nodeReadiness: 'nodes with no conditions or a Ready condition that is not True are dropped; others kept',
  excludeLabels: 'exclude labels (any value) and their legacy keys drop a node from the backends',
  backendLabel: 'backend-label k1=v1,k2=v2 keeps only nodes carrying every pair',
  providerId: 'the ECS id is read from providerID (region.id or alicloud://region.id)',
  localMode: 'Local mode: only nodes running ready endpoints, weight = pods on the node, one backend per ECS',
  virtualKubelet: 'virtual-kubelet nodes: kept whatever their conditions; their pods join as ENI backends',
  eniMode: 'ENI mode: every ready pod IP on the target port; node rules do not apply',
  endpointConditions:
    'EndpointSlice: only addresses with ready set and true, not terminating, deduplicated by IP',
  namedTargetPort: 'a named targetPort is resolved from the EndpointSlice port of the same name',
  naming: 'vServer group name k8s/{NodePort|targetPort}/{svc}/{ns}/{cluster}, one per Service port',
  annotationPrefix: 'annotations: the alibaba-cloud- prefix wins over the legacy alicloud- prefix',
  syncFailure: 'CCM fails the sync before changing any vServer group (message as CCM writes it)',
} as const;

/** Every behaviour key a case may name. */
export type BehaviourKey = keyof typeof BASELINE_BEHAVIOURS | keyof typeof CCM_FEATURES;

const readyValues = ['True', 'False', 'Unknown', 'missing', 'none'] as const;

const nodeSchema = z.strictObject({
  name: z.string(),
  /** ECS id; default `i-<name>`. */
  ecs: z.string().optional(),
  /** Full providerID, overriding `cn-hangzhou.<ecs>`; `""` = no providerID. */
  providerID: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  /** Taint keys (effect NoSchedule). */
  taints: z.array(z.string()).optional(),
  unschedulable: z.boolean().optional(),
  /** Ready condition status; `missing` = conditions without one of type Ready; `none` = no conditions. */
  ready: z.enum(readyValues).optional(),
});

const portSchema = z.strictObject({
  name: z.string().optional(),
  protocol: z.string().optional(),
  port: z.number().int(),
  nodePort: z.number().int().optional(),
  targetPort: z.union([z.number().int(), z.string()]).optional(),
});

const endpointSchema = z.strictObject({
  ip: z.string(),
  node: z.string().optional(),
  /** `unset` = no `ready` condition at all. Default true. */
  ready: z.union([z.boolean(), z.literal('unset')]).optional(),
  terminating: z.boolean().optional(),
});

/** `<serverId>:<port>@<weight>`; a server id that is an IPv4 address is an ENI (pod) backend. */
const backendText = z.string().regex(/^[^:\s]+:\d+@\d+$/, 'backend must read <serverId>:<port>@<weight>');

const caseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  behaviour: z.string(),
  /** CCM test or file + function the case comes from. */
  source: z.string().min(10),
  /** The CCM tag whose code / test the case was read from. */
  tag: z.string(),
  /** Why, when e2e expectations and the controller disagree (the controller wins), or other context. */
  note: z.string().optional(),
  /** The cluster's CCM version; absent = the current CCM. */
  ccmVersion: z.string().optional(),
  nodes: z.array(nodeSchema),
  service: z.strictObject({
    name: z.string().default('svc'),
    policy: z.enum(['Cluster', 'Local', 'ENI']).default('Cluster'),
    /** Reused CLB (`loadbalancer-id: lb-reused`). */
    reused: z.boolean().optional(),
    annotations: z.record(z.string(), z.string()).default({}),
    ports: z.array(portSchema).default([{ name: 'http', port: 80, nodePort: 30080, targetPort: 8080 }]),
  }),
  endpoints: z
    .strictObject({
      ports: z
        .array(z.strictObject({ name: z.string().optional(), port: z.number().int().optional() }))
        .default([{ name: 'http', port: 8080 }]),
      items: z.array(endpointSchema).default([]),
    })
    .default({ ports: [{ name: 'http', port: 8080 }], items: [] }),
  expect: z.union([
    z.strictObject({
      groups: z.array(z.strictObject({ name: z.string().optional(), backends: z.array(backendText) })),
    }),
    z.strictObject({ syncError: z.string().min(5) }),
  ]),
});

/** One acceptance case as written in the YAML files (defaults applied). */
export type CcmCase = z.infer<typeof caseSchema> & { file: string };

/** An expected backend, parsed from `<serverId>:<port>@<weight>`. */
export interface CaseBackend {
  serverId: string;
  type: 'ecs' | 'eni';
  port: number;
  weight: number;
}

/** Parses `<serverId>:<port>@<weight>`. */
export function parseCaseBackend(text: string): CaseBackend {
  const m = /^([^:\s]+):(\d+)@(\d+)$/.exec(text);
  if (!m) throw new Error(`backend "${text}" must read <serverId>:<port>@<weight>`);
  const serverId = m[1]!;
  return {
    serverId,
    type: /^\d+\.\d+\.\d+\.\d+$/.test(serverId) ? 'eni' : 'ecs',
    port: Number(m[2]),
    weight: Number(m[3]),
  };
}

/**
 * Reads and validates every case file.
 * @throws Error naming the file and the first invalid field, for a malformed case or a duplicate id
 */
export function loadCases(dir: string = CASES_DIR): CcmCase[] {
  const out: CcmCase[] = [];
  const ids = new Set<string>();
  const behaviours = new Set<string>([...Object.keys(BASELINE_BEHAVIOURS), ...Object.keys(CCM_FEATURES)]);
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const raw: unknown = parse(readFileSync(join(dir, file), 'utf8'));
    const list = z.array(z.unknown()).parse(raw);
    list.forEach((item, i) => {
      const r = caseSchema.safeParse(item);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        throw new Error(`${file} case ${i + 1}: ${issue.path.join('.')}: ${issue.message}`);
      }
      if (ids.has(r.data.id)) throw new Error(`${file}: duplicate case id ${r.data.id}`);
      if (!behaviours.has(r.data.behaviour))
        throw new Error(`${file}: ${r.data.id}: unknown behaviour ${r.data.behaviour}`);
      ids.add(r.data.id);
      out.push({ ...r.data, file });
    });
  }
  return out;
}

/** The full annotation key of a case annotation (`default-weight` -> the LB prefix + it). */
export function annotationKey(key: string): string {
  return key.includes('/') ? key : `${LB_PREFIX}${key}`;
}

/** The case's Kubernetes objects, as the product's mapper reads them from `kubectl get -o json`. */
export function caseKubernetes(c: CcmCase): KubernetesSnapshot {
  const nodes = c.nodes.map((n) => {
    const ecs = n.ecs ?? `i-${n.name}`;
    const providerID = n.providerID ?? `${CASE_REGION}.${ecs}`;
    const ready = n.ready ?? 'True';
    const conditions =
      ready === 'none'
        ? []
        : [
            { type: 'MemoryPressure', status: 'False' },
            ...(ready === 'missing' ? [] : [{ type: 'Ready', status: ready }]),
          ];
    return k8sNodeSchema.parse({
      metadata: { name: n.name, labels: n.labels ?? {} },
      spec: {
        ...(providerID !== '' ? { providerID } : {}),
        ...(n.unschedulable ? { unschedulable: true } : {}),
        taints: (n.taints ?? []).map((key) => ({ key, effect: 'NoSchedule' })),
      },
      status: { conditions },
    });
  });
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.service.annotations)) annotations[annotationKey(k)] = v;
  if (c.service.policy === 'ENI') annotations['service.beta.kubernetes.io/backend-type'] = 'eni';
  if (c.service.reused) annotations[annotationKey('id')] = 'lb-reused';
  const service = k8sServiceSchema.parse({
    metadata: { name: c.service.name, namespace: 'default', uid: CASE_UID, annotations },
    spec: {
      type: 'LoadBalancer',
      externalTrafficPolicy: c.service.policy === 'Local' ? 'Local' : 'Cluster',
      ports: c.service.ports.map((p) => ({ protocol: 'TCP', ...p })),
    },
  });
  const slice = k8sEndpointSliceSchema.parse({
    metadata: {
      name: `${c.service.name}-abcde`,
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': c.service.name },
    },
    addressType: 'IPv4',
    ports: c.endpoints.ports.map((p) => ({ protocol: 'TCP', ...p })),
    endpoints: c.endpoints.items.map((e) => ({
      addresses: [e.ip],
      conditions: {
        ...(e.ready === 'unset' ? {} : { ready: e.ready ?? true }),
        ...(e.terminating ? { terminating: true } : {}),
      },
      ...(e.node !== undefined ? { nodeName: e.node } : {}),
      targetRef: { kind: 'Pod', name: `pod-${e.ip}` },
    })),
  });
  return mapKubernetes({ nodes, services: [service], pods: [], endpointSlices: [slice], events: [] });
}

/** What the model says for a case, in the cases' terms. */
export type ModelOutcome = { groups: { name: string; backends: CaseBackend[] }[] } | { syncError: string };

/**
 * Runs one case through the product's CCM model: node selection (`nodeSelectionOptionsOf`,
 * `eligibleBackendNodes`), the Service's mode (`serviceTrafficPolicy`, Flannel cluster) and the backends
 * (`expectedVServerGroups`).
 */
export function runModel(c: CcmCase): ModelOutcome {
  const k8s = caseKubernetes(c);
  const service = k8s.services[0]!;
  const sel = nodeSelectionOptionsOf(service, c.ccmVersion);
  if ('error' in sel) return { syncError: sel.error };
  const policy = serviceTrafficPolicy(service, {
    networkPlugin: 'flannel',
    created: '2023-05-01T00:00:00Z',
  }).policy;
  const model = expectedVServerGroups({
    service,
    clusterId: CASE_CLUSTER_ID,
    policy,
    eligible: eligibleBackendNodes(k8s.nodes, sel.options),
    endpointSlices: k8s.endpointSlices,
    ...(c.ccmVersion !== undefined ? { ccmVersion: c.ccmVersion } : {}),
  });
  if ('error' in model) return { syncError: model.error };
  return {
    groups: model.groups.map((g) => ({
      name: g.name,
      backends: g.backends.map((b) => ({
        serverId: b.type === 'eni' ? (b.serverIp ?? b.serverId) : b.serverId,
        type: b.type,
        port: b.port,
        weight: b.weight,
      })),
    })),
  };
}
