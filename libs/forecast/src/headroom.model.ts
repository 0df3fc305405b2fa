/**
 * Structural headroom per cluster: how many more nodes, Cluster-mode LoadBalancer Services and Local-mode
 * ones fit before the first quota goes over its limit (used > limit), computed from the CCM model, not from
 * statistics (research/next-features-anchors.md F2). Each answer names the quota and resource that limits it;
 * a resource the added thing would use that is already over its limit is reported as `alreadyOver`.
 *
 * What one more of each uses (CCM model, libs/domain `expectedVServerGroups`; seed 004 "Load balancing update
 * policies"; research/ccm-behaviour.md §2, §7):
 * - a node (copied from an existing eligible worker, optionally with extra labels): one backend entry per port
 *   of every Cluster-mode Service whose node selection takes it, on that Service's CLB (Services sharing a CLB
 *   add up: CLB_BACKEND_QUOTA); one attachment per such distinct CLB on its own ECS instance
 *   (ECS_LB_ATTACHMENT_QUOTA); one IP of its vSwitch (VSWITCH_IP_EXHAUSTION). Local-mode Services do not
 *   attach a node without pods.
 * - a Cluster-mode Service (ports given, default one): one CLB instance (CLB_INSTANCE_QUOTA); on its new CLB
 *   every eligible node per port (CLB_BACKEND_QUOTA) and one listener per port (CLB_LISTENER_QUOTA); one
 *   attachment on every eligible node; one NodePort per port (NODEPORT_RANGE_EXHAUSTION).
 * - a Local-mode Service with `podsPerService` pods: as above, but only the nodes running its pods are
 *   attached (pods spread one per node over the least-attached workers, as the what-if places them), and one
 *   more NodePort for the health check. The attachment limit is then: the largest k with
 *   sum_i min(c_i, k) >= k * m, c_i = the free attachments of worker i, m = nodes per Service.
 * On clusters whose Services default to ENI backends (Terway), a new Service attaches pods (pods x ports
 * entries on its CLB, no node attachments).
 *
 * NLB (CCM's NLB controller, libs/domain `expectedNlbServerGroups`; research/nlb.md 4, 5; NLB "NLB
 * quotas"), where the region's NLB data was read:
 * - a node: one server per port of every Cluster-mode NLB Service whose node selection takes it, in that port's
 *   server group (NLB_SERVER_GROUP_BACKEND_QUOTA, 400) and on its NLB (NLB_BACKEND_QUOTA, 400); the new node itself
 *   is added to that many server groups (NLB_SERVER_ADDED_QUOTA, `nlb_quota_server_added_num` 200);
 * - a Cluster-mode NLB Service (ports given): one NLB (NLB_INSTANCE_QUOTA), one listener (NLB_LISTENER_QUOTA) and one
 *   server group (NLB_SERVER_GROUP_QUOTA: 3,000 per account and region, cannot be raised) per port; every eligible
 *   node in every group, so each node burns `ports` of its server-added quota; NodePorts as for CLB;
 * - a Local NLB Service: the same NLB, listeners and groups, servers only on the nodes running its pods (placed as
 *   for CLB, by free server-added quota: the largest k with sum_i min(floor(c_i / ports), k) >= k * m).
 * `nlbClusterModeServices` / `nlbLocalServices` are null where NLB Services cannot be planned: the region's NLB
 * data was not read (coverage gap `nlb`), or the cluster's CCM has no NLB controller (before v2.5.0).
 */
import {
  FleetIndex,
  QUOTA_USAGE_CHECK_IDS,
  resourceKeyOf,
  runAudit,
  type PartialAuditSettings,
} from '@app/checks';
import {
  CCM_FEATURES,
  CcmLbLookup,
  NLB_QUOTA_BACKEND_SERVERS,
  NLB_QUOTA_LISTENERS,
  NLB_QUOTA_SERVER_ADDED,
  NLB_QUOTA_SERVER_GROUP_SERVERS,
  SLB_QUOTA_BACKEND_ATTACHED,
  SLB_QUOTA_BACKEND_SERVERS,
  SLB_QUOTA_LISTENERS,
  ecsBackendNodeExclusion,
  effectiveQuota,
  needClb,
  nodeSelectionOptionsOf,
  ccmControllerFor,
  ccmVersionAtLeast,
  findServiceNlb,
  parseNlbNamedKey,
  quotaUsageOf,
  schedulableBackendNode,
  serviceTrafficPolicy,
  type FleetSnapshot,
  type K8sNode,
  type Nlb,
  type QuotaUsageSample,
  type ResourceRef,
  teamOf,
  type OwnerSettings,
} from '@app/domain';
import { fleetAuditErrorKind } from '@app/errors';

/**
 * An invalid headroom option (`like`: a node the cluster does not have). The message starts with
 * the CLI flag (`--like: ...`); the API names its query parameter instead (`option`).
 */
export class HeadroomOptionError extends fleetAuditErrorKind('HeadroomOptionError', 'HEADROOM_OPTION_INVALID', true) {
  // permanent: the option must change.
  constructor(
    /** The option at fault (`like`). */
    readonly option: 'like',
    message: string,
  ) {
    super(message);
  }
}

/** The quota and resource that limit an answer. */
export interface QuotaRef {
  checkId: string;
  resource: ResourceRef;
}

/** A resource already over its limit (counts). */
export interface OverQuota extends QuotaRef {
  used: number;
  limit: number;
}

/**
 * One headroom answer: `headroom` more fit (count; null = no modelled quota limits it) and what limits it,
 * or the resources that are already over their limit.
 */
export type HeadroomAnswer =
  { headroom: number | null; limitedBy: QuotaRef | null } | { alreadyOver: OverQuota[] };

/** The five headroom questions, the keys of a HeadroomEntry's answers. */
export const HEADROOM_QUESTIONS = ['nodes', 'clusterModeServices', 'localServices', 'nlbClusterModeServices', 'nlbLocalServices'] as const;
/** One headroom question. */
export type HeadroomQuestion = (typeof HEADROOM_QUESTIONS)[number];

/**
 * A quota several clusters draw from (an account's region quota, a vSwitch shared by their nodes), as one
 * cluster's answer to one question sees it: `fleetHeadroom` more fit in the whole pool (count of the question's
 * items), `clusters` clusters draw from it, and `share` of them are this cluster's (its max-min fair share:
 * clusters limited below an even split by their own quotas keep what they can use, the rest is split evenly).
 * The shares of the clusters of a pool add up to at most `fleetHeadroom`.
 */
export interface SharedQuotaShare extends QuotaRef {
  question: HeadroomQuestion;
  /** Units left in the pool (limit - used: CLB instances, NLB server groups, IP addresses). */
  room: number;
  /** Items that fit in the whole pool (count). */
  fleetHeadroom: number;
  /** Clusters drawing from the pool for this question (count, this one included). */
  clusters: number;
  /** Of which this cluster's (count). */
  share: number;
}

/** Why a cluster's NLB Services cannot be planned (`nlbClusterModeServices` / `nlbLocalServices` null). */
export interface NlbNotPlanned {
  /** `nlb-data-not-read`: the region's NLB data was not read (coverage gap `nlb`); `ccm-without-nlb`: the cluster's CCM predates the NLB controller (v2.5.0). */
  reason: 'nlb-data-not-read' | 'ccm-without-nlb';
  /** One line for people, e.g. `CCM v2.4.1 has no NLB controller (since v2.5.0)`. */
  message: string;
}

/** Headroom of one cluster: the JSON contract of `forecast headroom` (`{"headroom": [...]}`). */
export interface HeadroomEntry {
  clusterId: string;
  /** The cluster's name (cluster.json `name`). */
  clusterName: string;
  /** The cluster's owning team (libs/domain `teamOf`), when one is known. */
  team?: string;
  nodes: HeadroomAnswer;
  clusterModeServices: HeadroomAnswer;
  localServices: HeadroomAnswer;
  /** Cluster-mode NLB Services (`ports` ports each); null when NLB Services cannot be planned (see the file comment). */
  nlbClusterModeServices: HeadroomAnswer | null;
  /** Local NLB Services (`podsPerService` pods each); null as `nlbClusterModeServices`. */
  nlbLocalServices: HeadroomAnswer | null;
  /** Why the NLB answers are null, or null when they are planned. */
  nlbNotPlanned: NlbNotPlanned | null;
  /** The pooled quotas this cluster's answers draw from (only pools of two clusters or more), by question and quota. */
  sharedQuotas: SharedQuotaShare[];
  /**
   * Seconds until the first quota limiting one of its answers is exhausted (the p50 of the quota's trend,
   * `options.trends`), 0 when one is already over its limit, null when no trend is known. Entries are sorted by it,
   * soonest first (nulls last), then by cluster id.
   */
  secondsToExhaustion: number | null;
}

/** The trend of one quota series as headroom reads it (libs/forecast TrendEntry). */
export interface HeadroomTrend {
  checkId: string;
  /** The series' resource (its `clusterId` null or absent outside a cluster). */
  resource: Pick<ResourceRef, 'kind' | 'id' | 'accountId' | 'regionId'> & { clusterId?: string | null };
  secondsToExhaustion: { p50: number | null };
}

/**
 * ACK's single-cluster capacity: at most 5,000 nodes in an ACK managed Pro cluster (ACK "Quotas and limits",
 * "Single-cluster capacity limits", https://www.alibabacloud.com/help/en/ack/product-overview/limits). Basic and
 * dedicated clusters are documented lower or by their own plan; `maxNodesPerCluster` sets another value.
 */
export const ACK_MAX_NODES_PER_CLUSTER = 5000;

/** Pseudo check id of ACK's per-cluster node limit in a `limitedBy` (not a catalogue check). */
export const ACK_NODE_LIMIT = 'ACK_NODE_LIMIT';
/** Pseudo check id of a Flannel cluster's pod CIDR (one node-mask block per node) in a `limitedBy`. */
export const POD_CIDR_NODE_BLOCKS = 'POD_CIDR_NODE_BLOCKS';

/** Options of the headroom questions. */
export interface HeadroomOptions {
  /** Node to copy for new nodes (default: the first ready, schedulable worker with an ECS id). */
  like?: string;
  /** Labels set on the new nodes (e.g. a node pool label), over the copied ones. */
  labels?: Record<string, string>;
  /** Ports of each new Service (default [80]). */
  ports?: number;
  /** Pods of each new Local-mode Service (default 2). */
  podsPerService?: number;
  /** Only these clusters, each by id or by name (default: all with Kubernetes data). */
  clusterIds?: readonly string[];
  /** Nodes one cluster may hold (default ACK_MAX_NODES_PER_CLUSTER, 5,000). */
  maxNodesPerCluster?: number;
  /** Quota trends (stored history) to order entries by time to exhaustion; without them entries over a limit come first. */
  trends?: readonly HeadroomTrend[];
  /** Audit settings' `owners` (libs/domain `teamOf`): each entry's `team`. Plain data: options cross to forecast threads. */
  owners?: OwnerSettings;
}

const NEW_CLB = '(new CLB)';
const NEW_NLB = '(new NLB)';
const NEW_SERVER_GROUP = '(new server group)';

/** Largest k with sum_i min(c_i, k) >= k * m (c_i >= 0; feasible(k) is monotone: binary search). */
function waterFill(free: readonly number[], m: number): number {
  const feasible = (k: number) => free.reduce((sum, c) => sum + Math.min(c, k), 0) >= k * m;
  let lo = 0;
  let hi = free.reduce((sum, c) => sum + c, 0);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (feasible(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of quota samples by check + resource key. */
export class QuotaSampleIndex {
  private readonly byKey = new Map<string, QuotaUsageSample>();
  constructor(samples: readonly QuotaUsageSample[]) {
    for (const s of samples) this.byKey.set(`${s.checkId}\u0000${resourceKeyOf(s.resource)}`, s);
  }
  /** The sample of a check on a resource (cluster id ignored for non-cluster kinds when absent). */
  get(checkId: string, resource: ResourceRef): QuotaUsageSample | undefined {
    return (
      this.byKey.get(`${checkId}\u0000${resourceKeyOf(resource)}`) ??
      this.byKey.get(`${checkId}\u0000${resourceKeyOf({ ...resource, clusterId: undefined })}`)
    );
  }
  /** Every sample. */
  all(): IterableIterator<QuotaUsageSample> {
    return this.byKey.values();
  }
}

/** A use of a resource several clusters draw from (an account's region quota, a shared vSwitch): pooled later. */
interface SharedUse {
  ref: QuotaRef;
  /** Room left, in the resource's units (limit - used). */
  room: number;
  /** Units one more item takes. */
  perUnit: number;
}

/**
 * Collects caps (how many more fit per resource) and over-limit resources; the answer is the smallest cap.
 * Uses of shared resources (`Region`, `VSwitch`) are kept apart in `shared`: their room is split between the
 * clusters that draw from it (computeFleetHeadroom) before they take part in the answer.
 */
class Caps {
  private best: { cap: number; ref: QuotaRef } | undefined;
  readonly over: OverQuota[] = [];
  readonly shared: SharedUse[] = [];
  private readonly overKeys = new Set<string>();

  add(cap: number, ref: QuotaRef): void {
    const c = Math.max(0, Math.floor(cap));
    if (!this.best || c < this.best.cap || (c === this.best.cap && refKey(ref) < refKey(this.best.ref)))
      this.best = { cap: c, ref };
  }

  /** A resource the added thing uses: over its limit already -> reported; else `perUnit` more per item. */
  use(sample: { used: number; limit: number } | undefined, ref: QuotaRef, perUnit: number): void {
    if (!sample || perUnit <= 0) return;
    if (sample.used > sample.limit) {
      const k = refKey(ref);
      if (!this.overKeys.has(k)) {
        this.overKeys.add(k);
        this.over.push({ ...ref, used: sample.used, limit: sample.limit });
      }
      return;
    }
    if (SHARED_KINDS.has(ref.resource.kind)) {
      this.shared.push({ ref, room: sample.limit - sample.used, perUnit });
      return;
    }
    this.add((sample.limit - sample.used) / perUnit, ref);
  }

  /** The smallest cap of the cluster's own resources (shared ones not counted), or undefined. */
  privateCap(): number | undefined {
    return this.best?.cap;
  }

  answer(): HeadroomAnswer {
    if (this.over.length > 0)
      return { alreadyOver: this.over.sort((a, b) => (refKey(a) < refKey(b) ? -1 : 1)) };
    return this.best
      ? { headroom: this.best.cap, limitedBy: this.best.ref }
      : { headroom: null, limitedBy: null };
  }
}

/**
 * Resource kinds whose quota several clusters draw from: a `Region` stands for an account's quota in a region
 * (CLB instances `slb_quota_instances_num`, NLB instances, NLB server groups: Quota Center, research/quota-center.md),
 * a `VSwitch` for the IPs of a vSwitch the nodes of several clusters may sit in.
 */
const SHARED_KINDS: ReadonlySet<string> = new Set(['Region', 'VSwitch']);

function refKey(r: QuotaRef): string {
  return `${r.checkId}\u0000${resourceKeyOf(r.resource)}`;
}

/** One cluster's caps per question before the shared quotas are split. */
interface RawEntry {
  clusterId: string;
  clusterName: string;
  accountId: string;
  regionId: string;
  team?: string;
  requested: boolean;
  caps: Record<HeadroomQuestion, Caps | null>;
  nlbNotPlanned: NlbNotPlanned | null;
}

/**
 * Max-min fair split of `room` units between members with their own caps (units; Infinity = none): the largest level
 * L with sum_i min(cap_i, L) <= room (binary search: the sum is monotone in L); each member gets min(cap_i, L), and
 * what is left (fewer units than members above L) goes one unit each to the members above L in key order. The
 * results add up to at most `room`, and to `room` unless every member is at its cap.
 */
function fairSplit(room: number, members: readonly { key: string; cap: number }[]): Map<string, number> {
  const total = Math.max(0, Math.floor(room));
  const used = (level: number) => members.reduce((sum, m) => sum + Math.min(m.cap, level), 0);
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (used(mid) <= total) lo = mid;
    else hi = mid - 1;
  }
  const out = new Map<string, number>();
  for (const m of members) out.set(m.key, Math.min(m.cap, lo));
  let left = total - used(lo);
  for (const m of [...members].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    if (left <= 0) break;
    if (m.cap > lo) {
      out.set(m.key, lo + 1);
      left -= 1;
    }
  }
  return out;
}

/**
 * Headroom of every cluster, soonest to exhaust first (`secondsToExhaustion`, then cluster id).
 *
 * Quotas several clusters draw from (an account's CLB instances, NLB instances and NLB server groups in a region;
 * a vSwitch's IPs) are pooled: the pool's room is split between the clusters that use it (fairSplit), so the
 * answers of the clusters sharing a quota add up to what the quota holds, instead of each claiming the whole room;
 * `sharedQuotas` gives, per pool, the fleet-level headroom and this cluster's share. The pool's members are every
 * cluster of the account and region with Kubernetes data, requested or not.
 *
 * Nodes are also limited by ACK's per-cluster node limit (`maxNodesPerCluster`, ACK_NODE_LIMIT) and, on Flannel
 * clusters whose pod CIDR is known, by the node-mask blocks of the pod CIDR: 2^(node_cidr_mask - prefix) blocks,
 * one per node (ACK "Work with Flannel", https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/work-with-flannel;
 * POD_CIDR_NODE_BLOCKS).
 * @param snapshot the fleet
 * @param samples the quota samples of an audit of that snapshot (`quotaUsageOf(runAudit(...).results)`)
 * @throws HeadroomOptionError when `options.like` names no node of a requested cluster
 */
export function computeHeadroom(
  snapshot: FleetSnapshot,
  samples: readonly QuotaUsageSample[],
  options: HeadroomOptions = {},
): HeadroomEntry[] {
  const index = FleetIndex.build(snapshot);
  const q = new QuotaSampleIndex(samples);
  const ports = options.ports ?? 1;
  const pods = options.podsPerService ?? 2;
  const maxNodes = options.maxNodesPerCluster ?? ACK_MAX_NODES_PER_CLUSTER;
  const wanted = options.clusterIds ? new Set(options.clusterIds) : undefined;
  const isWanted = (c: { clusterId: string; name: string }) => !wanted || wanted.has(c.clusterId) || wanted.has(c.name);
  // Pool-mates of the requested clusters: every cluster of their account and region.
  const wantedPlaces = new Set(
    index.clusters.filter((ce) => isWanted(ce.cluster)).map((ce) => `${ce.account.accountId}\u0000${ce.region.regionId}`),
  );
  const raw: RawEntry[] = [];
  for (const ce of index.clusters) {
    const { cluster, region, account } = ce;
    const requested = isWanted(cluster);
    if (!requested && !wantedPlaces.has(`${account.accountId}\u0000${region.regionId}`)) continue;
    const k8s = cluster.kubernetes;
    if (!k8s) continue;
    const acct = account.accountId;
    const reg = region.regionId;
    const attachLimit = effectiveQuota(region.quotas, SLB_QUOTA_BACKEND_ATTACHED).limit;
    const backendLimit = effectiveQuota(region.quotas, SLB_QUOTA_BACKEND_SERVERS).limit;
    const listenerLimit = effectiveQuota(region.quotas, SLB_QUOTA_LISTENERS).limit;
    const ecsRes = (id: string): ResourceRef => ({
      kind: 'EcsInstance',
      id,
      accountId: acct,
      regionId: reg,
      clusterId: cluster.clusterId,
    });
    const attachSample = (ecsId: string) =>
      q.get('ECS_LB_ATTACHMENT_QUOTA', ecsRes(ecsId)) ?? {
        used: index.ecsAttachments(region).get(ecsId)?.loadBalancers ?? 0,
        limit: attachLimit,
      };
    const newClb: ResourceRef = { kind: 'LoadBalancer', id: NEW_CLB, accountId: acct, regionId: reg };
    const regionRes: ResourceRef = { kind: 'Region', id: reg, accountId: acct, regionId: reg };
    const clusterRes: ResourceRef = {
      kind: 'Cluster',
      id: cluster.clusterId,
      accountId: acct,
      regionId: reg,
      clusterId: cluster.clusterId,
    };

    // NLB: planned only where the region's NLB data was read and the cluster's CCM has the NLB controller.
    const nlbRead = region.nlbs !== undefined && region.nlbServerGroups !== undefined;
    const nlbPlannable = nlbRead && ccmVersionAtLeast(cluster.ccmVersion, CCM_FEATURES.nlbController.sinceVersion) !== false;
    const sgById = new Map((region.nlbServerGroups ?? []).map((g) => [g.serverGroupId, g]));
    const nlbView = new CcmLbLookup<Nlb>(region.nlbs ?? []);
    const serverAddedLimit = effectiveQuota(region.quotas, NLB_QUOTA_SERVER_ADDED).limit;
    const serverAddedSample = (ecsId: string) => {
      const res: ResourceRef = { kind: 'EcsInstance', id: ecsId, accountId: acct, regionId: reg };
      return q.get('NLB_SERVER_ADDED_QUOTA', res) ?? { used: 0, limit: serverAddedLimit };
    };

    // --- nodes
    const nodeCaps = new Caps();
    const like = requested ? options.like : undefined;
    const template =
      like !== undefined
        ? k8s.nodes.find((n) => n.name === like)
        : k8s.nodes.find((n) => schedulableBackendNode(n, cluster.ccmVersion));
    // ACK's node limit and the pod CIDR's node blocks count every node the cluster holds.
    nodeCaps.use({ used: k8s.nodes.length, limit: maxNodes }, { checkId: ACK_NODE_LIMIT, resource: clusterRes }, 1);
    if (cluster.podCidr && cluster.networkPlugin === 'flannel')
      nodeCaps.use(
        { used: k8s.nodes.length, limit: 2 ** (cluster.podCidr.nodeCidrMask - cluster.podCidr.prefixLength) },
        { checkId: POD_CIDR_NODE_BLOCKS, resource: clusterRes },
        1,
      );
    if (like !== undefined && !template)
      throw new HeadroomOptionError('like', `--like: unknown node "${like}" in cluster ${cluster.clusterId}`);
    if (template) {
      const newNode: K8sNode = {
        ...template,
        name: '(new node)',
        labels: { ...template.labels, ...(options.labels ?? {}) },
        unschedulable: false,
        ready: true,
        taints: template.taints.filter((t) => t.key !== 'ToBeDeletedByClusterAutoscaler'),
        ecsInstanceId: 'i-new',
      };
      const perClb = new Map<string, number>();
      for (const svc of k8s.services) {
        if (!needClb(svc)) continue;
        if (serviceTrafficPolicy(svc, cluster).policy !== 'cluster') continue;
        const sel = nodeSelectionOptionsOf(svc, cluster.ccmVersion);
        if ('error' in sel || ecsBackendNodeExclusion(newNode, sel.options) !== undefined) continue;
        const se = index.service(cluster.clusterId, svc.namespace, svc.name);
        const clb = se ? index.attributedClbOf(se) : undefined;
        if (!clb) continue;
        perClb.set(clb.clb.loadBalancerId, (perClb.get(clb.clb.loadBalancerId) ?? 0) + svc.ports.length);
      }
      for (const [lbId, per] of [...perClb.entries()].sort()) {
        const res: ResourceRef = { kind: 'LoadBalancer', id: lbId, accountId: acct, regionId: reg };
        nodeCaps.use(q.get('CLB_BACKEND_QUOTA', res), { checkId: 'CLB_BACKEND_QUOTA', resource: res }, per);
      }
      // The new node's own attachments: one per distinct CLB; the same for every new node.
      if (perClb.size > attachLimit)
        nodeCaps.add(0, {
          checkId: 'ECS_LB_ATTACHMENT_QUOTA',
          resource: ecsRes(`(new node like ${template.name})`),
        });
      const ecs = template.ecsInstanceId ? index.ecsById.get(template.ecsInstanceId)?.ecs : undefined;
      if (ecs?.vSwitchId && region.ecsInstances) {
        const res: ResourceRef = { kind: 'VSwitch', id: ecs.vSwitchId, accountId: acct, regionId: reg };
        nodeCaps.use(
          q.get('VSWITCH_IP_EXHAUSTION', res),
          { checkId: 'VSWITCH_IP_EXHAUSTION', resource: res },
          1,
        );
      }
      if (nlbRead) {
        // Cluster-mode NLB Services taking the new node: one server per port, in that port's server group.
        const perNlb = new Map<string, number>();
        const groups = new Set<string>();
        let added = 0;
        for (const svc of k8s.services) {
          if (ccmControllerFor(svc, cluster.ccmVersion).controller !== 'nlb') continue;
          if (serviceTrafficPolicy(svc, cluster).policy !== 'cluster') continue;
          const sel = nodeSelectionOptionsOf(svc, cluster.ccmVersion);
          if ('error' in sel || ecsBackendNodeExclusion(newNode, sel.options) !== undefined) continue;
          const nlb = findServiceNlb(svc, nlbView).nlb;
          if (!nlb) continue;
          const own = nlb.serverGroupIds.filter((id) => {
            const k = parseNlbNamedKey(sgById.get(id)?.name);
            return k !== undefined && k.serviceName === svc.name && k.namespace === svc.namespace && k.clusterId === cluster.clusterId;
          });
          for (const id of own) groups.add(id);
          added += own.length;
          perNlb.set(nlb.loadBalancerId, (perNlb.get(nlb.loadBalancerId) ?? 0) + own.length);
        }
        for (const id of [...groups].sort()) {
          const res: ResourceRef = { kind: 'NlbServerGroup', id, accountId: acct, regionId: reg };
          nodeCaps.use(q.get('NLB_SERVER_GROUP_BACKEND_QUOTA', res), { checkId: 'NLB_SERVER_GROUP_BACKEND_QUOTA', resource: res }, 1);
        }
        for (const [id, per] of [...perNlb.entries()].sort()) {
          const res: ResourceRef = { kind: 'NetworkLoadBalancer', id, accountId: acct, regionId: reg };
          nodeCaps.use(q.get('NLB_BACKEND_QUOTA', res), { checkId: 'NLB_BACKEND_QUOTA', resource: res }, per);
        }
        // The new node's own server-added count: the same for every new node.
        if (added > serverAddedLimit)
          nodeCaps.add(0, { checkId: 'NLB_SERVER_ADDED_QUOTA', resource: ecsRes(`(new node like ${template.name})`) });
      }
    }

    // --- Services
    const serviceAnswer = (trafficPolicy: 'Cluster' | 'Local'): Caps => {
      const caps = new Caps();
      const mode = serviceTrafficPolicy(
        { annotations: {}, externalTrafficPolicy: trafficPolicy },
        cluster,
      ).policy;
      caps.use(
        q.get('CLB_INSTANCE_QUOTA', regionRes),
        { checkId: 'CLB_INSTANCE_QUOTA', resource: regionRes },
        1,
      );
      caps.use(
        q.get('NODEPORT_RANGE_EXHAUSTION', clusterRes),
        { checkId: 'NODEPORT_RANGE_EXHAUSTION', resource: clusterRes },
        ports + (trafficPolicy === 'Local' ? 1 : 0),
      );
      if (ports > listenerLimit) caps.add(0, { checkId: 'CLB_LISTENER_QUOTA', resource: newClb });
      const sel = nodeSelectionOptionsOf({ annotations: {} }, cluster.ccmVersion);
      const eligible = 'error' in sel ? [] : index.eligibleNodes(ce, sel.options).nodes;
      if (mode === 'cluster') {
        if (eligible.length * ports > backendLimit)
          caps.add(0, { checkId: 'CLB_BACKEND_QUOTA', resource: newClb });
        for (const n of eligible) {
          const id = n.ecsInstanceId!;
          caps.use(attachSample(id), { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: ecsRes(id) }, 1);
        }
      } else if (mode === 'local') {
        const workers = k8s.nodes.filter((n) => schedulableBackendNode(n, cluster.ccmVersion));
        const m = Math.min(pods, workers.length);
        if (m * ports > backendLimit) caps.add(0, { checkId: 'CLB_BACKEND_QUOTA', resource: newClb });
        if (m > 0) {
          const free: { c: number; id: string; s: { used: number; limit: number } }[] = [];
          for (const n of workers) {
            const s = attachSample(n.ecsInstanceId!);
            free.push({ c: s.limit - s.used, id: n.ecsInstanceId!, s });
          }
          const over = free.filter((f) => f.c < 0);
          // Over-limit workers are skipped by placement only if enough others exist; report them when they would be used.
          const usable = free.filter((f) => f.c >= 0);
          if (usable.length < m)
            for (const f of over)
              caps.use(f.s, { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: ecsRes(f.id) }, 1);
          // Largest k with sum min(c_i, k) >= k * m (binary search; feasible(k) is monotone).
          const feasible = (k: number) => usable.reduce((sum, f) => sum + Math.min(f.c, k), 0) >= k * m;
          let lo = 0;
          let hi = usable.reduce((sum, f) => sum + f.c, 0);
          while (lo < hi) {
            const mid = Math.ceil((lo + hi) / 2);
            if (feasible(mid)) lo = mid;
            else hi = mid - 1;
          }
          const fullest = usable.sort((a, b) => a.c - b.c || (a.id < b.id ? -1 : 1))[0];
          if (fullest) caps.add(lo, { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: ecsRes(fullest.id) });
        }
      } else if (pods * ports > backendLimit) caps.add(0, { checkId: 'CLB_BACKEND_QUOTA', resource: newClb });
      return caps;
    };
    const nlbServiceAnswer = (trafficPolicy: 'Cluster' | 'Local'): Caps | null => {
      if (!nlbPlannable) return null;
      const caps = new Caps();
      const mode = serviceTrafficPolicy({ annotations: {}, externalTrafficPolicy: trafficPolicy }, cluster).policy;
      caps.use(q.get('NLB_INSTANCE_QUOTA', regionRes), { checkId: 'NLB_INSTANCE_QUOTA', resource: regionRes }, 1);
      caps.use(q.get('NLB_SERVER_GROUP_QUOTA', regionRes), { checkId: 'NLB_SERVER_GROUP_QUOTA', resource: regionRes }, ports);
      caps.use(
        q.get('NODEPORT_RANGE_EXHAUSTION', clusterRes),
        { checkId: 'NODEPORT_RANGE_EXHAUSTION', resource: clusterRes },
        ports + (trafficPolicy === 'Local' ? 1 : 0),
      );
      const newNlb: ResourceRef = { kind: 'NetworkLoadBalancer', id: NEW_NLB, accountId: acct, regionId: reg };
      const newGroup: ResourceRef = { kind: 'NlbServerGroup', id: NEW_SERVER_GROUP, accountId: acct, regionId: reg };
      if (ports > effectiveQuota(region.quotas, NLB_QUOTA_LISTENERS).limit) caps.add(0, { checkId: 'NLB_LISTENER_QUOTA', resource: newNlb });
      const groupLimit = effectiveQuota(region.quotas, NLB_QUOTA_SERVER_GROUP_SERVERS).limit;
      const nlbLimit = effectiveQuota(region.quotas, NLB_QUOTA_BACKEND_SERVERS).limit;
      const perGroup = (n: number) => {
        if (n > groupLimit) caps.add(0, { checkId: 'NLB_SERVER_GROUP_BACKEND_QUOTA', resource: newGroup });
        if (n * ports > nlbLimit) caps.add(0, { checkId: 'NLB_BACKEND_QUOTA', resource: newNlb });
      };
      const sel = nodeSelectionOptionsOf({ annotations: {} }, cluster.ccmVersion);
      if (mode === 'cluster') {
        const eligible = 'error' in sel ? [] : index.eligibleNodes(ce, sel.options).nodes;
        perGroup(eligible.length);
        for (const n of eligible) {
          const id = n.ecsInstanceId!;
          caps.use(serverAddedSample(id), { checkId: 'NLB_SERVER_ADDED_QUOTA', resource: ecsRes(id) }, ports);
        }
      } else if (mode === 'local') {
        const workers = k8s.nodes.filter((n) => schedulableBackendNode(n, cluster.ccmVersion));
        const m = Math.min(pods, workers.length);
        perGroup(m);
        if (m > 0) {
          const free = workers.map((n) => ({ id: n.ecsInstanceId!, s: serverAddedSample(n.ecsInstanceId!) })).map((f) => ({ ...f, c: Math.floor((f.s.limit - f.s.used) / ports) }));
          const usable = free.filter((f) => f.c >= 0);
          if (usable.length < m)
            for (const f of free.filter((x) => x.c < 0)) caps.use(f.s, { checkId: 'NLB_SERVER_ADDED_QUOTA', resource: ecsRes(f.id) }, ports);
          const fullest = usable.sort((a, b) => a.c - b.c || (a.id < b.id ? -1 : 1))[0];
          if (fullest) caps.add(waterFill(usable.map((f) => f.c), m), { checkId: 'NLB_SERVER_ADDED_QUOTA', resource: ecsRes(fullest.id) });
        }
      } else perGroup(pods);
      return caps;
    };
    const nlbNotPlanned: NlbNotPlanned | null = !nlbRead
      ? { reason: 'nlb-data-not-read', message: `the NLB data of ${acct}/${reg} was not read (coverage gap nlb)` }
      : !nlbPlannable
        ? {
            reason: 'ccm-without-nlb',
            message: `CCM ${cluster.ccmVersion ?? '(unknown version)'} has no NLB controller (since ${CCM_FEATURES.nlbController.sinceVersion})`,
          }
        : null;
    raw.push({
      clusterId: cluster.clusterId,
      clusterName: cluster.name,
      accountId: acct,
      regionId: reg,
      ...teamField(teamOf(cluster, options.owners)),
      requested,
      caps: {
        nodes: nodeCaps,
        clusterModeServices: serviceAnswer('Cluster'),
        localServices: serviceAnswer('Local'),
        nlbClusterModeServices: nlbServiceAnswer('Cluster'),
        nlbLocalServices: nlbServiceAnswer('Local'),
      },
      nlbNotPlanned,
    });
  }
  return pooledEntries(raw, options.trends ?? []);
}

function teamField(team: string | undefined): { team?: string } {
  return team === undefined ? {} : { team };
}

/**
 * The entries of the requested clusters with the shared quotas split (fairSplit per question and pool), sorted by
 * time to exhaustion (see HeadroomEntry.secondsToExhaustion), then cluster id.
 */
function pooledEntries(raw: readonly RawEntry[], trends: readonly HeadroomTrend[]): HeadroomEntry[] {
  // question -> cluster -> the cap and ref of its smallest pool share, and its SharedQuotaShare rows
  const poolCap = new Map<string, { cap: number; ref: QuotaRef }>();
  const shares = new Map<string, SharedQuotaShare[]>();
  for (const question of HEADROOM_QUESTIONS) {
    const pools = new Map<string, { ref: QuotaRef; room: number; perUnit: number; members: { key: string; cap: number; perUnit: number }[] }>();
    for (const r of raw) {
      const caps = r.caps[question];
      // A cluster over a limit adds nothing: it draws nothing from the pool.
      if (!caps || caps.over.length > 0) continue;
      const own = caps.privateCap();
      const perRef = new Map<string, SharedUse>();
      for (const u of caps.shared) {
        const k = refKey(u.ref);
        const seen = perRef.get(k);
        perRef.set(k, seen ? { ...seen, perUnit: seen.perUnit + u.perUnit } : u);
      }
      for (const [k, u] of perRef) {
        let pool = pools.get(k);
        if (!pool) pools.set(k, (pool = { ref: u.ref, room: u.room, perUnit: u.perUnit, members: [] }));
        pool.members.push({ key: r.clusterId, cap: own === undefined ? Infinity : own * u.perUnit, perUnit: u.perUnit });
      }
    }
    for (const pool of pools.values()) {
      const split = fairSplit(pool.room, pool.members);
      for (const m of pool.members) {
        const share = Math.floor(split.get(m.key)! / m.perUnit);
        const key = `${question}\u0000${m.key}`;
        const best = poolCap.get(key);
        if (!best || share < best.cap || (share === best.cap && refKey(pool.ref) < refKey(best.ref))) poolCap.set(key, { cap: share, ref: pool.ref });
        if (pool.members.length < 2) continue;
        const list = shares.get(m.key) ?? [];
        list.push({
          question,
          checkId: pool.ref.checkId,
          resource: pool.ref.resource,
          room: pool.room,
          fleetHeadroom: Math.floor(pool.room / pool.perUnit),
          clusters: pool.members.length,
          share,
        });
        shares.set(m.key, list);
      }
    }
  }
  const trendOf = new Map<string, number>();
  for (const t of trends)
    if (t.secondsToExhaustion.p50 !== null) trendOf.set(
        refKey({ checkId: t.checkId, resource: { ...t.resource, clusterId: t.resource.clusterId ?? undefined } }),
        t.secondsToExhaustion.p50,
      );
  const answerOf = (r: RawEntry, question: HeadroomQuestion): HeadroomAnswer | null => {
    const caps = r.caps[question];
    if (!caps) return null;
    const own = caps.answer();
    if ('alreadyOver' in own) return own;
    const pooled = poolCap.get(`${question}\u0000${r.clusterId}`);
    if (!pooled) return own;
    if (own.headroom === null || pooled.cap < own.headroom) return { headroom: pooled.cap, limitedBy: pooled.ref };
    return own;
  };
  const out: HeadroomEntry[] = [];
  for (const r of raw) {
    if (!r.requested) continue;
    const answers = {
      nodes: answerOf(r, 'nodes')!,
      clusterModeServices: answerOf(r, 'clusterModeServices')!,
      localServices: answerOf(r, 'localServices')!,
      nlbClusterModeServices: answerOf(r, 'nlbClusterModeServices'),
      nlbLocalServices: answerOf(r, 'nlbLocalServices'),
    };
    let soonest: number | null = null;
    for (const a of Object.values(answers)) {
      if (!a) continue;
      if ('alreadyOver' in a) soonest = 0;
      else if (a.limitedBy) {
        const t = trendOf.get(refKey(a.limitedBy));
        if (t !== undefined && (soonest === null || t < soonest)) soonest = t;
      }
    }
    out.push({
      clusterId: r.clusterId,
      clusterName: r.clusterName,
      ...teamField(r.team),
      ...answers,
      nlbNotPlanned: r.nlbNotPlanned,
      sharedQuotas: (shares.get(r.clusterId) ?? []).sort(
        (a, b) => HEADROOM_QUESTIONS.indexOf(a.question) - HEADROOM_QUESTIONS.indexOf(b.question) || (refKey(a) < refKey(b) ? -1 : 1),
      ),
      secondsToExhaustion: soonest,
    });
  }
  return out.sort(
    (a, b) =>
      (a.secondsToExhaustion ?? Infinity) - (b.secondsToExhaustion ?? Infinity) ||
      (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0),
  );
}

/**
 * Audits a snapshot (the whole catalogue, for its quota samples) and computes the headroom of its clusters (each
 * entry's `team` from the settings' `owners`, else the default team tag).
 * @throws AuditSettingsError for invalid settings; HeadroomOptionError for an unknown `like` node
 */
export function headroomOfSnapshot(
  snapshot: FleetSnapshot,
  options: HeadroomOptions & { now: Date; settings?: PartialAuditSettings },
): HeadroomEntry[] {
  const { now, settings, ...rest } = options;
  const samples = quotaUsageOf(
    runAudit(snapshot, { now, ...(settings ? { settings } : {}) }).results,
    QUOTA_USAGE_CHECK_IDS,
  );
  return computeHeadroom(snapshot, samples, { ...(settings?.owners ? { owners: settings.owners } : {}), ...rest });
}
