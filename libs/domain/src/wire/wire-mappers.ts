/**
 * Pure mappers from wire shapes (WireFleet) to the normalised FleetSnapshot.
 *
 * Every list is sorted by its id so that the same fleet read offline or live (where API paging
 * order may differ) gives a deep-equal snapshot.
 */
import type {
  AccountSnapshot,
  BackendServer,
  BackendServerType,
  Clb,
  ClusterSnapshot,
  EcsInstance,
  FleetSnapshot,
  K8sEndpointSlice,
  K8sEvent,
  K8sNode,
  K8sPod,
  K8sService,
  KubernetesSnapshot,
  NetworkPlugin,
  PortRange,
  QuotaApplicationRecord,
  QuotaValue,
  RamPolicy,
  RamSnapshot,
  RamStatement,
  RegionSnapshot,
  VServerGroup,
  VSwitch,
} from '../snapshot.types';
import { coverageKey } from '../scan-target';
import { KIND_DATA } from '../lb-kinds';
import { kindWireOf, type KindRegionMapper, type LoadBalancerKindData } from '../lb-kinds/kind-data';
import type {
  WireAccount,
  WireCluster,
  WireFleet,
  WireKubernetes,
  WireRam,
  WireRegion,
} from './wire-fleet.types';
import type {
  K8sEndpointSliceWire,
  K8sEventWire,
  K8sNodeWire,
  K8sPodWire,
  K8sServiceWire,
  WireClusterDetail,
  WireEcsInstance,
  WireLoadBalancerAttribute,
  WireQuotaApplication,
  WireVServerGroupAttribute,
} from './wire.schemas';
import type { WireNlbRegion } from './wire-nlb.schemas';

/** Kubernetes default `--service-node-port-range` (kube-apiserver docs; seed 000 "NodePort range"). */
export const DEFAULT_NODE_PORT_RANGE: Readonly<PortRange> = { from: 30000, to: 32767 };

import { sortBy } from './sort-by.util';

export { sortBy };

/** Map a whole wire fleet to a FleetSnapshot (sorted, deterministic). */
export function mapWireFleet(wire: WireFleet): FleetSnapshot {
  return {
    name: wire.name,
    accounts: sortBy(wire.accounts.map(mapAccount), (a) => a.accountId),
    coverage: sortBy([...wire.coverage], coverageKey),
  };
}

function mapAccount(a: WireAccount): AccountSnapshot {
  const accountId = a.account.accountId;
  return {
    accountId,
    name: a.account.name || accountId,
    regions: sortBy(
      a.regions.map((r) => mapRegion(accountId, r)),
      (r) => r.regionId,
    ),
    ...(a.ram ? { ram: mapRam(a.ram) } : {}),
  };
}

function toArray(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/**
 * Parse a RAM policy document (JSON string). Grammar: alibabacloud.com/help/en/ram/policy-structure-and-syntax
 * (Action/NotAction/Resource are a string or an array). An unparsable document yields no statements.
 */
export function parsePolicyDocument(doc: string): RamStatement[] {
  return parsePolicyDocumentChecked(doc).statements;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parse a RAM policy document and say why when it cannot be: not JSON, not a JSON object, or a
 * `Statement` that is not an object or a list of objects. `statements` is then empty and the
 * caller must not read it as "allows nothing" (CCM_RAM_PERMISSION_GAP skips instead of failing).
 * @returns the statements, and `error` (one line, without the document's text) when unparsable
 */
export function parsePolicyDocumentChecked(doc: string): { statements: RamStatement[]; error?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(doc);
  } catch {
    return { statements: [], error: 'the policy document is not valid JSON' };
  }
  if (!isObject(parsed)) return { statements: [], error: 'the policy document is not a JSON object' };
  const stmts = parsed.Statement;
  const list: unknown[] = Array.isArray(stmts) ? stmts : stmts ? [stmts] : [];
  if (!list.every(isObject))
    return { statements: [], error: "the policy document's Statement is not an object or a list of objects" };
  return {
    statements: (list as Record<string, unknown>[]).map((s) => ({
      effect: s.Effect === 'Deny' ? 'Deny' : 'Allow',
      actions: toArray(s.Action),
      notActions: toArray(s.NotAction),
      resources: toArray(s.Resource),
    })),
  };
}

function mapRam(r: WireRam): RamSnapshot {
  const policies: RamPolicy[] = sortBy(
    r.policies.map((p) => {
      const doc = parsePolicyDocumentChecked(p.PolicyDocument);
      return {
        policyName: p.PolicyName,
        policyType: p.PolicyType,
        ...(p.DefaultVersion !== undefined ? { defaultVersion: p.DefaultVersion } : {}),
        statements: doc.statements,
        ...(doc.error !== undefined ? { documentError: doc.error } : {}),
      };
    }),
    (p) => `${p.policyType}|${p.policyName}`,
  );
  const rolePolicies: RamSnapshot['rolePolicies'] = {};
  for (const role of Object.keys(r.rolePolicies).sort()) {
    rolePolicies[role] = sortBy(
      r.rolePolicies[role].map((p) => ({ policyName: p.PolicyName, policyType: p.PolicyType })),
      (p) => `${p.policyType}|${p.policyName}`,
    );
  }
  return {
    roles: sortBy(
      r.roles.map((x) => ({
        roleName: x.RoleName,
        ...(x.RoleId !== undefined ? { roleId: x.RoleId } : {}),
        ...(x.Arn !== undefined ? { arn: x.Arn } : {}),
        ...(x.Description !== undefined ? { description: x.Description } : {}),
      })),
      (x) => x.roleName,
    ),
    policies,
    rolePolicies,
  };
}

function mapRegion(accountId: string, r: WireRegion): RegionSnapshot {
  const out: RegionSnapshot = {
    accountId,
    regionId: r.regionId,
    clusters: sortBy(
      r.clusters.map((c) => mapCluster(accountId, c)),
      (c) => c.clusterId,
    ),
  };
  const lists = new RegionListsMapper(accountId, r.regionId);
  lists.add(r);
  Object.assign(out, lists.result());
  if (r.vSwitches)
    out.vSwitches = sortBy(
      r.vSwitches.map((v): VSwitch => ({
        vSwitchId: v.VSwitchId,
        ...(v.VpcId !== undefined ? { vpcId: v.VpcId } : {}),
        ...(v.ZoneId !== undefined ? { zoneId: v.ZoneId } : {}),
        ...(v.CidrBlock !== undefined ? { cidrBlock: v.CidrBlock } : {}),
        ...(v.AvailableIpAddressCount !== undefined
          ? { availableIpAddressCount: v.AvailableIpAddressCount }
          : {}),
      })),
      (v) => v.vSwitchId,
    );
  if (r.quotas)
    out.quotas = sortBy(
      r.quotas.map((q): QuotaValue => ({
        quotaActionCode: q.QuotaActionCode,
        totalQuota: q.TotalQuota,
        ...(q.TotalUsage !== undefined ? { totalUsage: q.TotalUsage } : {}),
        ...(q.Dimensions ? { dimensions: q.Dimensions } : {}),
        ...(q.Adjustable !== undefined ? { adjustable: q.Adjustable } : {}),
        ...(q.UnadjustableDetail !== undefined ? { unadjustableDetail: q.UnadjustableDetail } : {}),
        ...(q.ApplicableRange !== undefined ? { applicableRange: q.ApplicableRange } : {}),
      })),
      (q) => q.quotaActionCode,
    );
  if (r.quotaApplications) out.quotaApplications = quotaApplicationsOf(r.quotaApplications);
  return out;
}

/**
 * ListQuotaApplications items as `QuotaApplicationRecord`s, sorted by quota code, then apply time, then id (a stable
 * order whatever order the pages came in). An item without `ProductCode` is `slb`, as in ListProductQuotas.
 */
export function quotaApplicationsOf(items: readonly WireQuotaApplication[]): QuotaApplicationRecord[] {
  const out = items.map(
    (a): QuotaApplicationRecord => ({
      applicationId: a.ApplicationId,
      productCode: a.ProductCode ?? 'slb',
      quotaActionCode: a.QuotaActionCode,
      status: a.Status,
      desireValue: a.DesireValue,
      ...(a.ApproveValue !== undefined && a.ApproveValue !== null ? { approveValue: a.ApproveValue } : {}),
      ...(a.AuditReason ? { auditReason: a.AuditReason } : {}),
      ...(a.Reason ? { reason: a.Reason } : {}),
      ...(a.ApplyTime ? { applyTime: a.ApplyTime } : {}),
    }),
  );
  return out.sort(
    (x, y) =>
      cmp(x.quotaActionCode, y.quotaActionCode) || cmp(x.applyTime ?? '', y.applyTime ?? '') || cmp(x.applicationId, y.applicationId),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Returns one shared string object per distinct value: the first string seen with a value is kept and returned
 * for every later equal one. See {@link internPool}.
 */
export type Intern = (s: string) => string;

/**
 * A string intern pool for mapping one region's lists. Parsed JSON (the crawl's SDK responses, a stored slice)
 * gives every field of every item its own string, so a region's backend entries repeat each ECS id, IP and vServer
 * group description as many times as the instance is attached: at 10M backend entries that was 1.25 GB of copies
 * (40 % of the snapshot), and every id lookup compared string contents instead of pointers.
 * Interned, an id is stored once per region and equal ids are the same object (the index's maps then match them
 * by pointer and reuse the string's cached hash). Values stay the same; only the copies go.
 */
export function internPool(): Intern {
  const pool = new Map<string, string>();
  return (s) => {
    const known = pool.get(s);
    if (known !== undefined) return known;
    pool.set(s, s);
    return s;
  };
}

function tagMap(tags: { Tag: { TagKey: string; TagValue: string }[] } | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags?.Tag ?? []) out[t.TagKey] = t.TagValue;
  return out;
}

function backendType(t: string | undefined): BackendServerType {
  return t === 'eni' || t === 'eci' ? t : 'ecs';
}

/** One CLB backend server (a BackendServer item); its id, IP and description interned. */
function mapBackend(
  b: { ServerId: string; ServerIp?: string; Port?: number; Weight?: number; Type?: string; Description?: string },
  intern: Intern,
): BackendServer {
  return {
    serverId: intern(b.ServerId),
    ...(b.ServerIp !== undefined ? { serverIp: intern(b.ServerIp) } : {}),
    ...(b.Port !== undefined ? { port: b.Port } : {}),
    weight: b.Weight ?? 100,
    type: backendType(b.Type),
    ...(b.Description !== undefined && b.Description !== '' ? { description: intern(b.Description) } : {}),
  };
}

const backendKey = (b: BackendServer) => `${b.serverId}|${String(b.port ?? '').padStart(5, '0')}|${b.type}`;

/** Join CLB attribute bodies with their vServer groups (by LoadBalancerId). */
export function mapLoadBalancers(
  accountId: string,
  regionId: string,
  lbs: WireLoadBalancerAttribute[],
  groups: WireVServerGroupAttribute[],
): Clb[] {
  const lists = new RegionListsMapper(accountId, regionId);
  lists.add({ loadBalancers: lbs, vServerGroups: groups });
  return lists.result().loadBalancers ?? [];
}

/** One CLB (DescribeLoadBalancerAttribute body), its `vServerGroups` still empty (RegionListsMapper fills them). */
function mapClb(accountId: string, regionId: string, lb: WireLoadBalancerAttribute, intern: Intern): Clb {
  const listeners = (lb.ListenerPortsAndProtocol?.ListenerPortAndProtocol ?? [])
    .map((l) => ({
      port: l.ListenerPort,
      protocol: l.ListenerProtocol.toLowerCase(),
      ...(l.Description !== undefined && l.Description !== '' ? { description: l.Description } : {}),
      ...(l.VServerGroupId !== undefined ? { vServerGroupId: l.VServerGroupId } : {}),
      ...(l.ForwardPort !== undefined ? { forwardPort: l.ForwardPort } : {}),
    }))
    .sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1));
  return {
    loadBalancerId: lb.LoadBalancerId,
    name: lb.LoadBalancerName ?? '',
    accountId,
    regionId: lb.RegionId ?? regionId,
    addressType: lb.AddressType ?? 'internet',
    ...(lb.Address !== undefined ? { address: lb.Address } : {}),
    ...(lb.VpcId !== undefined && lb.VpcId !== '' ? { vpcId: lb.VpcId } : {}),
    ...(lb.VSwitchId !== undefined && lb.VSwitchId !== '' ? { vSwitchId: lb.VSwitchId } : {}),
    ...(lb.NetworkType !== undefined ? { networkType: lb.NetworkType } : {}),
    ...(lb.LoadBalancerSpec !== undefined && lb.LoadBalancerSpec !== '' ? { spec: lb.LoadBalancerSpec } : {}),
    ...(lb.InstanceChargeType !== undefined ? { instanceChargeType: lb.InstanceChargeType } : {}),
    ...(lb.ResourceGroupId !== undefined && lb.ResourceGroupId !== '' ? { resourceGroupId: lb.ResourceGroupId } : {}),
    ...(lb.LoadBalancerStatus !== undefined ? { status: lb.LoadBalancerStatus } : {}),
    ...(lb.CreateTime !== undefined ? { createTime: lb.CreateTime } : {}),
    tags: tagMap(lb.Tags),
    listeners,
    defaultBackendServers: sortBy((lb.BackendServers?.BackendServer ?? []).map((b) => mapBackend(b, intern)), backendKey),
    vServerGroups: [],
  };
}

/** One vServer group (DescribeVServerGroupAttribute body) with its backend servers sorted. */
function mapVServerGroup(g: WireVServerGroupAttribute, intern: Intern): VServerGroup {
  const name = intern(g.VServerGroupName);
  return {
    vServerGroupId: g.VServerGroupId,
    name,
    backendServers: sortBy((g.BackendServers?.BackendServer ?? []).map((b) => mapBackend(b, intern)), backendKey),
  };
}

/**
 * The long lists of a region's wire data, whole or in parts: a region slice stored in parts (scan_targets
 * `slice_parts`) carries each long list as consecutive runs of items, one run per part, so any of these may be a run.
 * A load-balancer kind's lists (`LoadBalancerKindData`) sit under its dataset key (`nlb`), each possibly a run.
 */
export interface WireRegionLists {
  loadBalancers?: WireLoadBalancerAttribute[];
  vServerGroups?: WireVServerGroupAttribute[];
  ecsInstances?: WireEcsInstance[];
  nlb?: Partial<WireNlbRegion>;
}

/** What {@link RegionListsMapper} gives: the RegionSnapshot fields mapped from a region's long lists. */
export type MappedRegionLists = Pick<RegionSnapshot, 'loadBalancers' | 'nlbs' | 'nlbServerGroups' | 'ecsInstances'> & Partial<RegionSnapshot>;

/**
 * Maps a region's long wire lists (CLBs, vServer groups, ECS instances, and each load-balancer kind's lists through
 * the kind's own mapper, `LoadBalancerKindData.mapper`) into their snapshot form item by item, as they arrive in any
 * number of runs, and joins them at the end (vServer groups to their CLB by LoadBalancerId; a kind's lists as its
 * mapper joins them), each list sorted by id.
 *
 * The result is the same whether the lists come whole or in consecutive runs in their order (mapRegion uses it on
 * whole lists), so a region stored in parts is mapped one part at a time and only the mapped form of the region
 * exists at once, never its whole wire form.
 * A list counts as read (its field set in the result) when any run of it was added, even an empty one; vServer
 * groups without CLBs are never a read dataset, nor a kind's lists without its dataset key. The result's fields come
 * in a fixed order (CLBs, the kinds in `LB_KINDS` order, ECS), so its JSON is the same for the same data.
 */
export class RegionListsMapper {
  private clbs: Clb[] | undefined;
  private readonly groupsByLb = new Map<string, VServerGroup[]>();
  private ecs: EcsInstance[] | undefined;
  private readonly kinds = new Map<LoadBalancerKindData, KindRegionMapper>();
  /** One string per distinct id, IP and description of the region's backend entries and ECS instances. */
  private readonly intern = internPool();

  /**
   * @param accountId the region's account (set on every CLB and NLB)
   * @param regionId the region (a CLB without RegionId, and every NLB, are in it)
   */
  constructor(
    private readonly accountId: string,
    private readonly regionId: string,
  ) {}

  /** Map one run of any of the lists (items of one list in their wire order; runs of a list added in order). */
  add(lists: WireRegionLists): void {
    if (lists.loadBalancers) {
      const clbs = (this.clbs ??= []);
      for (const lb of lists.loadBalancers) clbs.push(mapClb(this.accountId, this.regionId, lb, this.intern));
    }
    for (const g of lists.vServerGroups ?? []) push(this.groupsByLb, g.LoadBalancerId, mapVServerGroup(g, this.intern));
    if (lists.ecsInstances) {
      const ecs = (this.ecs ??= []);
      for (const i of lists.ecsInstances) ecs.push(mapEcs(this.regionId, i, this.intern));
    }
    for (const data of KIND_DATA) {
      const wire = kindWireOf(lists, data);
      if (!wire) continue;
      let mapper = this.kinds.get(data);
      if (!mapper) {
        mapper = data.mapper(this.accountId, this.regionId, this.intern);
        this.kinds.set(data, mapper);
      }
      mapper.add(wire);
    }
  }

  /** The mapped lists, joined and sorted; only the lists that were added. Call once, after the last `add`. */
  result(): MappedRegionLists {
    const out: MappedRegionLists = {};
    if (this.clbs) {
      for (const clb of this.clbs)
        clb.vServerGroups = sortBy(this.groupsByLb.get(clb.loadBalancerId) ?? [], (g) => g.vServerGroupId);
      out.loadBalancers = sortBy(this.clbs, (l) => l.loadBalancerId);
    }
    for (const data of KIND_DATA) {
      const mapper = this.kinds.get(data);
      if (mapper) Object.assign(out, mapper.result());
    }
    if (this.ecs) out.ecsInstances = sortBy(this.ecs, (i) => i.instanceId);
    return out;
  }
}

/** Append `value` to the list of `key`. */
function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** One ECS instance (DescribeInstances item); its id interned (the same string as the backend entries naming it). */
function mapEcs(regionId: string, i: WireEcsInstance, intern: Intern): EcsInstance {
  return {
    instanceId: intern(i.InstanceId),
    ...(i.InstanceName !== undefined ? { name: i.InstanceName } : {}),
    ...(i.HostName !== undefined ? { hostName: i.HostName } : {}),
    regionId: i.RegionId ?? regionId,
    ...(i.ZoneId !== undefined ? { zoneId: i.ZoneId } : {}),
    ...(i.Status !== undefined ? { status: i.Status } : {}),
    ...(i.InstanceType !== undefined ? { instanceType: i.InstanceType } : {}),
    ...(i.VpcAttributes?.VpcId ? { vpcId: i.VpcAttributes.VpcId } : {}),
    ...(i.VpcAttributes?.VSwitchId ? { vSwitchId: i.VpcAttributes.VSwitchId } : {}),
    privateIps: [...(i.VpcAttributes?.PrivateIpAddress?.IpAddress ?? [])],
    tags: tagMap(i.Tags),
  };
}

/**
 * Parse a port range written `30000-32767` (NodePort flag / node_port_range) or `32768 60999`
 * / `32768\t60999` (what `sysctl -n net.ipv4.ip_local_port_range` prints). Undefined if malformed.
 */
export function parsePortRange(text: string | undefined): PortRange | undefined {
  if (!text) return undefined;
  const m = /^\s*(\d{1,5})\s*(?:-|\s)\s*(\d{1,5})\s*$/.exec(text);
  if (!m) return undefined;
  const from = Number(m[1]);
  const to = Number(m[2]);
  if (from < 1 || to > 65535 || from > to) return undefined;
  return { from, to };
}

/**
 * Network plugin from the add-on list: `flannel` -> flannel, `terway*` -> terway (ACK add-on names).
 */
export function networkPluginOf(addons: { name: string }[] | undefined): NetworkPlugin {
  if (!addons) return 'unknown';
  if (addons.some((a) => a.name === 'flannel')) return 'flannel';
  if (addons.some((a) => a.name.startsWith('terway'))) return 'terway';
  return 'unknown';
}

/**
 * The cluster's NodePort range (fleet-format.md): `control_plane_config.node_port_range` (ACK Pro),
 * else `--service-node-port-range` of the kube-apiserver Pods in kube-system, else 30000-32767.
 */
export function nodePortRangeOf(
  detail: WireClusterDetail,
  pods: K8sPod[] | undefined,
): ClusterSnapshot['nodePortRange'] {
  const fromDetail = parsePortRange(detail.control_plane_config?.node_port_range);
  if (fromDetail) return { ...fromDetail, source: 'control_plane_config' };
  for (const pod of pods ?? []) {
    if (pod.namespace !== 'kube-system' || !pod.name.startsWith('kube-apiserver')) continue;
    for (const arg of pod.containerArgs ?? []) {
      const m = /^--service-node-port-range=(.+)$/.exec(arg);
      const r = m ? parsePortRange(m[1]) : undefined;
      if (r) return { ...r, source: 'kube-apiserver-flag' };
    }
  }
  return { ...DEFAULT_NODE_PORT_RANGE, source: 'default' };
}

/**
 * A cluster body's `tags: [{key, value}]` as a map (research/alibaba-cloud-api.md: CS tags are `{key, value}`),
 * entries without a string key left out; `undefined` when the body has no tag list or no valid entry.
 */
export function clusterTagsOf(raw: unknown): Record<string, string> | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Record<string, string> = {};
  for (const t of raw as unknown[]) {
    if (typeof t !== 'object' || t === null) continue;
    const { key, value } = t as { key?: unknown; value?: unknown };
    if (typeof key !== 'string' || key === '') continue;
    out[key] = typeof value === 'string' ? value : '';
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The Flannel pod CIDR of a cluster body (`container_cidr` `a.b.c.d/p`, `node_cidr_mask` m with p <= m <= 32),
 * else `undefined` (empty on Terway clusters, or unparsable).
 */
export function podCidrOf(containerCidr: string | undefined, nodeCidrMask: string | number | undefined): ClusterSnapshot['podCidr'] {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec((containerCidr ?? '').trim());
  const mask = typeof nodeCidrMask === 'number' ? nodeCidrMask : /^\d{1,2}$/.test((nodeCidrMask ?? '').trim()) ? Number(nodeCidrMask) : NaN;
  if (!m || !Number.isInteger(mask)) return undefined;
  const prefixLength = Number(m[2]);
  if (prefixLength > 32 || mask < prefixLength || mask > 32) return undefined;
  return { cidr: `${m[1]}/${prefixLength}`, prefixLength, nodeCidrMask: mask };
}

function mapCluster(accountId: string, c: WireCluster): ClusterSnapshot {
  const d = c.detail;
  const kubernetes = c.kubernetes ? mapKubernetes(c.kubernetes) : undefined;
  const addons = c.addons
    ? sortBy(
        c.addons.addons.map((a) => ({
          name: a.name,
          version: a.version,
          ...(a.state !== undefined ? { state: a.state } : {}),
        })),
        (a) => a.name,
      )
    : undefined;
  const ccm = addons?.find((a) => a.name === 'cloud-controller-manager');
  const out: ClusterSnapshot = {
    clusterId: d.cluster_id,
    name: d.name,
    accountId,
    regionId: d.region_id,
    clusterType: d.cluster_type,
    ...(d.cluster_spec !== undefined ? { clusterSpec: d.cluster_spec } : {}),
    ...(d.state !== undefined ? { state: d.state } : {}),
    ...(d.current_version !== undefined ? { currentVersion: d.current_version } : {}),
    ...(d.created !== undefined ? { created: d.created } : {}),
    ...(d.vpc_id !== undefined && d.vpc_id !== '' ? { vpcId: d.vpc_id } : {}),
    ...(d.external_loadbalancer_id ? { apiServerLoadBalancerId: d.external_loadbalancer_id } : {}),
    ...(addons ? { addons } : {}),
    networkPlugin: networkPluginOf(addons),
    ...(ccm?.version ? { ccmVersion: ccm.version } : {}),
    nodePortRange: nodePortRangeOf(d, kubernetes?.pods),
  };
  const tags = clusterTagsOf(d.tags);
  if (tags) out.tags = tags;
  const podCidr = podCidrOf(d.container_cidr, d.node_cidr_mask);
  if (podCidr) out.podCidr = podCidr;
  if (c.resources)
    out.ramRoleNames = c.resources
      .filter((r) => r.resource_type === 'ALIYUN::RAM::Role')
      .map((r) => r.instance_id)
      .sort();
  if (c.nodeSysctls) {
    const ranges: Record<string, PortRange> = {};
    for (const id of Object.keys(c.nodeSysctls).sort()) {
      const r = parsePortRange(c.nodeSysctls[id]['net.ipv4.ip_local_port_range']);
      if (r) ranges[id] = r;
    }
    out.nodeLocalPortRanges = ranges;
  }
  if (kubernetes) out.kubernetes = kubernetes;
  return out;
}

function ts(v: string | Date | null | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  const d = v instanceof Date ? v : new Date(v);
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString().replace('.000Z', 'Z');
}

const nsName = (o: { namespace: string; name: string }) => `${o.namespace}/${o.name}`;

/** ECS instance id from a node's providerID: the text after the first `.` (CCM backend.go). */
export function ecsIdFromProviderId(providerId: string | undefined): string | undefined {
  if (!providerId) return undefined;
  const i = providerId.indexOf('.');
  if (i < 0 || i === providerId.length - 1) return undefined;
  return providerId.slice(i + 1);
}

function mapNode(n: K8sNodeWire): K8sNode {
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  const ip = n.status?.addresses?.find((a) => a.type === 'InternalIP');
  const providerId = n.spec?.providerID ?? undefined;
  const ecs = ecsIdFromProviderId(providerId);
  return {
    name: n.metadata.name,
    ...(n.metadata.uid ? { uid: n.metadata.uid } : {}),
    labels: { ...(n.metadata.labels ?? {}) },
    ...(providerId ? { providerId } : {}),
    ...(ecs ? { ecsInstanceId: ecs } : {}),
    unschedulable: n.spec?.unschedulable === true,
    ...(n.status?.conditions && n.status.conditions.length > 0
      ? ready
        ? { ready: ready.status === 'True' }
        : { readyConditionMissing: true as const }
      : {}),
    taints: (n.spec?.taints ?? []).map((t) => ({
      key: t.key,
      ...(t.value !== undefined ? { value: t.value } : {}),
      effect: t.effect,
    })),
    ...(ip ? { internalIp: ip.address } : {}),
  };
}

function mapService(s: K8sServiceWire): K8sService {
  const c = ts(s.metadata.creationTimestamp);
  const d = ts(s.metadata.deletionTimestamp);
  return {
    namespace: s.metadata.namespace,
    name: s.metadata.name,
    uid: s.metadata.uid ?? '',
    type: s.spec.type,
    labels: { ...(s.metadata.labels ?? {}) },
    annotations: { ...(s.metadata.annotations ?? {}) },
    finalizers: [...(s.metadata.finalizers ?? [])],
    ...(s.spec.externalTrafficPolicy ? { externalTrafficPolicy: s.spec.externalTrafficPolicy } : {}),
    ...(s.spec.loadBalancerClass ? { loadBalancerClass: s.spec.loadBalancerClass } : {}),
    ...(s.spec.selector ? { selector: { ...s.spec.selector } } : {}),
    ports: (s.spec.ports ?? []).map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      protocol: p.protocol,
      port: p.port,
      ...(p.targetPort !== undefined && p.targetPort !== null ? { targetPort: p.targetPort } : {}),
      ...(p.nodePort ? { nodePort: p.nodePort } : {}),
    })),
    ...(s.spec.healthCheckNodePort ? { healthCheckNodePort: s.spec.healthCheckNodePort } : {}),
    ingress: (s.status?.loadBalancer?.ingress ?? []).map((i) => ({
      ...(i.ip ? { ip: i.ip } : {}),
      ...(i.hostname ? { hostname: i.hostname } : {}),
    })),
    ...(c ? { creationTimestamp: c } : {}),
    ...(d ? { deletionTimestamp: d } : {}),
  };
}

function mapPod(p: K8sPodWire): K8sPod {
  const out: K8sPod = {
    namespace: p.metadata.namespace,
    name: p.metadata.name,
    ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
    ...(p.status?.podIP ? { podIp: p.status.podIP } : {}),
    ...(p.status?.phase ? { phase: p.status.phase } : {}),
    labels: { ...(p.metadata.labels ?? {}) },
  };
  if (p.metadata.namespace === 'kube-system') {
    out.containerArgs = (p.spec?.containers ?? []).flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])]);
  }
  return out;
}

function mapEndpointSlice(e: K8sEndpointSliceWire): K8sEndpointSlice {
  const svc = e.metadata.labels?.['kubernetes.io/service-name'];
  return {
    namespace: e.metadata.namespace,
    name: e.metadata.name,
    ...(svc ? { serviceName: svc } : {}),
    ports: (e.ports ?? []).map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      ...(p.port !== undefined && p.port !== null ? { port: p.port } : {}),
      ...(p.protocol ? { protocol: p.protocol } : {}),
    })),
    endpoints: (e.endpoints ?? []).map((ep) => ({
      addresses: [...ep.addresses],
      // discovery.k8s.io/v1: a nil `ready` condition means ready (API reference, EndpointConditions).
      ready: ep.conditions?.ready !== false,
      ...(ep.conditions?.ready === undefined || ep.conditions.ready === null
        ? { readyUnset: true as const }
        : {}),
      terminating: ep.conditions?.terminating === true,
      ...(ep.nodeName ? { nodeName: ep.nodeName } : {}),
      ...(ep.targetRef?.name ? { targetRefName: ep.targetRef.name } : {}),
    })),
  };
}

function mapEvent(e: K8sEventWire): K8sEvent {
  const last = ts(e.lastTimestamp) ?? ts(e.eventTime) ?? ts(e.firstTimestamp);
  return {
    namespace: e.metadata.namespace,
    name: e.metadata.name,
    type: e.type,
    reason: e.reason,
    message: e.message,
    involvedObject: {
      kind: e.involvedObject.kind,
      ...(e.involvedObject.namespace ? { namespace: e.involvedObject.namespace } : {}),
      name: e.involvedObject.name,
      ...(e.involvedObject.uid ? { uid: e.involvedObject.uid } : {}),
    },
    count: e.count ?? 1,
    ...(last ? { lastTimestamp: last } : {}),
  };
}

/** Map one cluster's Kubernetes objects (sorted by namespace/name). */
export function mapKubernetes(k: WireKubernetes): KubernetesSnapshot {
  return {
    nodes: sortBy(k.nodes.map(mapNode), (n) => n.name),
    services: sortBy(k.services.map(mapService), nsName),
    pods: sortBy(k.pods.map(mapPod), nsName),
    endpointSlices: sortBy(k.endpointSlices.map(mapEndpointSlice), nsName),
    events: sortBy(k.events.map(mapEvent), nsName),
  };
}
