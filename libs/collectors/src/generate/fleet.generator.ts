/**
 * Deterministic generated fleets (fleet.yaml `generate:` block; `fleet-audit sim generate`).
 *
 * A seed and a few sizes build a whole WireFleet in memory, in the same native shapes a fleet
 * directory holds, following how the real CCM names, tags and picks backends
 * (`../shared/research/ccm-behaviour.md` sections 1-2), so the same checks find the problems
 * planted in it. The generator records what it planted (`GeneratedFleet.planted`) so tests can
 * assert that the checks find exactly that.
 *
 * Shapes: every CCM-created CLB carries `kubernetes.do.not.delete` = "a" + Service UID without
 * dashes cut to 32 characters and `ack.aliyun.com` = cluster id (CCM `GetDefaultTags`), one
 * listener per Service port described `k8s/{port}/{svc}/{ns}/{clusterId}` and one vServer group
 * per port named `k8s/{nodePort}/{svc}/{ns}/{clusterId}` (ENI mode: targetPort), backends per
 * mode: Cluster = every node on its NodePort, Local = nodes running ready endpoints with
 * weight = pods on the node, ENI = pod IPs (CCM clbv1/vgroups.go).
 *
 * The CCM rules themselves are not re-implemented here: names, tag keys, annotation keys, the default
 * weight and which CCM version supports which annotation come from `@app/domain` (`defaultLoadBalancerName`,
 * `vServerGroupName`, `listenerDescription`, `TAG_*`, `lbAnnotationKey`, `annotationMinimumVersion`,
 * `compareCcmVersions`), the same model the checks judge the fleet with.
 */
import { z } from 'zod';
import {
  ANNOTATION_BACKEND_TYPE,
  CCM_FEATURES,
  DEFAULT_SERVER_WEIGHT,
  FINALIZER_CLB,
  FINALIZER_NLB,
  KIND_DATA,
  emptyKindWire,
  LABEL_SERVICE_LOADBALANCER_ID,
  LB_ANNOTATION,
  NLB_ANNOTATION,
  NLB_LOAD_BALANCER_CLASS,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  TAG_REUSED_BY_USER,
  annotationMinimumVersion,
  ccmVersionAtLeast,
  compareCcmVersions,
  defaultLoadBalancerName,
  lbAnnotationKey,
  listenerDescription,
  nlbListenerDescription,
  nlbServerGroupName,
  parseCcmVersion,
  vServerGroupName,
} from '@app/domain';
import type {
  K8sEndpointSliceWire,
  K8sNodeWire,
  K8sPodWire,
  K8sServiceWire,
  WireAccount,
  WireCluster,
  WireEcsInstance,
  WireFleet,
  WireKubernetes,
  WireLoadBalancerAttribute,
  WireNlbRegion,
  WireRegion,
  WireVServerGroupAttribute,
} from '@app/domain';

/** Each load-balancer kind's wire lists, empty, by dataset (`WireRegion.nlb`, ...), in `KIND_DATA` order. */
function emptyKindWires(): Partial<WireRegion> {
  return Object.fromEntries(KIND_DATA.map((d) => [d.dataset, emptyKindWire(d)])) as Partial<WireRegion>;
}

/** The `generate:` block of fleet.yaml. Counts are totals unless named "per". Shares are fractions 0..1. */
export const generateSpecSchema = z.object({
  seed: z.number().int().default(1),
  accounts: z.number().int().min(1).max(1000).default(2),
  regions: z.array(z.string().regex(/^[a-z]{2}(-[a-z0-9]+)+$/)).min(1).default(['cn-hangzhou']),
  /** Clusters in the whole fleet, spread round-robin over accounts and regions. */
  clusters: z.number().int().min(0).max(100_000).default(4),
  nodesPerCluster: z.number().int().min(1).max(5_000).default(10),
  /** LoadBalancer Services per cluster (one CLB each unless reused). */
  servicesPerCluster: z.number().int().min(0).max(5_000).default(5),
  /**
   * NLB Services per cluster (`spec.loadBalancerClass: alibabacloud.com/nlb`, one NLB each, built as CCM's
   * nlb-controller builds it), added after the CLB Services from their own PRNG stream: a spec without them (the
   * default 0) generates exactly the fleet it generated before NLB support.
   */
  nlbServicesPerCluster: z.number().int().min(0).max(5_000).optional(),
  /** Pods (replicas) behind each Service. */
  podsPerService: z.number().int().min(1).max(1_000).default(3),
  /** Mix of Service modes; ENI Services go to Terway clusters, the rest to Flannel clusters. */
  trafficPolicy: z
    .object({ cluster: z.number().min(0).default(0.5), local: z.number().min(0).default(0.3), eni: z.number().min(0).default(0.2) })
    .default({ cluster: 0.5, local: 0.3, eni: 0.2 }),
  /** CCM versions assigned round-robin to clusters (ACK image versions). */
  ccmVersions: z.array(z.string().min(2)).min(1).default(['v2.12.3', 'v2.10.0', 'v1.9.3.313-g748f81e-aliyun']),
  /**
   * Shares of planted problems: orphaned CLBs (per cluster, of its Services), reuse of CCM-created CLBs,
   * misconfigured Services (in turn: an annotation the CCM is too old for, `backend-type: eni` on a Flannel
   * cluster, an HTTPS listener forwarding to the pods' TLS port), and Services reusing a console-created CLB
   * shared by two clusters of an account and region (`consoleReused`, default 0: same names and ports in both
   * clusters, so the reuse checks have collisions to find).
   */
  shares: z
    .object({
      orphaned: z.number().min(0).max(1).default(0.02),
      reused: z.number().min(0).max(1).default(0.02),
      misconfigured: z.number().min(0).max(1).default(0.02),
      consoleReused: z.number().min(0).max(1).default(0),
      /**
       * NLB server groups left behind per cluster, of its NLB Services (CCM builds before v2.12.4 skipped the
       * server-group cleanup of a deleted NLB Service: research/nlb.md 3.3); absent = 0.
       */
      nlbLeakedServerGroups: z.number().min(0).max(1).optional(),
    })
    .default({ orphaned: 0.02, reused: 0.02, misconfigured: 0.02, consoleReused: 0 }),
});

/** A validated generate spec. */
export type GenerateSpec = z.infer<typeof generateSpecSchema>;

/** Counts of planted problems by check id (what a correct audit must find). */
export type PlantedCounts = Record<
  | 'LB_ORPHANED'
  | 'LB_REUSE_OF_CCM_CREATED'
  | 'CCM_ANNOTATION_UNSUPPORTED'
  | 'SERVICE_ENI_ON_FLANNEL'
  | 'SERVICE_HTTPS_TO_HTTPS_PORT'
  | 'NLB_SERVER_GROUP_ORPHANED',
  number
>;

/** A generated fleet and what was planted in it. */
export interface GeneratedFleet {
  fleet: WireFleet;
  planted: PlantedCounts;
  /** Backend-server entries over all CLBs (count). */
  backendEntries: number;
}

/** mulberry32: a small, fast, deterministic PRNG (public domain algorithm). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

class Ids {
  constructor(private readonly rand: () => number) {}
  chars(alphabet: string, n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.rand() * alphabet.length)];
    return s;
  }
  uid(): string {
    const h = this.chars(HEX, 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }
  lb(): string {
    return `lb-bp1${this.chars(ALNUM, 17)}`;
  }
  rsp(): string {
    return `rsp-bp1${this.chars(ALNUM, 10)}`;
  }
  ecs(): string {
    return `i-bp1${this.chars(ALNUM, 15)}`;
  }
  vpc(): string {
    return `vpc-bp1${this.chars(ALNUM, 17)}`;
  }
  vsw(): string {
    return `vsw-bp1${this.chars(ALNUM, 17)}`;
  }
  cluster(): string {
    return `c${this.chars(HEX, 32)}`;
  }
}

/**
 * Annotations planted as "misconfigured" (suffix, value), oldest first. The CCM version that first supports
 * each is the domain's table (`CLB_ANNOTATION_MIN_VERSIONS`: ACK doc "Add annotations to the YAML file of a
 * Service to configure CLB instances", research/ccm-behaviour.md 3b): a cluster gets the first one its CCM
 * is too old for.
 */
const NEWER_ANNOTATIONS: ReadonlyArray<readonly [suffix: string, value: string]> = [
  [LB_ANNOTATION.connectionDrain, 'on'],
  [LB_ANNOTATION.ignoreWeightUpdate, 'on'],
  ['domain-extensions', ''],
];

/**
 * The first of `NEWER_ANNOTATIONS` that CCM `ccmVersion` does not support yet (`undefined` when it
 * supports them all). A version string that does not parse counts as older than every annotation.
 *
 * @throws Error when an annotation of `NEWER_ANNOTATIONS` has no row in the domain's minimum-version table
 */
function firstUnsupportedAnnotation(ccmVersion: string): readonly [key: string, value: string] | undefined {
  const installed = parseCcmVersion(ccmVersion);
  for (const [suffix, value] of NEWER_ANNOTATIONS) {
    const key = lbAnnotationKey(suffix);
    const row = annotationMinimumVersion(key, 'clb');
    const min = parseCcmVersion(row?.minimumVersion);
    if (!min) throw new Error(`fleet generator: annotation ${key} has no parseable minimum CCM version in CLB_ANNOTATION_MIN_VERSIONS`);
    if (!installed || compareCcmVersions(installed, min) < 0) return [key, value];
  }
  return undefined;
}

/**
 * A Service whose sync CCM fails: no ingress, and the Warning event CCM records (`SyncLoadBalancerFailed`, named
 * `{service}.{suffix}`, count 1, at the generated fleet's fixed time) in its cluster's events.
 */
function failSync(k8s: WireKubernetes, svc: K8sServiceWire, suffix: string, message: string): void {
  const { name, namespace, uid } = svc.metadata;
  svc.status = { loadBalancer: {} };
  k8s.events.push({
    kind: 'Event',
    metadata: { name: `${name}.${suffix}`, namespace },
    type: 'Warning',
    reason: 'SyncLoadBalancerFailed',
    message,
    count: 1,
    involvedObject: { kind: 'Service', namespace, name, uid },
    lastTimestamp: '2026-11-01T00:00:00Z',
  });
}

function tags(map: Record<string, string>): { Tag: { TagKey: string; TagValue: string }[] } {
  return { Tag: Object.entries(map).map(([TagKey, TagValue]) => ({ TagKey, TagValue })) };
}

type Mode = 'cluster' | 'local' | 'eni';

/**
 * Generate a fleet from a spec (deterministic for a given spec).
 * @param spec the `generate:` block (validated with `generateSpecSchema`)
 * @param name fleet name
 */
export function generateFleet(spec: GenerateSpec, name = `generated-seed-${spec.seed}`): GeneratedFleet {
  const rand = prng(spec.seed);
  const ids = new Ids(rand);
  const planted: PlantedCounts = {
    LB_ORPHANED: 0,
    LB_REUSE_OF_CCM_CREATED: 0,
    CCM_ANNOTATION_UNSUPPORTED: 0,
    SERVICE_ENI_ON_FLANNEL: 0,
    SERVICE_HTTPS_TO_HTTPS_PORT: 0,
    NLB_SERVER_GROUP_ORPHANED: 0,
  };
  // NLB additions draw from their own stream, so the CLB part of a fleet does not depend on them.
  const nlbRand = prng(spec.seed ^ 0x4e4c4221);
  const nlbIds = new Ids(nlbRand);
  let misconfiguredCount = 0;
  const idKey = lbAnnotationKey(LB_ANNOTATION.id);
  /** Console-created CLBs reused by Services, one per pair of clusters in an account and region. */
  const consoleLbs = new Map<string, WireLoadBalancerAttribute>();
  let backendEntries = 0;
  const accounts: WireAccount[] = [];
  const regionsByKey = new Map<string, WireRegion>();
  const vpcByKey = new Map<string, { vpcId: string; vSwitchId: string }>();
  for (let a = 0; a < spec.accounts; a++) {
    const accountId = String(1_000_000_000_000_000 + a * 7919 + spec.seed);
    const regions: WireRegion[] = spec.regions.map((regionId) => {
      // Every load-balancer kind's lists start empty (e.g. the four nlb/ lists): a generated region is read in full.
      const r: WireRegion = { regionId, loadBalancers: [], vServerGroups: [], ...emptyKindWires(), ecsInstances: [], vSwitches: [], quotas: [], clusters: [] };
      regionsByKey.set(`${accountId}|${regionId}`, r);
      const vpcId = ids.vpc();
      const vSwitchId = ids.vsw();
      vpcByKey.set(`${accountId}|${regionId}`, { vpcId, vSwitchId });
      r.vSwitches = [{ VSwitchId: vSwitchId, VpcId: vpcId, ZoneId: `${regionId}-h`, CidrBlock: '10.0.0.0/16', AvailableIpAddressCount: 60000 }];
      return r;
    });
    accounts.push({
      account: { accountId, name: `account-${a + 1}`, regions: [...spec.regions] },
      ram: { roles: [], policies: [], rolePolicies: {} },
      regions,
    });
  }
  const mix = spec.trafficPolicy;
  const eniShare = mix.eni / Math.max(mix.cluster + mix.local + mix.eni, 1e-9);
  const localOfFlannel = mix.local / Math.max(mix.cluster + mix.local, 1e-9);
  const slots = spec.accounts * spec.regions.length;
  for (let c = 0; c < spec.clusters; c++) {
    const slot = c % slots;
    const account = accounts[Math.floor(slot / spec.regions.length)];
    const regionId = spec.regions[slot % spec.regions.length];
    const accountId = account.account.accountId;
    const region = regionsByKey.get(`${accountId}|${regionId}`) as WireRegion;
    const { vpcId, vSwitchId } = vpcByKey.get(`${accountId}|${regionId}`) as { vpcId: string; vSwitchId: string };
    const clusterId = ids.cluster();
    const terway = rand() < eniShare;
    const ccmVersion = spec.ccmVersions[c % spec.ccmVersions.length];
    const apiLb = ids.lb();
    const cluster: WireCluster = {
      detail: {
        cluster_id: clusterId,
        name: `cluster-${c + 1}`,
        region_id: regionId,
        cluster_type: 'ManagedKubernetes',
        cluster_spec: 'ack.pro.small',
        state: 'running',
        current_version: '1.30.1-aliyun.1',
        created: '2025-03-01T00:00:00Z',
        vpc_id: vpcId,
        external_loadbalancer_id: apiLb,
      },
      addons: {
        addons: [
          { name: 'cloud-controller-manager', version: ccmVersion, state: 'active' },
          { name: terway ? 'terway-eniip' : 'flannel', version: terway ? 'v1.9.0' : 'v0.15.1.22-20a397e6-aliyun', state: 'active' },
        ],
      },
      // DescribeClusterResources: what ACK created with the cluster (a managed cluster names no RAM role).
      resources: [
        {
          cluster_id: clusterId,
          created: '2025-03-01T08:00:00+08:00',
          instance_id: apiLb,
          resource_info: '',
          resource_type: 'ALIYUN::SLB::LoadBalancer',
          state: 'CREATE_COMPLETE',
          auto_create: 1,
        },
      ],
      nodeSysctls: {},
      kubernetes: { nodes: [], services: [], pods: [], endpointSlices: [], events: [] },
    };
    const k8s = cluster.kubernetes as NonNullable<WireCluster['kubernetes']>;
    const lbs = region.loadBalancers as WireLoadBalancerAttribute[];
    const groups = region.vServerGroups as WireVServerGroupAttribute[];
    const ecsList = region.ecsInstances as WireEcsInstance[];
    lbs.push({
      LoadBalancerId: apiLb,
      LoadBalancerName: `k8s-apiserver-${clusterId}`,
      RegionId: regionId,
      AddressType: 'intranet',
      Address: `10.0.${c % 250}.1`,
      VpcId: vpcId,
      VSwitchId: vSwitchId,
      NetworkType: 'vpc',
      LoadBalancerSpec: 'slb.s1.small',
      LoadBalancerStatus: 'active',
      Tags: tags({ [TAG_CLUSTER_ID]: clusterId }),
      ListenerPortsAndProtocol: { ListenerPortAndProtocol: [{ ListenerPort: 6443, ListenerProtocol: 'tcp' }] },
      BackendServers: { BackendServer: [] },
    });
    // Nodes and their ECS instances.
    const nodes: { name: string; ecsId: string; ip: string }[] = [];
    for (let n = 0; n < spec.nodesPerCluster; n++) {
      const ecsId = ids.ecs();
      const ip = `10.${(c >> 8) & 255}.${c & 255}.${n % 250}`;
      const name = `${regionId}.${ip}.${n}`;
      nodes.push({ name, ecsId, ip });
      const node: K8sNodeWire = {
        kind: 'Node',
        metadata: { name, uid: ids.uid(), labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
        spec: { providerID: `${regionId}.${ecsId}` },
        status: { conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: ip }] },
      };
      k8s.nodes.push(node);
      ecsList.push({
        InstanceId: ecsId,
        InstanceName: name,
        HostName: name,
        RegionId: regionId,
        ZoneId: `${regionId}-h`,
        Status: 'Running',
        InstanceType: 'ecs.g7.xlarge',
        VpcAttributes: { VpcId: vpcId, VSwitchId: vSwitchId, PrivateIpAddress: { IpAddress: [ip] } },
        Tags: tags({ [TAG_CLUSTER_ID]: clusterId }),
      });
      (cluster.nodeSysctls as Record<string, Record<string, string>>)[ecsId] = { 'net.ipv4.ip_local_port_range': '32768\t60999' };
    }
    // LoadBalancer Services, their Pods, EndpointSlices and CLBs.
    const newer = firstUnsupportedAnnotation(ccmVersion);
    const createdLbs: string[] = [];
    for (let s = 0; s < spec.servicesPerCluster; s++) {
      let mode: Mode = terway ? 'eni' : rand() < localOfFlannel ? 'local' : 'cluster';
      const uid = ids.uid();
      const svcName = `svc-${s + 1}`;
      const ns = `team-${(s % 5) + 1}`;
      const nodePort = 30000 + ((c * 131 + s) % 2700);
      const annotations: Record<string, string> = {};
      if (mode === 'eni') annotations[ANNOTATION_BACKEND_TYPE] = 'eni';
      const reuse = createdLbs.length > 0 && rand() < spec.shares.reused;
      if (reuse) {
        annotations[idKey] = createdLbs[Math.floor(rand() * createdLbs.length)];
        planted.LB_REUSE_OF_CCM_CREATED += 1;
      }
      let misconfig: 'annotation' | 'eniOnFlannel' | 'https' | undefined;
      if (newer && rand() < spec.shares.misconfigured) {
        const turn = misconfiguredCount++ % 3;
        misconfig = turn === 1 && !terway && !reuse ? 'eniOnFlannel' : turn === 2 && !reuse ? 'https' : 'annotation';
      }
      if (misconfig === 'annotation' && newer) {
        annotations[newer[0]] = newer[1];
        planted.CCM_ANNOTATION_UNSUPPORTED += 1;
      } else if (misconfig === 'eniOnFlannel') {
        // seed 002: "can not find eniid for ip": ENI backends need Terway; CCM creates nothing.
        annotations[ANNOTATION_BACKEND_TYPE] = 'eni';
        mode = 'eni';
        planted.SERVICE_ENI_ON_FLANNEL += 1;
      } else if (misconfig === 'https') {
        // seed 002 "The plain HTTP request was sent to HTTPS port": HTTPS listener -> the pods' TLS port.
        annotations[lbAnnotationKey(LB_ANNOTATION.protocolPort)] = 'https:443';
        annotations[lbAnnotationKey(LB_ANNOTATION.certId)] = `${1000000 + c}-${regionId}`;
        planted.SERVICE_HTTPS_TO_HTTPS_PORT += 1;
      }
      const consoleReuse = !reuse && misconfig === undefined && spec.shares.consoleReused > 0 && rand() < spec.shares.consoleReused;
      let consoleLb: WireLoadBalancerAttribute | undefined;
      if (consoleReuse) {
        const pair = `${accountId}|${regionId}|${Math.floor(c / (slots * 2))}`;
        consoleLb = consoleLbs.get(pair);
        if (!consoleLb) {
          consoleLb = {
            LoadBalancerId: ids.lb(),
            LoadBalancerName: `shared-edge-${consoleLbs.size + 1}`,
            RegionId: regionId,
            AddressType: 'internet',
            Address: `47.97.${consoleLbs.size & 255}.${(consoleLbs.size >> 8) & 255}`,
            NetworkType: 'vpc',
            LoadBalancerSpec: 'slb.s2.small',
            LoadBalancerStatus: 'active',
            InstanceChargeType: 'PayBySpec',
            Tags: tags({ [TAG_REUSED_BY_USER]: 'true' }),
            ListenerPortsAndProtocol: { ListenerPortAndProtocol: [] },
            BackendServers: { BackendServer: [] },
          };
          consoleLbs.set(pair, consoleLb);
          lbs.push(consoleLb);
        }
        annotations[idKey] = consoleLb.LoadBalancerId;
        annotations[lbAnnotationKey(LB_ANNOTATION.forceOverrideListeners)] = 'true';
      }
      const https = misconfig === 'https';
      const eniOnFlannel = misconfig === 'eniOnFlannel';
      const servicePort = https ? 443 : consoleLb ? 8000 + s : 80;
      const targetPort = https ? 8443 : 8080;
      const lbId = reuse ? annotations[idKey] : consoleLb ? consoleLb.LoadBalancerId : ids.lb();
      const svc: K8sServiceWire = {
        kind: 'Service',
        metadata: { name: svcName, namespace: ns, uid, annotations, labels: { app: svcName }, finalizers: [FINALIZER_CLB] },
        spec: {
          type: 'LoadBalancer',
          externalTrafficPolicy: mode === 'local' ? 'Local' : 'Cluster',
          selector: { app: svcName },
          ports: [{ name: https ? 'https' : 'http', protocol: 'TCP', port: servicePort, targetPort, nodePort }],
        },
        status: { loadBalancer: { ingress: [{ ip: consoleLb?.Address ?? `47.96.${c & 255}.${s % 250}` }] } },
      };
      k8s.services.push(svc);
      if (eniOnFlannel)
        failSync(k8s, svc, 'eni', `Error syncing load balancer []: Message: can not find eniid for ip 172.${16 + (c % 16)}.${s % 250}.0 in vpc ${vpcId}`);
      if (reuse) {
        // CCM refuses to reuse a CCM-created CLB (clbv1/model_applier.go isLoadBalancerReusable): no
        // vServer group, no ingress, a Warning event instead.
        failSync(
          k8s,
          svc,
          'reuse',
          `Error syncing load balancer [${lbId}]: Message: alicloud: the loadbalancer ${lbId} can not be reused, can not reuse loadbalancer created by kubernetes.`,
        );
      }
      const podNodes: number[] = [];
      const endpoints: NonNullable<K8sEndpointSliceWire['endpoints']> = [];
      for (let p = 0; p < spec.podsPerService; p++) {
        const ni = Math.floor(rand() * nodes.length);
        podNodes.push(ni);
        const podIp = `172.${16 + (c % 16)}.${s % 250}.${p % 250}`;
        const podName = `${svcName}-${p}`;
        const pod: K8sPodWire = {
          kind: 'Pod',
          metadata: { name: podName, namespace: ns, labels: { app: svcName } },
          spec: { nodeName: nodes[ni].name, containers: [{ name: 'app' }] },
          status: { phase: 'Running', podIP: podIp },
        };
        k8s.pods.push(pod);
        endpoints.push({ addresses: [podIp], conditions: { ready: true }, nodeName: nodes[ni].name, targetRef: { kind: 'Pod', name: podName } });
      }
      k8s.endpointSlices.push({
        kind: 'EndpointSlice',
        metadata: { name: `${svcName}-abcde`, namespace: ns, labels: { 'kubernetes.io/service-name': svcName } },
        addressType: 'IPv4',
        ports: [{ name: https ? 'https' : 'http', port: targetPort, protocol: 'TCP' }],
        endpoints,
      });
      if (eniOnFlannel) continue;
      // Backends as CCM sets them.
      const vgName = vServerGroupName(mode === 'eni' ? targetPort : nodePort, svcName, ns, clusterId);
      let backends: NonNullable<WireVServerGroupAttribute['BackendServers']>['BackendServer'];
      if (mode === 'cluster') {
        backends = nodes.map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Port: nodePort, Weight: DEFAULT_SERVER_WEIGHT, Type: 'ecs', Description: vgName }));
      } else if (mode === 'local') {
        const pods = new Map<number, number>();
        for (const ni of podNodes) pods.set(ni, (pods.get(ni) ?? 0) + 1);
        backends = [...pods.entries()]
          .sort((x, y) => x[0] - y[0])
          .map(([ni, count]) => ({ ServerId: nodes[ni].ecsId, ServerIp: nodes[ni].ip, Port: nodePort, Weight: count, Type: 'ecs', Description: vgName }));
      } else {
        backends = endpoints.map((e, i) => ({ ServerId: `eni-bp1${String(c).padStart(6, '0')}${String(s).padStart(5, '0')}${i}`, ServerIp: e.addresses[0], Port: 8080, Weight: DEFAULT_SERVER_WEIGHT, Type: 'eni', Description: vgName }));
      }
      if (reuse) continue;
      backendEntries += backends.length;
      groups.push({ VServerGroupId: ids.rsp(), VServerGroupName: vgName, LoadBalancerId: lbId, BackendServers: { BackendServer: backends } });
      const listener = {
        ListenerPort: servicePort,
        ListenerProtocol: https ? 'https' : 'tcp',
        Description: listenerDescription(servicePort, svcName, ns, clusterId),
      };
      if (consoleLb) {
        consoleLb.ListenerPortsAndProtocol?.ListenerPortAndProtocol?.push(listener);
        continue;
      }
      createdLbs.push(lbId);
      lbs.push({
        LoadBalancerId: lbId,
        LoadBalancerName: defaultLoadBalancerName(uid),
        RegionId: regionId,
        AddressType: 'internet',
        Address: `47.96.${c & 255}.${s % 250}`,
        NetworkType: 'vpc',
        LoadBalancerSpec: 'slb.s1.small',
        LoadBalancerStatus: 'active',
        InstanceChargeType: 'PayBySpec',
        Tags: tags({ [TAG_CCM_OWNER]: defaultLoadBalancerName(uid), [TAG_CLUSTER_ID]: clusterId }),
        ListenerPortsAndProtocol: { ListenerPortAndProtocol: [listener] },
        BackendServers: { BackendServer: [] },
      });
    }
    // Only where the CCM has the NLB controller (CCM_FEATURES.nlbController, v2.5.0).
    if ((spec.nlbServicesPerCluster ?? 0) > 0 && ccmVersionAtLeast(ccmVersion, CCM_FEATURES.nlbController.sinceVersion) !== false)
      backendEntries += addNlbServices(spec, { nlbRand, nlbIds, planted }, region.nlb as WireNlbRegion, k8s, {
        c,
        clusterId,
        regionId,
        vpcId,
        vSwitchId,
        terway,
        nodes,
        localOfFlannel,
      });
    // Orphans: CCM-tagged CLBs whose Service UID no longer exists in the cluster.
    const orphans = Math.round(spec.servicesPerCluster * spec.shares.orphaned);
    for (let o = 0; o < orphans; o++) {
      const goneUid = ids.uid();
      lbs.push({
        LoadBalancerId: ids.lb(),
        LoadBalancerName: defaultLoadBalancerName(goneUid),
        RegionId: regionId,
        AddressType: 'internet',
        NetworkType: 'vpc',
        LoadBalancerSpec: 'slb.s1.small',
        LoadBalancerStatus: 'active',
        Tags: tags({ [TAG_CCM_OWNER]: defaultLoadBalancerName(goneUid), [TAG_CLUSTER_ID]: clusterId }),
        ListenerPortsAndProtocol: { ListenerPortAndProtocol: [] },
        BackendServers: { BackendServer: [] },
      });
      planted.LB_ORPHANED += 1;
    }
    region.clusters.push(cluster);
  }
  const coverage: WireFleet['coverage'] = [];
  for (const acc of accounts) {
    const accountId = acc.account.accountId;
    coverage.push({ accountId, api: 'ram', status: 'ok' });
    for (const r of acc.regions) {
      for (const api of ['slb', ...KIND_DATA.map((d) => d.dataset), 'ecs', 'vpc', 'quotas', 'cs'] as const)
        coverage.push({ accountId, regionId: r.regionId, api, status: 'ok' });
      // No quota application is generated: read as a fleet directory without quota-applications.json reads (and as the
      // simulator's Quota Center answers it, with none filed).
      coverage.push({ accountId, regionId: r.regionId, api: 'quota-applications', status: 'absent', message: 'not in the fleet directory' });
      for (const cl of r.clusters)
        for (const api of ['cluster', 'addons', 'resources', 'sysctls', 'kubernetes'] as const)
          coverage.push({ accountId, regionId: r.regionId, clusterId: cl.detail.cluster_id, api, status: 'ok' });
    }
  }
  return { fleet: { name, accounts, coverage }, planted, backendEntries };
}

/** Where the NLB Services of one cluster go (`addNlbServices`). */
interface NlbClusterPlace {
  c: number;
  clusterId: string;
  regionId: string;
  vpcId: string;
  vSwitchId: string;
  terway: boolean;
  nodes: { name: string; ecsId: string; ip: string }[];
  localOfFlannel: number;
}

/**
 * Adds `spec.nlbServicesPerCluster` NLB Services to a cluster whose CCM has the NLB controller (v2.5.0) as CCM's nlb-controller builds them
 * (pkg/controller/service/nlbv2; research/nlb.md 3-4; the model in libs/domain ccm/nlb-*.ts): `zone-maps`, the NLB
 * (default name, tags `kubernetes.do.not.delete` / `ack.aliyun.com`, DNS name as the status hostname, the
 * `loadbalancer-id` label, the `service.k8s.alibaba/nlb` finalizer), one TCP listener and one `Instance` server group
 * per port named `k8s.{port}.TCP.{svc}.{ns}.{cluster}` and tagged like the NLB, servers per mode (Cluster: every
 * node as `Ecs` on the NodePort, weight 100; Local: nodes running pods, weight = pods; ENI on Terway: pod IPs as
 * `Eni` on the targetPort). Then `shares.nlbLeakedServerGroups` of them as server groups left by a deleted Service.
 * @returns the backend entries added (servers over all groups)
 */
function addNlbServices(
  spec: GenerateSpec,
  gen: { nlbRand: () => number; nlbIds: Ids; planted: PlantedCounts },
  nlb: WireNlbRegion,
  k8s: NonNullable<WireCluster['kubernetes']>,
  p: NlbClusterPlace,
): number {
  const { nlbRand: rand, nlbIds: ids } = gen;
  let entries = 0;
  const groupTags = (owner: string) => [
    { Key: TAG_CCM_OWNER, Value: owner },
    { Key: TAG_CLUSTER_ID, Value: p.clusterId },
  ];
  const perCluster = spec.nlbServicesPerCluster ?? 0;
  for (let s = 0; s < perCluster; s++) {
    const mode: Mode = p.terway ? 'eni' : rand() < p.localOfFlannel ? 'local' : 'cluster';
    const uid = ids.uid();
    const owner = defaultLoadBalancerName(uid);
    const svcName = `nlb-svc-${s + 1}`;
    const ns = `team-${(s % 5) + 1}`;
    const nodePort = 30000 + ((p.c * 131 + 2000 + s) % 2700);
    const nlbId = `nlb-${ids.chars(ALNUM, 20)}`;
    const sgId = `sgp-${ids.chars(ALNUM, 20)}`;
    const dns = `${nlbId}.${p.regionId}.nlb.aliyuncsslb.com`;
    const annotations: Record<string, string> = { [lbAnnotationKey(NLB_ANNOTATION.zoneMaps)]: `${p.regionId}-h:${p.vSwitchId},${p.regionId}-i:${p.vSwitchId}` };
    if (mode === 'eni') annotations[ANNOTATION_BACKEND_TYPE] = 'eni';
    k8s.services.push({
      kind: 'Service',
      metadata: { name: svcName, namespace: ns, uid, annotations, labels: { app: svcName, [LABEL_SERVICE_LOADBALANCER_ID]: nlbId }, finalizers: [FINALIZER_NLB] },
      spec: {
        type: 'LoadBalancer',
        loadBalancerClass: NLB_LOAD_BALANCER_CLASS,
        externalTrafficPolicy: mode === 'local' ? 'Local' : 'Cluster',
        selector: { app: svcName },
        ports: [{ name: 'tcp', protocol: 'TCP', port: 443, targetPort: 8443, nodePort }],
      },
      status: { loadBalancer: { ingress: [{ hostname: dns }] } },
    });
    const podNodes: number[] = [];
    const endpoints: NonNullable<K8sEndpointSliceWire['endpoints']> = [];
    for (let q = 0; q < spec.podsPerService; q++) {
      const ni = Math.floor(rand() * p.nodes.length);
      podNodes.push(ni);
      const podIp = `172.${16 + (p.c % 16)}.${200 + (s % 50)}.${q % 250}`;
      const podName = `${svcName}-${q}`;
      k8s.pods.push({ kind: 'Pod', metadata: { name: podName, namespace: ns, labels: { app: svcName } }, spec: { nodeName: p.nodes[ni].name, containers: [{ name: 'app' }] }, status: { phase: 'Running', podIP: podIp } });
      endpoints.push({ addresses: [podIp], conditions: { ready: true }, nodeName: p.nodes[ni].name, targetRef: { kind: 'Pod', name: podName } });
    }
    k8s.endpointSlices.push({
      kind: 'EndpointSlice',
      metadata: { name: `${svcName}-abcde`, namespace: ns, labels: { 'kubernetes.io/service-name': svcName } },
      addressType: 'IPv4',
      ports: [{ name: 'tcp', port: 8443, protocol: 'TCP' }],
      endpoints,
    });
    const sgName = nlbServerGroupName(mode === 'eni' ? 8443 : nodePort, 'TCP', svcName, ns, p.clusterId);
    let servers: WireNlbRegion['servers'];
    if (mode === 'cluster') {
      servers = p.nodes.map((n) => ({ ServerGroupId: sgId, ServerId: n.ecsId, ServerType: 'Ecs', Port: nodePort, Weight: DEFAULT_SERVER_WEIGHT, Status: 'Available', Description: sgName }));
    } else if (mode === 'local') {
      const pods = new Map<number, number>();
      for (const ni of podNodes) pods.set(ni, (pods.get(ni) ?? 0) + 1);
      servers = [...pods.entries()]
        .sort((x, y) => x[0] - y[0])
        .map(([ni, count]) => ({ ServerGroupId: sgId, ServerId: p.nodes[ni].ecsId, ServerType: 'Ecs', Port: nodePort, Weight: count, Status: 'Available', Description: sgName }));
    } else {
      servers = endpoints.map((e, i) => ({ ServerGroupId: sgId, ServerId: `eni-bp1n${String(p.c).padStart(6, '0')}${String(s).padStart(5, '0')}${i}`, ServerIp: e.addresses[0], ServerType: 'Eni', Port: 8443, Weight: DEFAULT_SERVER_WEIGHT, Status: 'Available', Description: sgName }));
    }
    entries += servers.length;
    nlb.servers.push(...servers);
    nlb.serverGroups.push({ ServerGroupId: sgId, ServerGroupName: sgName, ServerGroupType: 'Instance', ServerGroupStatus: 'Available', Protocol: 'TCP', VpcId: p.vpcId, RelatedLoadBalancerIds: [nlbId], ServerCount: servers.length, Tags: groupTags(owner) });
    nlb.listeners.push({ ListenerId: `lsn-${ids.chars(ALNUM, 20)}`, LoadBalancerId: nlbId, ListenerProtocol: 'TCP', ListenerPort: 443, ListenerDescription: nlbListenerDescription(443, 'TCP', svcName, ns, p.clusterId), ServerGroupId: sgId, ListenerStatus: 'Running' });
    nlb.loadBalancers.push({
      LoadBalancerId: nlbId,
      LoadBalancerName: owner,
      LoadBalancerStatus: 'Active',
      AddressType: 'Internet',
      AddressIpVersion: 'ipv4',
      VpcId: p.vpcId,
      DNSName: dns,
      ZoneMappings: [
        { ZoneId: `${p.regionId}-h`, VSwitchId: p.vSwitchId },
        { ZoneId: `${p.regionId}-i`, VSwitchId: p.vSwitchId },
      ],
      RegionId: p.regionId,
      Tags: groupTags(owner),
    });
  }
  const leaked = Math.round(perCluster * (spec.shares.nlbLeakedServerGroups ?? 0));
  for (let o = 0; o < leaked; o++) {
    const goneUid = ids.uid();
    nlb.serverGroups.push({
      ServerGroupId: `sgp-${ids.chars(ALNUM, 20)}`,
      ServerGroupName: nlbServerGroupName(32000 + o, 'TCP', `gone-${o + 1}`, 'team-1', p.clusterId),
      ServerGroupType: 'Instance',
      ServerGroupStatus: 'Available',
      Protocol: 'TCP',
      VpcId: p.vpcId,
      RelatedLoadBalancerIds: [],
      ServerCount: 0,
      Tags: groupTags(defaultLoadBalancerName(goneUid)),
    });
    gen.planted.NLB_SERVER_GROUP_ORPHANED += 1;
  }
  return entries;
}
