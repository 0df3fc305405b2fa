/**
 * Acceptance cases of the NLB side of the CCM model, read from `test/ccm/nlb-cases/*.yaml` (data, not code): each
 * case is the Kubernetes input of one Service (nodes, the Service, one EndpointSlice, the cluster's CCM version,
 * the NLBs of the region when finding or reusing matters) and what CCM does with it: which controller takes it,
 * the listeners and server groups with their servers and weights, which NLB it finds, or the error it fails the
 * sync with. Each case cites the CCM nlbv2 unit test, e2e case (test/e2e/testcase/service/nlbv2/*.go) or
 * controller function it comes from, and the tag it was read at. See test/ccm/README.md.
 *
 * The loader writes the `kubectl get -o json` shapes and maps them with the product's own mapper, as for the CLB
 * cases (`ccm-cases.ts`), whose node and endpoint conventions it shares.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load as parse } from 'js-yaml';
import { z } from 'zod';
import {
  CCM_FEATURES,
  NLB_LOAD_BALANCER_CLASS,
  ccmControllerFor,
  defaultLoadBalancerName,
  eligibleBackendNodes,
  expectedNlbListeners,
  expectedNlbServerGroups,
  findServiceNlb,
  k8sEndpointSliceSchema,
  k8sNodeSchema,
  k8sServiceSchema,
  mapKubernetes,
  nlbImmutableChangeErrors,
  nlbLoadBalancerBuildError,
  nlbReuseError,
  nodeSelectionOptionsOf,
  reusedLoadBalancerId,
  serviceTrafficPolicy,
  type KubernetesSnapshot,
  type Nlb,
} from '@app/domain';
import { CASE_CLUSTER_ID, CASE_REGION, CASE_UID, annotationKey } from './ccm-cases';

/** Directory of the NLB case files. */
export const NLB_CASES_DIR = join(__dirname, 'nlb-cases');

/** The default LB name of every case's Service (`CASE_UID`). */
export const CASE_DEFAULT_NAME = defaultLoadBalancerName(CASE_UID);

/** NLB behaviours that do not depend on the CCM version (the version-dependent ones are `CCM_FEATURES` keys). */
export const NLB_BASELINE_BEHAVIOURS = {
  nlbControllerSelection: 'the NLB controller takes loadBalancerClass alibabacloud.com/nlb only; CLB skips any class; a foreign class is taken by neither',
  nlbNaming: 'listener and server group names k8s.{port}.{proto}.{svc}.{ns}.{cluster}, one per Service port and protocol',
  nlbListeners: 'listener protocol from protocol-port or the port; port ranges only in ENI mode; overlapping ports of one protocol fail',
  nlbClusterMode: 'Cluster mode: every candidate node is a server of every server group (Ecs on the NodePort, or its IP in an Ip group)',
  nlbLocalMode: 'Local mode: only nodes running ready endpoints, weight = pods on the node',
  nlbEniMode: 'ENI mode: every ready pod IP on the targetPort',
  nlbNodeRules: 'node rules shared with CLB: masters, ToBeDeletedByClusterAutoscaler, exclude labels, unknown endpoint nodes',
  nlbServerGroupType: 'server-group-type Instance (Ecs/Eni servers) or Ip (node and pod IPs)',
  nlbWeights: 'weight only on a reused NLB with vgroup-port, spread over the servers; NLB error texts',
  nlbZoneMaps: 'a new NLB needs zone-maps; a reused one does not',
  nlbReuse: 'a reused NLB must carry no CCM tag and match the Service\'s ingress hostname; immutable fields cannot change',
  nlbFind: 'CCM finds the NLB by the id annotation, else the owner tag, else the default name (never the name annotation)',
} as const;

const readyValues = ['True', 'False', 'Unknown', 'missing', 'none'] as const;

const nodeSchema = z.strictObject({
  name: z.string(),
  ecs: z.string().optional(),
  providerID: z.string().optional(),
  /** InternalIP; default 10.0.0.<index + 1>; `""` = no addresses. */
  ip: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  taints: z.array(z.string()).optional(),
  unschedulable: z.boolean().optional(),
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
  ready: z.union([z.boolean(), z.literal('unset')]).optional(),
  terminating: z.boolean().optional(),
});

/** `<Type>:<serverId>:<port>@<weight>`, Type `Ecs`, `Eni` or `Ip`. */
const serverText = z.string().regex(/^(Ecs|Eni|Ip):[^:\s]+:\d+@\d+$/, 'server must read <Ecs|Eni|Ip>:<serverId>:<port>@<weight>');

const nlbSchema = z.strictObject({
  id: z.string().regex(/^nlb-/),
  name: z.string().optional(),
  dns: z.string().optional(),
  /** Tags; the value `<default>` stands for the case Service's default LB name. */
  tags: z.record(z.string(), z.string()).default({}),
  ipVersion: z.string().optional(),
});

const caseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  behaviour: z.string(),
  source: z.string().min(10),
  tag: z.string(),
  note: z.string().optional(),
  ccmVersion: z.string().optional(),
  nodes: z.array(nodeSchema).default([{ name: 'n1' }, { name: 'n2' }]),
  service: z
    .strictObject({
      name: z.string().default('svc'),
      type: z.string().default('LoadBalancer'),
      /** `spec.loadBalancerClass`; default the NLB class, `""` for none. */
      class: z.string().default(NLB_LOAD_BALANCER_CLASS),
      policy: z.enum(['Cluster', 'Local', 'ENI']).default('Cluster'),
      /** Reused NLB (`loadbalancer-id: nlb-reused`, or `reusedId`). */
      reused: z.boolean().optional(),
      reusedId: z.string().optional(),
      /** Annotations; keys without "/" are suffixes of the alibaba-cloud-loadbalancer- prefix. zone-maps defaults on. */
      annotations: z.record(z.string(), z.string()).default({}),
      labels: z.record(z.string(), z.string()).default({}),
      /** `status.loadBalancer.ingress[0].hostname`. */
      hostname: z.string().optional(),
      ports: z.array(portSchema).default([{ name: 'http', port: 80, nodePort: 30080, targetPort: 8080 }]),
    })
    .prefault({}),
  endpoints: z
    .strictObject({
      ports: z.array(z.strictObject({ name: z.string().optional(), port: z.number().int().optional() })).default([{ name: 'http', port: 8080 }]),
      items: z.array(endpointSchema).default([]),
    })
    .default({ ports: [{ name: 'http', port: 8080 }], items: [] }),
  /** NLBs of the Service's account and region (find / reuse cases). */
  nlbs: z.array(nlbSchema).default([]),
  /**
   * Drift cases: the server groups of the region before CCM's sync. `servers` read `<Type>:<id>:<port>@<weight>`,
   * optionally `#<description>` (default: CCM's name of the group of `port`, the Service port the group serves;
   * `#` alone: no description); an `Eni` server's id is its IP (the ENI id is `eni-<ip>`).
   */
  remote: z
    .array(
      z.strictObject({
        id: z.string().regex(/^sgp-/),
        /** The group's name; `<ccm>` = CCM's name of the group of `port`. */
        name: z.string(),
        /** The Service port whose CCM group name the servers' descriptions default to (default: the first port). */
        port: z.number().int().optional(),
        type: z.enum(['Instance', 'Ip']).default('Instance'),
        servers: z.array(z.string().regex(/^(Ecs|Eni|Ip):[^:\s]+:\d+@\d+(#.*)?$/, 'server must read <Ecs|Eni|Ip>:<id>:<port>@<weight>[#<description>]')),
      }),
    )
    .optional(),
  expect: z.strictObject({
    controller: z.enum(['nlb', 'clb', 'none']).optional(),
    listeners: z.array(z.string()).optional(),
    groups: z.array(z.strictObject({ name: z.string().optional(), type: z.enum(['Instance', 'Ip']).optional(), servers: z.array(serverText) })).optional(),
    /** The NLB CCM finds: its id (or `null`) and how. */
    find: z.strictObject({ id: z.string().nullable(), by: z.enum(['id', 'tag', 'name', 'none']) }).optional(),
    /** A substring of the message CCM fails the sync with. */
    syncError: z.string().min(5).optional(),
    /**
     * Drift cases: what CCM's next sync changes in the `remote` server groups (`diff`: servers to add, to remove, to
     * rewrite), as LB_CONFIG_DRIFT counts it; all zero = the check passes.
     */
    drift: z.strictObject({ add: z.number().int(), remove: z.number().int(), rewrite: z.number().int() }).optional(),
  }),
});

/** One NLB acceptance case (defaults applied). */
export type NlbCcmCase = z.infer<typeof caseSchema> & { file: string };

/**
 * Reads and validates every NLB case file.
 * @throws Error naming the file and the first invalid field, a duplicate id or an unknown behaviour
 */
export function loadNlbCases(dir: string = NLB_CASES_DIR): NlbCcmCase[] {
  const out: NlbCcmCase[] = [];
  const ids = new Set<string>();
  const behaviours = new Set<string>([...Object.keys(NLB_BASELINE_BEHAVIOURS), ...Object.keys(CCM_FEATURES)]);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const list = z.array(z.unknown()).parse(parse(readFileSync(join(dir, file), 'utf8')));
    list.forEach((item, i) => {
      const r = caseSchema.safeParse(item);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        throw new Error(`${file} case ${i + 1}: ${issue.path.join('.')}: ${issue.message}`);
      }
      if (ids.has(r.data.id)) throw new Error(`${file}: duplicate case id ${r.data.id}`);
      if (!behaviours.has(r.data.behaviour)) throw new Error(`${file}: ${r.data.id}: unknown behaviour ${r.data.behaviour}`);
      ids.add(r.data.id);
      out.push({ ...r.data, file });
    });
  }
  return out;
}

/** The case's Kubernetes objects as the product's mapper reads them. */
export function nlbCaseKubernetes(c: NlbCcmCase): KubernetesSnapshot {
  const nodes = c.nodes.map((n, i) => {
    const ecs = n.ecs ?? `i-${n.name}`;
    const providerID = n.providerID ?? `${CASE_REGION}.${ecs}`;
    const ready = n.ready ?? 'True';
    const ip = n.ip ?? `10.0.0.${i + 1}`;
    const conditions = ready === 'none' ? [] : [{ type: 'MemoryPressure', status: 'False' }, ...(ready === 'missing' ? [] : [{ type: 'Ready', status: ready }])];
    return k8sNodeSchema.parse({
      metadata: { name: n.name, labels: n.labels ?? {} },
      spec: {
        ...(providerID !== '' ? { providerID } : {}),
        ...(n.unschedulable ? { unschedulable: true } : {}),
        taints: (n.taints ?? []).map((key) => ({ key, effect: 'NoSchedule' })),
      },
      status: { conditions, ...(ip !== '' ? { addresses: [{ type: 'InternalIP', address: ip }] } : {}) },
    });
  });
  const s = c.service;
  const annotations: Record<string, string> = { [annotationKey('zone-maps')]: 'cn-hangzhou-h:vsw-h,cn-hangzhou-i:vsw-i' };
  for (const [k, v] of Object.entries(s.annotations)) {
    if (v === '<unset>') delete annotations[annotationKey(k)];
    else annotations[annotationKey(k)] = v;
  }
  if (s.policy === 'ENI') annotations['service.beta.kubernetes.io/backend-type'] = 'eni';
  if (s.reused || s.reusedId) annotations[annotationKey('id')] = s.reusedId ?? 'nlb-reused';
  const service = k8sServiceSchema.parse({
    metadata: { name: s.name, namespace: 'default', uid: CASE_UID, annotations, labels: s.labels },
    spec: {
      type: s.type,
      ...(s.class !== '' ? { loadBalancerClass: s.class } : {}),
      externalTrafficPolicy: s.policy === 'Local' ? 'Local' : 'Cluster',
      ports: s.ports.map((p) => ({ protocol: 'TCP', ...p })),
    },
    ...(s.hostname ? { status: { loadBalancer: { ingress: [{ hostname: s.hostname }] } } } : {}),
  });
  const slice = k8sEndpointSliceSchema.parse({
    metadata: { name: `${s.name}-abcde`, namespace: 'default', labels: { 'kubernetes.io/service-name': s.name } },
    addressType: 'IPv4',
    ports: c.endpoints.ports.map((p) => ({ protocol: 'TCP', ...p })),
    endpoints: c.endpoints.items.map((e) => ({
      addresses: [e.ip],
      conditions: { ...(e.ready === 'unset' ? {} : { ready: e.ready ?? true }), ...(e.terminating ? { terminating: true } : {}) },
      ...(e.node !== undefined ? { nodeName: e.node } : {}),
      targetRef: { kind: 'Pod', name: `pod-${e.ip}` },
    })),
  });
  return mapKubernetes({ nodes, services: [service], pods: [], endpointSlices: [slice], events: [] });
}

/** The case's NLBs as snapshot NLBs (`<default>` tag values become the Service's default LB name). */
export function nlbCaseNlbs(c: NlbCcmCase): Nlb[] {
  return c.nlbs.map((n) => ({
    loadBalancerId: n.id,
    ...(n.name !== undefined ? { name: n.name } : {}),
    accountId: '1234567890123456',
    regionId: CASE_REGION,
    addressType: 'Internet',
    ...(n.ipVersion !== undefined ? { addressIpVersion: n.ipVersion } : {}),
    dnsName: n.dns ?? `${n.id}.${CASE_REGION}.nlb.aliyuncsslb.com`,
    zoneMappings: [],
    tags: Object.fromEntries(Object.entries(n.tags).map(([k, v]) => [k, v === '<default>' ? CASE_DEFAULT_NAME : v])),
    listeners: [],
    serverGroupIds: [],
  }));
}

/** What the model says for a case, in the cases' terms. */
export interface NlbModelOutcome {
  controller: 'nlb' | 'clb' | 'none';
  find: { id: string | null; by: 'id' | 'tag' | 'name' | 'none' };
  listeners?: string[];
  groups?: { name: string; type: string; servers: string[] }[];
  syncError?: string;
}

/**
 * Runs one case through the product's model: the controller (`ccmControllerFor`), CCM's NLB lookup
 * (`findServiceNlb`), then what the sync does in CCM's order: the NLB attributes (`nlbLoadBalancerBuildError`), reuse
 * validation (`nlbReuseError`) and immutable fields (`nlbImmutableChangeErrors`) against the NLB found, node
 * selection (`nodeSelectionOptionsOf`, `eligibleBackendNodes`), the listeners and server groups
 * (`expectedNlbListeners`, `expectedNlbServerGroups`).
 */
export function runNlbModel(c: NlbCcmCase): NlbModelOutcome {
  const k8s = nlbCaseKubernetes(c);
  const service = k8s.services[0]!;
  const nlbs = nlbCaseNlbs(c);
  const controller = ccmControllerFor(service, c.ccmVersion).controller;
  const found = findServiceNlb(service, {
    byId: (id) => nlbs.find((n) => n.loadBalancerId === id),
    byOwnerTag: (name) => nlbs.find((n) => n.tags['kubernetes.do.not.delete'] === name),
    byName: (name) => nlbs.find((n) => n.name === name),
  });
  const out: NlbModelOutcome = { controller, find: { id: found.nlb?.loadBalancerId ?? null, by: found.by } };
  const fail = (syncError: string): NlbModelOutcome => ({ ...out, syncError });
  const build = nlbLoadBalancerBuildError(service);
  if (build) return fail(build);
  if (found.nlb) {
    if (reusedLoadBalancerId(service)) {
      const reuse = nlbReuseError(service, found.nlb);
      if (reuse) return fail(reuse);
    }
    const immutable = nlbImmutableChangeErrors(service, found.nlb);
    if (immutable.length > 0) return fail(immutable.join('; '));
  }
  const policy = serviceTrafficPolicy(service, { networkPlugin: 'flannel', created: '2023-05-01T00:00:00Z' }).policy;
  const listeners = expectedNlbListeners(service, CASE_CLUSTER_ID, policy);
  if ('error' in listeners) return fail(listeners.error);
  const sel = nodeSelectionOptionsOf(service, c.ccmVersion);
  if ('error' in sel) return fail(sel.error);
  const model = expectedNlbServerGroups({
    service,
    clusterId: CASE_CLUSTER_ID,
    policy,
    eligible: eligibleBackendNodes(k8s.nodes, sel.options),
    endpointSlices: k8s.endpointSlices,
    ...(c.ccmVersion !== undefined ? { ccmVersion: c.ccmVersion } : {}),
    // Drift cases: the region's server groups, so that a vgroup-port naming a missing or CCM-created group fails.
    ...(c.remote
      ? {
          serverGroupById: (id: string) => {
            const g = c.remote!.find((x) => x.id === id);
            return g ? { name: g.name === '<ccm>' ? `k8s.0.TCP.${service.name}.default.${CASE_CLUSTER_ID}` : g.name } : undefined;
          },
        }
      : {}),
  });
  if ('error' in model) return fail(model.error);
  return {
    ...out,
    listeners: listeners.listeners.map((l) => l.description),
    groups: model.groups.map((g) => ({
      name: g.name,
      type: g.type,
      servers: g.servers.map((s) => `${s.type}:${s.type === 'Eni' ? (s.serverIp ?? s.serverId) : s.serverId}:${s.port}@${s.weight}`),
    })),
  };
}
