import {
  needNlb,
  CLB_KIND,
  NLB_KIND,
  type LoadBalancerKind,
  coverageKey,
  TAG_CCM_OWNER,
  defaultLoadBalancerName,
  eligibleBackendNodes,
  findServiceClb,
  needClb,
  nodeSelectionKey,
  nodeSelectionOptionsOf,
  ccmVersionAtLeast,
  parseCcmNamedKey,
  reusedLoadBalancerId,
  effectiveQuota,
  ecsOrderOf,
  nlbClusterServerIds,
  type AccountSnapshot,
  type Clb,
  type ClusterSnapshot,
  type CoverageDataset,
  type CoverageEntry,
  type EcsOrder,
  type EcsInstance,
  type EligibleNodes,
  type FleetSnapshot,
  type K8sEndpointSlice,
  type K8sEvent,
  type K8sNode,
  type K8sService,
  type Nlb,
  type NlbServer,
  type NlbServerGroup,
  type ServiceNlbMatch,
  type NodeSelectionOptions,
  type RamPolicy,
  type RamSnapshot,
  type RegionSnapshot,
  type ResourceRef,
  type QuotaDefinition,
  type VServerGroup,
} from '@app/domain';
import { ListRowCache, type IdSequence } from './positional-cache';
import { idPathPrefix, idPathRoot, stepIdPath, type IdPath } from './id-path';

/**
 * The lookup structure every check reads, built ONCE per snapshot (STYLE.md F.30: "Rules that look
 * across resources run on a snapshot indexed once"). Eager maps cost one pass over the snapshot;
 * heavier derived views (ECS attachments, default-name lookup, endpoint slices per Service, eligible
 * nodes per selection) are built lazily on first use and memoised, so a run costs O(fleet size).
 *
 * Cloud ids (`lb-`, `i-`, cluster ids, Service UIDs) are globally unique in Alibaba Cloud / Kubernetes,
 * so maps are keyed by id alone.
 */

/** A region with its account. */
export interface RegionEntry {
  account: AccountSnapshot;
  region: RegionSnapshot;
}

/** A CLB with where it lives. */
export interface ClbEntry {
  clb: Clb;
  account: AccountSnapshot;
  region: RegionSnapshot;
}

/** An ECS instance with where it lives. */
export interface EcsEntry {
  ecs: EcsInstance;
  account: AccountSnapshot;
  region: RegionSnapshot;
  /** The listing's position in `region.ecsInstances`. */
  position: number;
}

/** A cluster with where it lives. */
export interface ClusterEntry {
  cluster: ClusterSnapshot;
  account: AccountSnapshot;
  region: RegionSnapshot;
  /**
   * The index entries of the cluster's Services, in snapshot order (empty when its Kubernetes objects were not
   * read): a check that walks a cluster's Services reads their precomputed `needClb` / `needNlb` and shared
   * `serviceRef` here instead of recomputing them per Service.
   */
  services: ServiceEntry[];
}

/** A Service with its cluster. */
export interface ServiceEntry {
  service: K8sService;
  cluster: ClusterEntry;
  /** The Service's default LB name (`defaultLoadBalancerName(uid)`), `''` without a UID. */
  defaultLbName: string;
  /**
   * `needClb(service)`, computed once when the index is built: about twenty checks ask it of every Service, and the
   * annotation lookups behind it were 3% of a 10M-entry analysis. Source: CCM `NeedCLB`.
   */
  needClb: boolean;
  /** `needNlb(service)`, computed once like `needClb`. Source: CCM `NeedNLB`. */
  needNlb: boolean;
  /**
   * The load-balancer kind whose controller takes the Service (`kindOfService`: CLB when `needClb`, NLB when
   * `needNlb`), `undefined` when none does; a rule that judges every kind asks it instead of branching on the kind.
   */
  kind: LoadBalancerKind | undefined;
  /**
   * `reusedLoadBalancerId(service)` (the trimmed `loadbalancer-id` annotation, `undefined` when absent or blank),
   * computed once like `needClb`: a dozen checks ask it of every Service.
   */
  reusedLbId: string | undefined;
  /**
   * The Service's ResourceRef once `serviceRef` built it (shared by every result about the Service), `undefined`
   * before. Only `serviceRef` sets it.
   */
  ref: ResourceRef | undefined;
  /** `FleetIndex.selectionOf`'s answer once computed, `undefined` before. Only `selectionOf` sets it. */
  selection: { options: NodeSelectionOptions } | { error: string } | undefined;
  /** `FleetIndex.eligibleNodesOf`'s answer once computed (`null`: the selection does not parse), `undefined` before. */
  eligible: EligibleNodes | null | undefined;
  /** `FleetIndex.slicesOf`'s answer once computed, `undefined` before. Only `slicesOf` sets it. */
  slices: K8sEndpointSlice[] | undefined;
  /**
   * `FleetIndex.clbOf`'s answer once computed, `undefined` before. Only `clbOf` sets it. Memos live on the entry, not in
   * maps keyed by it: a dozen checks ask per Service, and each map lookup was a cache miss.
   */
  clb: ClbLookup | undefined;
  /** `FleetIndex.reusedClb`'s answer once computed (`null`: the Service reuses no CLB), `undefined` before. */
  reused: ReusedClb | null | undefined;
  /** `nlbOfService`'s answer once computed (`null`: its region's NLBs were not read), `undefined` before. */
  nlb: { nlb?: Nlb; by: ServiceNlbMatch } | null | undefined;
  /** `FleetIndex.eventsOf`'s answer once computed, `undefined` before. Only `eventsOf` sets it. */
  events: K8sEvent[] | undefined;
}

/**
 * How a Service's CLB was found (`FleetIndex.clbOf`): by the `loadbalancer-id` annotation (`id`), the
 * `kubernetes.do.not.delete` tag (`tag`) or the default LB name (`name`); `entry` is undefined for `none`.
 */
export interface ClbLookup {
  entry?: ClbEntry;
  by: 'id' | 'tag' | 'name' | 'none';
}

/** The CLB a Service reuses (`FleetIndex.reusedClb`), or why it cannot be judged. */
export type ReusedClb =
  { lbId: string; entry: ClbEntry } | { lbId: string; entry?: undefined; skipReason: string };

/** An ECS instance of a region as the `ecs` scope sees it: listed by ECS, or only named among CLB backends. */
export interface EcsScopeEntry {
  instanceId: string;
  account: AccountSnapshot;
  region: RegionSnapshot;
  /** The DescribeInstances record, when the instance was listed. */
  ecs?: EcsInstance | undefined;
  /** The Kubernetes node backed by the instance, when one is. */
  node?: NodeEntry | undefined;
  /** How many CLB instances of the region list it as a backend (`ecsAttachments`); `undefined` when none does. */
  attachment?: EcsAttachment | undefined;
}

/** A node with its cluster. */
export interface NodeEntry {
  node: K8sNode;
  cluster: ClusterEntry;
}

/** How many CLB instances (and vServer groups) one ECS instance is a backend of, within its region. */
export interface EcsAttachment {
  /** Distinct CLB instances listing the ECS as a backend (default group or any vServer group). */
  loadBalancers: number;
  /** vServer groups (plus default groups) listing it, count. */
  groups: number;
  /**
   * Every CLB id of the region listing it, in CLB order, as a path of the region's trie (`IdPath`: `sortedIds` gives
   * them sorted, one array shared by the instances of the same CLBs): what the fleet graph stores per ECS instance.
   * Absent when only CLBs counted apart list it (`FleetIndexOptions.attachmentsOutside`).
   */
  loadBalancerPath?: IdPath;
}

/**
 * The nodes of an eligible set ranked by a count (CLB instances a node is a backend of, NLB server groups it is in),
 * largest first, ties in node order: `names[i]` has `counts[i]`. Two flat arrays, not an object per node: one
 * ranking is kept per eligible node set, about 10,000 of them on a 5,000-cluster fleet.
 */
export interface NodeRanking {
  names: readonly string[];
  counts: Int32Array;
}

/** The nodes of an eligible set with `countOf` each, largest count first, ties in node order. */
export function rankNodes(eligible: EligibleNodes, countOf: (n: K8sNode) => number): NodeRanking {
  const { nodes } = eligible;
  const counts = new Array<number>(nodes.length);
  const order = new Array<number>(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    counts[i] = countOf(nodes[i]!);
    order[i] = i;
  }
  order.sort((a, b) => counts[b]! - counts[a]! || a - b);
  // Indexed loops, not `map` / `Int32Array.from` (an iterator result per node: 10,000 sets of 100 nodes at 5,000 clusters).
  const names = new Array<string>(nodes.length);
  const ranked = new Int32Array(nodes.length);
  for (let k = 0; k < order.length; k++) {
    names[k] = nodes[order[k]!]!.name;
    ranked[k] = counts[order[k]!]!;
  }
  return { names, counts: ranked };
}

/**
 * The largest count of a ranking (`rankNodes`) among the nodes not in `exclude` (0 when every node is): the same
 * as the maximum over those nodes, found in O(|exclude| + 1) steps instead of one step per node.
 */
export function maxCountOutside(ranking: NodeRanking, exclude: ReadonlySet<string>): number {
  const { names, counts } = ranking;
  for (let i = 0; i < names.length; i++) if (!exclude.has(names[i]!)) return counts[i]!;
  return 0;
}

/** Backend figures of one CLB. */
export interface ClbBackendStats {
  /** Backend server entries over the default group and every vServer group (count). */
  entries: number;
  /** Distinct server ids among them (count). */
  distinctServers: number;
  vServerGroups: number;
}

/** How many CLB ids `sampleLoadBalancerIdsOf` names for messages: the first ones, in CLB order. */
const SAMPLE_LOAD_BALANCERS = 5;

/**
 * Up to 5 of the CLB ids listing an ECS instance, for messages: the first ones of its `loadBalancerPath`, in CLB
 * order (none when only CLBs counted apart list it). Read off the path when asked, not kept per instance: an array
 * of five per instance would be about 45 MB of the index on a 5,000-cluster fleet (500,000 instances).
 */
export function sampleLoadBalancerIdsOf(a: EcsAttachment): string[] {
  return a.loadBalancerPath === undefined ? [] : idPathPrefix(a.loadBalancerPath, SAMPLE_LOAD_BALANCERS);
}

/**
 * What `regionBackendStats` keeps per server id: the CLB and group it was last counted on (`lb`, `group`), and its
 * attachment counts. For an ECS instance the record is its `EcsAttachment` itself (the stamps ride along unread), so
 * the pass keeps one object per instance instead of a stamp beside its attachment and a map of stamps.
 */
interface ServerRecord extends EcsAttachment {
  lb: number;
  group: number;
}

interface RegionBackendStats {
  attachments: Map<string, EcsAttachment>;
  clbs: Map<string, ClbBackendStats>;
  /** Per non-empty vServer group of the region: its shape (`VServerGroupShape`). */
  groups: Map<VServerGroup, VServerGroupShape>;
}

/**
 * What the backend pass (`regionBackendStats`) learns of one vServer group's backends, for LB_CONFIG_DRIFT's
 * Cluster-mode fast path: `uniform` when every backend is `ecs`, on the first backend's `port`, with its `weight`,
 * described by the group's own name (what CCM writes in Cluster mode); `sequence` names its id sequence.
 */
export interface VServerGroupShape {
  uniform: boolean;
  port: number | undefined;
  weight: number | undefined;
  sequence: IdSequence;
}

/** The NLB view of one region (only for regions whose `nlb` dataset was read; built by nlb-index `regionNlbView`). */
export interface RegionNlbView {
  nlbById: Map<string, Nlb>;
  nlbsByOwnerTag: Map<string, Nlb[]>;
  nlbsByName: Map<string, Nlb[]>;
  nlbByDnsName: Map<string, Nlb>;
  groupById: Map<string, NlbServerGroup>;
  /** Server groups by name (the last listed wins where two share a name), for CCM's by-name matching of a Service's groups. */
  groupByName: Map<string, NlbServerGroup>;
  /**
   * Server key (nlb-index `serverKey`) -> the server (its first entry) and how many server groups hold it (count: one
   * per group entry). A count, not the list of groups: what the checks read of it is how many (NLB_SERVER_ADDED_QUOTA,
   * the Cluster-mode ranking), and one list per server grown by 2.6M pushes on a 5,000-cluster fleet was 0.1 GB.
   */
  groupsByServer: Map<string, { server: NlbServer; groups: number }>;
  /** Per non-empty server group: its shape (`NlbServerGroupShape`), read off the same pass. */
  groupShapes: Map<NlbServerGroup, NlbServerGroupShape>;
}

/**
 * What the pass of `regionNlbView` learns of one server group's servers, for LB_CONFIG_DRIFT's Cluster-mode fast
 * path: `uniform` when every server is `Ecs` on the first server's `port` with its `weight` (absent counted as 0) and
 * the group's name as its description (what CCM writes; nlbv2/server_groups.go `diff` rewrites any other);
 * `sequence` names its server-key sequence (groups sharing one hold the same servers at the same positions, from
 * the row memo; compared with an id list by `sameServerIds`).
 */
export interface NlbServerGroupShape {
  uniform: boolean;
  port: number;
  weight: number;
  sequence: IdSequence;
}

function serviceKey(clusterId: string, namespace: string, name: string): string {
  return `${clusterId}/${namespace}/${name}`;
}

/** Options of `FleetIndex.build`. */
export interface FleetIndexOptions {
  /**
   * Per region (the snapshot's own object), per ECS instance id: how many CLB instances that are NOT in the region's
   * `loadBalancers` list it as an `ecs` backend, added to its `ecsAttachments` count (`loadBalancers`; its `groups` and
   * `sampleLoadBalancerIdsOf` count and name only the listed CLBs). For a caller that keeps those counts already (the
   * admission review model, libs/forecast cluster-review.model.ts: the CLBs a review does not touch) and leaves their
   * backends out of the list, so the backend pass does not walk them again.
   */
  attachmentsOutside?: ReadonlyMap<RegionSnapshot, ReadonlyMap<string, number>>;
}

/** The fleet index. Construct with `FleetIndex.build(snapshot)`. */
export class FleetIndex {
  /** Every (account, region), in snapshot order. */
  readonly regions: RegionEntry[] = [];
  /** Every cluster, in snapshot order. */
  readonly clusters: ClusterEntry[] = [];
  /** Every Service of every cluster whose Kubernetes objects were read, in snapshot order. */
  readonly services: ServiceEntry[] = [];
  readonly clbById = new Map<string, ClbEntry>();
  readonly ecsById = new Map<string, EcsEntry>();
  readonly clusterById = new Map<string, ClusterEntry>();
  /**
   * The node of each listed ECS instance, per region, at its listing's position in `region.ecsInstances` (the last
   * node naming the instance, as a map by id would hold): `nodeOfEcs` and the `ecs` scope read it without a lookup.
   */
  private readonly nodesByListing = new Map<RegionSnapshot, (NodeEntry | undefined)[]>();
  /** The node of each ECS id no region lists (the last node naming it). */
  private readonly nodeByUnlistedEcsId = new Map<string, NodeEntry>();
  /** Per cluster, the ECS record of each node (`ecsById`: the winning listing), at the node's position in `nodes`. */
  private readonly nodeEcsByCluster = new Map<ClusterSnapshot, (EcsInstance | undefined)[]>();
  /** ECS ids listed more than once in the snapshot (empty on sound data): `ecsById` holds the last listing. */
  private readonly ecsListedTwice = new Set<string>();
  readonly serviceByUid = new Map<string, ServiceEntry>();
  /** API-server CLB id -> the cluster(s) naming it as `external_loadbalancer_id`. */
  readonly apiServerClusters = new Map<string, ClusterEntry[]>();
  /** CLB id -> Services whose `...-loadbalancer-id` annotation names it. */
  readonly reusersByLbId = new Map<string, ServiceEntry[]>();

  private readonly serviceByKey = new Map<string, ServiceEntry>();
  private readonly coverage = new Map<string, CoverageEntry>();
  private clbsByOwnerTagCache?: Map<string, ClbEntry[]>;
  private servicesByDefaultNameCache?: Map<string, ServiceEntry[]>;
  private readonly slicesByCluster = new Map<string, Map<string, K8sEndpointSlice[]>>();
  private readonly eligibleCache = new Map<string, EligibleNodes>();
  private readonly statsByRegion = new Map<RegionSnapshot, RegionBackendStats>();
  private readonly ramPoliciesCache = new Map<RamSnapshot, Map<string, RamPolicy>>();
  private readonly ecsPositionCache = new Map<EligibleNodes, Map<string, number>>();
  private readonly ecsOrderCache = new Map<EligibleNodes, EcsOrder>();
  private readonly sortedEcsIdsCache = new Map<EligibleNodes, readonly string[] | null>();
  private readonly attachmentRankingCache = new Map<EligibleNodes, NodeRanking>();
  private readonly quotaCache = new Map<
    RegionSnapshot,
    Map<string, { limit: number; limitSource: 'quota-center' | 'default' }>
  >();
  private clustersByRegionCache?: Map<RegionSnapshot, ClusterEntry[]>;
  private readonly clustersNotAllReadCache = new Map<RegionSnapshot, string | null>();
  private readonly clbsByNameCache = new Map<RegionSnapshot, Map<string, ClbEntry[]>>();
  private readonly clbEntriesByRegion = new Map<RegionSnapshot, ClbEntry[]>();
  private readonly eventsByCluster = new Map<string, Map<string, K8sEvent[]>>();
  private readonly groupsByClb = new Map<Clb, Map<string, VServerGroup>>();
  private servicesByClbCache?: Map<string, ServiceEntry[]>;
  private readonly nodeNamesByCluster = new Map<string, Set<string>>();
  private readonly nlbViewCache = new Map<RegionSnapshot, RegionNlbView | null>();
  private nlbServicesByRegionCache?: Map<RegionSnapshot, ServiceEntry[]>;
  private readonly nlbRankingCache = new Map<EligibleNodes, NodeRanking>();
  private readonly nlbServerIdsCache = new Map<EligibleNodes, Map<string, readonly string[] | null>>();
  private readonly ccmAtLeastCache = new Map<string, Map<string, boolean | undefined>>();
  /** Values other modules derive from this index (`memo`), by their key. */
  private readonly memos = new Map<symbol, unknown>();

  /**
   * @param snapshot the fleet indexed
   * @param attachmentsOutside per region: ECS attachments to CLBs outside its list, added to `ecsAttachments`
   *   (`FleetIndexOptions`)
   */
  private constructor(
    readonly snapshot: FleetSnapshot,
    private readonly attachmentsOutside: ReadonlyMap<RegionSnapshot, ReadonlyMap<string, number>> | undefined,
  ) {}

  /**
   * Builds the eager maps in one pass over the snapshot.
   *
   * One side effect on the snapshot, which changes no value: the `ecsInstanceId` of a node whose ECS instance is
   * listed is set to the listing's own string (`EcsInstance.instanceId`, equal by value). A node's id is a
   * substring of its providerID, a string of its own, while the mappers intern a region's ECS and backend-server
   * ids into one string each (libs/domain `internPool`); with the node's id the same object too, every map lookup and
   * comparison of a node's id against the region's CLB and NLB backends matches by pointer instead of comparing
   * characters through the providerID (500,000 nodes and 10M backend entries on a 5,000-cluster fleet).
   */
  static build(snapshot: FleetSnapshot, options: FleetIndexOptions = {}): FleetIndex {
    const ix = new FleetIndex(snapshot, options.attachmentsOutside);
    for (const c of snapshot.coverage) ix.coverage.set(coverageKey(c), c);
    for (const account of snapshot.accounts) {
      for (const region of account.regions) {
        ix.regions.push({ account, region });
        for (const clb of region.loadBalancers ?? [])
          ix.clbById.set(clb.loadBalancerId, { clb, account, region });
        const listed = region.ecsInstances ?? [];
        for (let position = 0; position < listed.length; position++) {
          const ecs = listed[position]!;
          const before = ix.ecsById.size;
          ix.ecsById.set(ecs.instanceId, { ecs, account, region, position });
          // Listed twice (in two regions, or twice in one): `forEachEcs` then asks `ecsById` which listing won.
          if (ix.ecsById.size === before) ix.ecsListedTwice.add(ecs.instanceId);
        }
        const firstCluster = ix.clusters.length;
        for (const cluster of region.clusters) {
          const entry: ClusterEntry = { cluster, account, region, services: [] };
          ix.clusters.push(entry);
          ix.clusterById.set(cluster.clusterId, entry);
          if (cluster.apiServerLoadBalancerId) {
            const list = ix.apiServerClusters.get(cluster.apiServerLoadBalancerId) ?? [];
            list.push(entry);
            ix.apiServerClusters.set(cluster.apiServerLoadBalancerId, list);
          }
          const k8s = cluster.kubernetes;
          if (!k8s) continue;
          for (const service of k8s.services) {
            const reused = reusedLoadBalancerId(service);
            const clb = needClb(service);
            const nlb = needNlb(service);
            const se: ServiceEntry = {
              service,
              cluster: entry,
              defaultLbName: service.uid ? defaultLoadBalancerName(service.uid) : '',
              needClb: clb,
              needNlb: nlb,
              kind: clb ? CLB_KIND : nlb ? NLB_KIND : undefined,
              reusedLbId: reused,
              ref: undefined,
              selection: undefined,
              eligible: undefined,
              slices: undefined,
              clb: undefined,
              reused: undefined,
              nlb: undefined,
              events: undefined,
            };
            ix.services.push(se);
            entry.services.push(se);
            ix.serviceByKey.set(serviceKey(cluster.clusterId, service.namespace, service.name), se);
            if (service.uid) ix.serviceByUid.set(service.uid, se);
            if (reused) {
              const list = ix.reusersByLbId.get(reused) ?? [];
              list.push(se);
              ix.reusersByLbId.set(reused, list);
            }
          }
        }
        // The region's nodes to ECS instances both ways while its listings are the last ones added to `ecsById` (its
        // entries and their id strings still in the CPU caches: one fleet-wide pass after every region cost twice as
        // much on a 5,000-cluster fleet).
        for (let c = firstCluster; c < ix.clusters.length; c++) ix.linkNodes(ix.clusters[c]!);
      }
    }
    // A node linked before a later region listed its instance (an id listed twice, or listed only in a later region)
    // got an earlier answer than the snapshot's last listing: link every node again, now against the whole fleet's
    // listings (never on sound data, where each ECS id is listed once, in the region of its cluster).
    let relink = ix.ecsListedTwice.size > 0;
    if (!relink)
      for (const id of ix.nodeByUnlistedEcsId.keys())
        if (ix.ecsById.has(id)) {
          relink = true;
          break;
        }
    if (relink) {
      ix.nodesByListing.clear();
      ix.nodeByUnlistedEcsId.clear();
      ix.nodeEcsByCluster.clear();
      for (const entry of ix.clusters) ix.linkNodes(entry);
    }
    return ix;
  }

  /**
   * Links a cluster's nodes to their ECS instances both ways against the listings in `ecsById` so far: the listing of
   * each node's instance (`nodeEcsOf`), and the node of each listing (`nodeOfEcs`; the last node naming it wins), or
   * the node of an ECS id no region lists.
   */
  private linkNodes(entry: ClusterEntry): void {
    const nodes = entry.cluster.kubernetes?.nodes;
    if (!nodes) return;
    const nodeEcs = new Array<EcsInstance | undefined>(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const id = node.ecsInstanceId;
      if (!id) continue;
      const e = this.ecsById.get(id);
      if (e === undefined) {
        this.nodeByUnlistedEcsId.set(id, { node, cluster: entry });
        continue;
      }
      nodeEcs[i] = e.ecs;
      // One string object per ECS id (see `build`): the node's id becomes the listing's own string.
      node.ecsInstanceId = e.ecs.instanceId;
      let byListing = this.nodesByListing.get(e.region);
      if (!byListing) this.nodesByListing.set(e.region, (byListing = new Array<NodeEntry | undefined>(e.region.ecsInstances?.length ?? 0)));
      byListing[e.position] = { node, cluster: entry };
    }
    this.nodeEcsByCluster.set(entry.cluster, nodeEcs);
  }

  /** The Kubernetes node an ECS instance backs (the last node naming it in the snapshot), if any. */
  nodeOfEcs(instanceId: string): NodeEntry | undefined {
    const e = this.ecsById.get(instanceId);
    return e === undefined ? this.nodeByUnlistedEcsId.get(instanceId) : this.nodesByListing.get(e.region)?.[e.position];
  }

  /**
   * The ECS record of each node of a cluster (`ecsById`: the listing that won, in any region), at the node's position
   * in `cluster.kubernetes.nodes`; empty when its Kubernetes objects were not read.
   */
  nodeEcsOf(cluster: ClusterSnapshot): readonly (EcsInstance | undefined)[] {
    return this.nodeEcsByCluster.get(cluster) ?? [];
  }

  /**
   * The failed coverage entry for a dataset at the most specific level given, or at an enclosing level
   * (cluster -> region -> account), or `undefined` when nothing failed.
   */
  failedCoverage(
    accountId: string,
    regionId: string | undefined,
    clusterId: string | undefined,
    api: CoverageDataset,
  ): CoverageEntry | undefined {
    const keys = [
      coverageKey({ accountId, regionId, clusterId, api }),
      coverageKey({ accountId, regionId, api }),
      coverageKey({ accountId, api }),
    ];
    for (const k of keys) {
      const c = this.coverage.get(k);
      if (c && c.status === 'failed') return c;
    }
    return undefined;
  }

  /** A Service by cluster id and namespace/name. */
  service(clusterId: string, namespace: string, name: string): ServiceEntry | undefined {
    return this.serviceByKey.get(serviceKey(clusterId, namespace, name));
  }

  /**
   * The Service a CCM name (vServer group name, listener or backend description
   * `k8s/{port}/{svc}/{ns}/{clusterId}`) belongs to, or `undefined` (user-managed name, or Service gone).
   */
  serviceForCcmName(name: string | undefined): ServiceEntry | undefined {
    const key = parseCcmNamedKey(name);
    return key ? this.service(key.clusterId, key.namespace, key.serviceName) : undefined;
  }

  /** CLBs by the value of their `kubernetes.do.not.delete` tag (lazy). */
  clbsByOwnerTag(): Map<string, ClbEntry[]> {
    if (!this.clbsByOwnerTagCache) {
      const m = new Map<string, ClbEntry[]>();
      for (const e of this.clbById.values()) {
        const v = e.clb.tags[TAG_CCM_OWNER];
        if (v === undefined) continue;
        const list = m.get(v) ?? [];
        list.push(e);
        m.set(v, list);
      }
      this.clbsByOwnerTagCache = m;
    }
    return this.clbsByOwnerTagCache;
  }

  /** Services by their default LB name (`"a"` + UID without dashes, 32 chars) (lazy). */
  servicesByDefaultLbName(): Map<string, ServiceEntry[]> {
    if (!this.servicesByDefaultNameCache) {
      const m = new Map<string, ServiceEntry[]>();
      for (const se of this.services) {
        if (!se.defaultLbName) continue;
        const name = se.defaultLbName;
        const list = m.get(name) ?? [];
        list.push(se);
        m.set(name, list);
      }
      this.servicesByDefaultNameCache = m;
    }
    return this.servicesByDefaultNameCache;
  }

  /**
   * The CLB of a Service as CCM finds it at the next sync (`findServiceClb`, libs/domain: the `loadbalancer-id`
   * annotation, else the ownership tag, else the default name; never the `loadbalancer-id` label), among the CLBs
   * of the Service's account and region only. Memoised per Service.
   */
  clbOf(se: ServiceEntry): ClbLookup {
    return (se.clb ??= this.findClb(se));
  }

  private findClb(se: ServiceEntry): ClbLookup {
    const { account, region } = se.cluster;
    const local = (e: ClbEntry | undefined) =>
      e && e.account.accountId === account.accountId && e.region.regionId === region.regionId ? e : undefined;
    const { clb, by } = findServiceClb(se.service, {
      byId: (id) => local(this.clbById.get(id)),
      byOwnerTag: (name) => (this.clbsByOwnerTag().get(name) ?? []).find((e) => local(e)),
      byName: (name) => this.clbsByName(region).get(name)?.[0],
    }, se);
    return clb ? { entry: clb, by } : { by: 'none' };
  }

  /**
   * The CLB a Service's backends are counted on (quota burn, Services sharing a CLB): `clbOf` when it found the
   * CLB by id or by tag. A CLB found only by its name (untagged, CCM <= v1.9.3.10; names are not unique) is not
   * attributed to the Service: LB_RENAME_TAG_MISSING reports it.
   */
  attributedClbOf(se: ServiceEntry): ClbEntry | undefined {
    const found = this.clbOf(se);
    return found.by === 'name' ? undefined : found.entry;
  }

  /**
   * The CLB a Service reuses (`loadbalancer-id` annotation) as CCM finds it (`clbOf`: the Service's account and
   * region only, since CCM calls the SLB API with that account's credentials in that region), or why it cannot be
   * judged; `undefined` when the Service reuses no CLB. Not judged when the region's CLBs were not read (standard
   * wording, with the scan's coverage message) or the CLB is not there: CCM answers "can not find loadbalancer"
   * (pkg/controller/service/clbv1/loadbalancer.go `Find`; CCM notes 1.1 (docs/sources.md#ccm-1)) and
   * LB_NOT_FOUND_FOR_SERVICE reports it, also for a CLB id of another account or region of the fleet.
   * Memoised per Service; the `reusedClb` scope of the rule engine is built on it.
   */
  reusedClb(se: ServiceEntry): ReusedClb | undefined {
    let r = se.reused;
    if (r === undefined) r = se.reused = this.judgeReusedClb(se) ?? null;
    return r ?? undefined;
  }

  private judgeReusedClb(se: ServiceEntry): ReusedClb | undefined {
    const lbId = se.reusedLbId;
    if (!lbId) return undefined;
    const { account, region } = se.cluster;
    if (!region.loadBalancers) return { lbId, skipReason: this.slbNotReadReason(account, region) };
    const found = this.clbOf(se);
    return found.entry
      ? { lbId, entry: found.entry }
      : { lbId, skipReason: `CLB ${lbId} is not among the CLB instances of ${region.regionId} (see LB_NOT_FOUND_FOR_SERVICE)` };
  }

  /**
   * Why a dataset is missing: `<what> were not read`, with the failed coverage entry's message when the scan
   * recorded one (cluster -> region -> account, `failedCoverage`). The one wording of every `skipped` result for data
   * not read (result.util `notReadReason`).
   */
  notReadReason(
    what: string,
    api: CoverageDataset,
    accountId: string,
    regionId?: string,
    clusterId?: string,
    verb: 'were' | 'was' = 'were',
  ): string {
    const failed = this.failedCoverage(accountId, regionId, clusterId, api);
    return `${what} ${verb} not read${failed?.message ? ` (${failed.message})` : ''}`;
  }

  /** The standard reason of a region's CLB instances not read (with the scan's coverage message, if any). */
  slbNotReadReason(account: AccountSnapshot, region: RegionSnapshot): string {
    return this.notReadReason(
      `CLB instances of ${region.regionId}`,
      'slb',
      account.accountId,
      region.regionId,
    );
  }

  /**
   * The index entries of a region's CLBs, in `region.loadBalancers` order: `clbById`'s entry for each id (where two
   * CLBs share an id, the last listed, as `clbById` holds it), else one made for the CLB. Lazy, per region: the `clb`
   * scope walks it for each of its checks (a dozen), where a lookup per CLB and check was 1M map lookups on a
   * 5,000-cluster fleet. Empty when the region's CLBs were not read.
   */
  clbEntriesOf(re: RegionEntry): ClbEntry[] {
    let entries = this.clbEntriesByRegion.get(re.region);
    if (!entries) {
      const lbs = re.region.loadBalancers ?? [];
      entries = new Array<ClbEntry>(lbs.length);
      for (let i = 0; i < lbs.length; i++) {
        const clb = lbs[i]!;
        entries[i] = this.clbById.get(clb.loadBalancerId) ?? { clb, account: re.account, region: re.region };
      }
      this.clbEntriesByRegion.set(re.region, entries);
    }
    return entries;
  }

  /** The CLBs of a region by `LoadBalancerName` (lazy, per region). */
  clbsByName(region: RegionSnapshot): Map<string, ClbEntry[]> {
    let m = this.clbsByNameCache.get(region);
    if (!m) {
      m = new Map();
      for (const clb of region.loadBalancers ?? []) {
        const e = this.clbById.get(clb.loadBalancerId);
        if (!e) continue;
        const list = m.get(clb.name);
        if (list) list.push(e);
        else m.set(clb.name, [e]);
      }
      this.clbsByNameCache.set(region, m);
    }
    return m;
  }

  /**
   * CLB id -> the CLB Services (`needClb`) whose backends are on it (`attributedClbOf`), in snapshot order (lazy,
   * one pass over the Services).
   */
  servicesByClb(): Map<string, ServiceEntry[]> {
    if (!this.servicesByClbCache) {
      const m = new Map<string, ServiceEntry[]>();
      for (const se of this.services) {
        if (!se.needClb) continue;
        const e = this.attributedClbOf(se);
        if (!e) continue;
        const id = e.clb.loadBalancerId;
        const list = m.get(id);
        if (list) list.push(se);
        else m.set(id, [se]);
      }
      this.servicesByClbCache = m;
    }
    return this.servicesByClbCache;
  }

  /** The events whose involved object is the Service `namespace/name` of a cluster (lazy, per cluster). */
  private eventsOfService(cluster: ClusterEntry, namespace: string, name: string): K8sEvent[] {
    let byService = this.eventsByCluster.get(cluster.cluster.clusterId);
    if (!byService) {
      byService = new Map();
      for (const e of cluster.cluster.kubernetes?.events ?? []) {
        if (e.involvedObject.kind !== 'Service') continue;
        const k = `${e.involvedObject.namespace ?? e.namespace}/${e.involvedObject.name}`;
        const list = byService.get(k);
        if (list) list.push(e);
        else byService.set(k, [e]);
      }
      this.eventsByCluster.set(cluster.cluster.clusterId, byService);
    }
    return byService.get(`${namespace}/${name}`) ?? [];
  }

  /** A Service's events (`eventsOfService`), memoised per Service: three checks ask it of every LoadBalancer Service. */
  eventsOf(se: ServiceEntry): K8sEvent[] {
    return (se.events ??= this.eventsOfService(se.cluster, se.service.namespace, se.service.name));
  }

  /** The node names of a cluster (lazy, per cluster). */
  nodeNames(cluster: ClusterEntry): ReadonlySet<string> {
    let s = this.nodeNamesByCluster.get(cluster.cluster.clusterId);
    if (!s) {
      s = new Set((cluster.cluster.kubernetes?.nodes ?? []).map((n) => n.name));
      this.nodeNamesByCluster.set(cluster.cluster.clusterId, s);
    }
    return s;
  }

  /** The vServer groups of a CLB by name (lazy, per CLB; the first group wins for duplicate names). */
  vServerGroupsByName(clb: Clb): Map<string, VServerGroup> {
    let m = this.groupsByClb.get(clb);
    if (!m) {
      m = new Map();
      for (const g of clb.vServerGroups) if (!m.has(g.name)) m.set(g.name, g);
      this.groupsByClb.set(clb, m);
    }
    return m;
  }

  /** The EndpointSlices of a Service (by `kubernetes.io/service-name`), grouped once per cluster (lazy). */
  endpointSlicesOf(cluster: ClusterEntry, namespace: string, name: string): K8sEndpointSlice[] {
    let byService = this.slicesByCluster.get(cluster.cluster.clusterId);
    if (!byService) {
      byService = new Map();
      for (const s of cluster.cluster.kubernetes?.endpointSlices ?? []) {
        if (!s.serviceName) continue;
        const k = `${s.namespace}/${s.serviceName}`;
        const list = byService.get(k) ?? [];
        list.push(s);
        byService.set(k, list);
      }
      this.slicesByCluster.set(cluster.cluster.clusterId, byService);
    }
    return byService.get(`${namespace}/${name}`) ?? [];
  }

  /**
   * The node selection options CCM derives from a Service's annotations and its cluster's CCM version
   * (`nodeSelectionOptionsOf`: backend-label, remove-unscheduled-backend), or the error CCM fails the sync with when
   * they do not parse. Memoised per Service: about five checks ask it of every LoadBalancer Service.
   */
  selectionOf(se: ServiceEntry): { options: NodeSelectionOptions } | { error: string } {
    return (se.selection ??= nodeSelectionOptionsOf(se.service, se.cluster.cluster.ccmVersion, this.ccmAtLeast));
  }

  /**
   * `ccmVersionAtLeast(installed, minimum)` (libs/domain version.model.ts), memoised per version text and minimum: the
   * checks ask it once or more per Service, of a few documented minimums (`CCM_FEATURES`), on a fleet running a
   * handful of CCM versions. A property, so it can be handed to a model as its comparison (`CcmVersionAtLeast`).
   */
  readonly ccmAtLeast = (installed: string | undefined, minimum: string): boolean | undefined => {
    if (installed === undefined) return undefined;
    let byMinimum = this.ccmAtLeastCache.get(installed);
    if (byMinimum === undefined) this.ccmAtLeastCache.set(installed, (byMinimum = new Map()));
    let answer = byMinimum.get(minimum);
    if (answer === undefined && !byMinimum.has(minimum)) byMinimum.set(minimum, (answer = ccmVersionAtLeast(installed, minimum)));
    return answer;
  };

  /**
   * The nodes Cluster mode attaches for a Service (`eligibleNodes` with `selectionOf(se)`'s options), or `undefined`
   * when its node selection does not parse (`selectionOf` says why). Memoised per Service, without the cache key
   * `eligibleNodes` builds per call.
   */
  eligibleNodesOf(se: ServiceEntry): EligibleNodes | undefined {
    let e = se.eligible;
    if (e === undefined) {
      const sel = this.selectionOf(se);
      e = se.eligible = 'error' in sel ? null : this.eligibleNodes(se.cluster, sel.options);
    }
    return e ?? undefined;
  }

  /** A Service's EndpointSlices (`endpointSlicesOf`), memoised per Service. */
  slicesOf(se: ServiceEntry): K8sEndpointSlice[] {
    return (se.slices ??= this.endpointSlicesOf(se.cluster, se.service.namespace, se.service.name));
  }

  /**
   * The nodes Cluster mode attaches for one set of node selection options in a cluster, memoised per
   * (cluster, options): Services sharing the defaults share one linear pass over the nodes.
   */
  eligibleNodes(cluster: ClusterEntry, options: NodeSelectionOptions): EligibleNodes {
    const key = `${cluster.cluster.clusterId}#${nodeSelectionKey(options)}`;
    let e = this.eligibleCache.get(key);
    if (!e) {
      e = eligibleBackendNodes(cluster.cluster.kubernetes?.nodes ?? [], options);
      this.eligibleCache.set(key, e);
    }
    return e;
  }

  /**
   * ECS id -> position of the node among the eligible nodes of a set (memoised per set): in Cluster mode
   * `expectedVServerGroups` lists the eligible nodes first and in this order, so one index serves every
   * Cluster-mode Service sharing the node set.
   */
  ecsPositions(eligible: EligibleNodes): Map<string, number> {
    let m = this.ecsPositionCache.get(eligible);
    if (!m) {
      m = new Map();
      for (let i = 0; i < eligible.nodes.length; i++) m.set(eligible.nodes[i]!.ecsInstanceId ?? '', i);
      this.ecsPositionCache.set(eligible, m);
    }
    return m;
  }

  /**
   * The ECS ids of an eligible set's nodes (`?? ''` for a node without one) sorted in code-unit order by the engine's
   * string sort, or `null` when an id is there twice; memoised per set. What LB_CONFIG_DRIFT's Cluster-mode fast path
   * walks a remote vServer group (sorted by id) against; `ecsOrder` is the same order with positions, for the diff.
   */
  sortedEcsIds(eligible: EligibleNodes): readonly string[] | null {
    let ids = this.sortedEcsIdsCache.get(eligible);
    if (ids === undefined) {
      const list = eligible.nodes.map((n) => n.ecsInstanceId ?? '').sort();
      let unique = true;
      for (let i = 1; i < list.length && unique; i++) unique = list[i] !== list[i - 1];
      ids = unique ? list : null;
      this.sortedEcsIdsCache.set(eligible, ids);
    }
    return ids;
  }

  /**
   * The ECS ids of an eligible set sorted by id, with their positions (`ecsOrderOf`; memoised per set): with
   * `ecsPositions`, what `diffVServerGroupBackends` needs to walk a remote group (sorted by id) alongside the
   * Cluster-mode backends.
   */
  ecsOrder(eligible: EligibleNodes): EcsOrder {
    let o = this.ecsOrderCache.get(eligible);
    if (!o) {
      o = ecsOrderOf(eligible.nodes.map((n) => n.ecsInstanceId ?? ''));
      this.ecsOrderCache.set(eligible, o);
    }
    return o;
  }

  /**
   * The most CLB instances any node of an eligible set is a backend of, within the cluster's region (count;
   * 0 when the region's CLBs were not read): the first count of `attachmentRanking`, memoised with it per node set, so
   * Services sharing node selection options share the answer.
   */
  busiestAttachment(cluster: ClusterEntry, eligible: EligibleNodes): number {
    // The ranking's first count (largest first): one pass over the set's nodes serves both questions.
    const { counts } = this.attachmentRanking(cluster, eligible);
    return counts.length > 0 ? counts[0]! : 0;
  }

  /**
   * The nodes of an eligible set with how many CLB instances each is a backend of in the cluster's region, most
   * first (ties in node order); empty when the region's CLBs were not read. Memoised per node set, so a
   * Cluster-mode Service finds its busiest node outside a set (`maxCountOutside`) without a pass over every node.
   */
  attachmentRanking(cluster: ClusterEntry, eligible: EligibleNodes): NodeRanking {
    if (!cluster.region.loadBalancers) return { names: [], counts: new Int32Array(0) };
    let ranking = this.attachmentRankingCache.get(eligible);
    if (!ranking) {
      const attachments = this.ecsAttachments(cluster.region);
      ranking = rankNodes(eligible, (n) => attachments.get(n.ecsInstanceId ?? '')?.loadBalancers ?? 0);
      this.attachmentRankingCache.set(eligible, ranking);
    }
    return ranking;
  }

  /**
   * The NLB view of a region, built by `build` (nlb-index `regionNlbView`: one pass over the region's NLB resources)
   * on first use and kept for the index's life; `null` when the region's `nlb` dataset was not read.
   */
  nlbView(region: RegionSnapshot, build: (region: RegionSnapshot) => RegionNlbView | null): RegionNlbView | null {
    let v = this.nlbViewCache.get(region);
    if (v === undefined) this.nlbViewCache.set(region, (v = build(region)));
    return v;
  }

  /**
   * A value derived from this index by a module the index does not import (lb-refs.ts: the load balancers' owning
   * clusters and shared refs), built by `build` on the first call with `key` and kept for the index's life: the
   * index stays below the modules that read it.
   * @param key the deriving module's own symbol, one per value (the value's type is the module's to keep)
   */
  memo<T>(key: symbol, build: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = build();
    this.memos.set(key, value);
    return value;
  }

  /** The NLB Services (`needNlb`) of a region, in snapshot order (lazy, one pass over the Services). */
  nlbServicesOf(region: RegionSnapshot): ServiceEntry[] {
    let m = this.nlbServicesByRegionCache;
    if (!m) {
      m = this.nlbServicesByRegionCache = new Map();
      for (const se of this.services) {
        if (!se.needNlb) continue;
        const list = m.get(se.cluster.region);
        if (list) list.push(se);
        else m.set(se.cluster.region, [se]);
      }
    }
    return m.get(region) ?? [];
  }

  /**
   * The nodes of an eligible set ranked by how many NLB server groups of the cluster's region each is in (`countOf`,
   * from the region's NLB view), most first; memoised per node set (a set belongs to one cluster, hence one region
   * and one view, so `countOf` gives the same counts at every call for the same set).
   */
  nlbGroupRanking(eligible: EligibleNodes, countOf: (n: K8sNode) => number): NodeRanking {
    let ranking = this.nlbRankingCache.get(eligible);
    if (!ranking) this.nlbRankingCache.set(eligible, (ranking = rankNodes(eligible, countOf)));
    return ranking;
  }

  /**
   * The sorted ECS ids of the Cluster-mode servers of an eligible set at a CCM version (`nlbClusterServerIds`,
   * libs/domain), memoised per node set and version: every Cluster-mode NLB Service of a cluster sharing the node
   * selection shares one sort. `null` when that shape is not certain.
   */
  nlbClusterServerIds(eligible: EligibleNodes, ccmVersion: string | undefined): readonly string[] | null {
    let byVersion = this.nlbServerIdsCache.get(eligible);
    if (!byVersion) this.nlbServerIdsCache.set(eligible, (byVersion = new Map()));
    const key = ccmVersion ?? '';
    let ids = byVersion.get(key);
    if (ids === undefined) {
      ids = nlbClusterServerIds(eligible, ccmVersion);
      byVersion.set(key, ids);
    }
    return ids;
  }

  /** The RAM policies of an account by name (lazy, per RAM snapshot). */
  ramPolicies(ram: RamSnapshot): Map<string, RamPolicy> {
    let m = this.ramPoliciesCache.get(ram);
    if (!m) {
      m = new Map(ram.policies.map((p) => [p.policyName, p]));
      this.ramPoliciesCache.set(ram, m);
    }
    return m;
  }

  /** A region's quota (`effectiveQuota`: Quota Center, else the documented default), memoised per region and code. */
  quota(
    region: RegionSnapshot,
    definition: QuotaDefinition,
  ): { limit: number; limitSource: 'quota-center' | 'default' } {
    let byCode = this.quotaCache.get(region);
    if (!byCode) {
      byCode = new Map();
      this.quotaCache.set(region, byCode);
    }
    let q = byCode.get(definition.quotaActionCode);
    if (!q) {
      q = effectiveQuota(region.quotas, definition);
      byCode.set(definition.quotaActionCode, q);
    }
    return q;
  }

  /** The clusters of a region, in snapshot order (lazy, one pass over the clusters). */
  clustersOf(region: RegionSnapshot): ClusterEntry[] {
    if (!this.clustersByRegionCache) {
      const m = new Map<RegionSnapshot, ClusterEntry[]>();
      for (const ce of this.clusters) {
        const list = m.get(ce.region);
        if (list) list.push(ce);
        else m.set(ce.region, [ce]);
      }
      this.clustersByRegionCache = m;
    }
    return this.clustersByRegionCache.get(region) ?? [];
  }

  /**
   * Why the clusters of a region cannot all be searched (for a Service, by CLB checks), or `undefined` when they
   * can: the region's cluster list failed (`cs` coverage), or some clusters' Kubernetes objects were not read.
   * Memoised per region.
   */
  clustersNotAllRead(account: AccountSnapshot, region: RegionSnapshot): string | undefined {
    let why = this.clustersNotAllReadCache.get(region);
    if (why === undefined) {
      const failed = this.failedCoverage(account.accountId, region.regionId, undefined, 'cs');
      const unread = region.clusters.filter((c) => !c.kubernetes).map((c) => c.clusterId);
      why = failed
        ? `the cluster list of ${region.regionId} was not read${failed.message ? ` (${failed.message})` : ''}`
        : unread.length > 0
          ? `Kubernetes objects of clusters ${unread.join(', ')} were not read`
          : null;
      this.clustersNotAllReadCache.set(region, why);
    }
    return why ?? undefined;
  }

  /**
   * The ECS instances of a region the `ecs` scope judges, handed to `visit` one at a time, none kept: every listed
   * instance, then every ECS id found among the region's CLB backends that was not listed (in first-seen order), each
   * with its attachment record. Visited, not returned as a list: a list of 50,000 entries per region would live as
   * long as a check takes over it, long enough to be promoted, then dropped.
   *
   * One map lookup per instance where the data allows (500,000 instances on the 10M-entry fleet):
   * the listed instance is its own `ecsById` record unless its id is listed twice; repeats in the list, which the
   * mappers sort by id, are next to each other; and the ids found only among backends are looked for only when
   * some attachment record was not met among the listed instances.
   */
  forEachEcs(re: RegionEntry, visit: (entry: EcsScopeEntry) => void): void {
    const attachments = this.ecsAttachments(re.region);
    const listed = re.region.ecsInstances ?? [];
    const byListing = this.nodesByListing.get(re.region);
    /** `position`: the listing's position in the region's list, -1 for an id found only among backends. */
    const add = (instanceId: string, listing: EcsInstance | undefined, attachment: EcsAttachment | undefined, position: number) => {
      const ecs =
        listing !== undefined && (this.ecsListedTwice.size === 0 || !this.ecsListedTwice.has(instanceId))
          ? listing
          : this.ecsById.get(instanceId)?.ecs;
      // The node at the listing's own position, unless the id is listed twice (then the winning listing's) or not at all.
      const node = position >= 0 && (this.ecsListedTwice.size === 0 || !this.ecsListedTwice.has(instanceId))
        ? byListing?.[position]
        : this.nodeOfEcs(instanceId);
      // One literal with every field (an absent one `undefined`): no spread (the spreads were 1 s of a 10M-entry
      // analysis), and no field added after it (a literal has no spare slots: each added field moved the entry's
      // fields to a separate store, 500,000 times).
      visit({ instanceId, account: re.account, region: re.region, ecs, node, attachment });
    };
    let sorted = true;
    for (let i = 1; i < listed.length && sorted; i++) sorted = listed[i - 1]!.instanceId <= listed[i]!.instanceId;
    let met = 0;
    let seen: Set<string> | undefined = sorted ? undefined : new Set();
    for (let i = 0; i < listed.length; i++) {
      const id = listed[i]!.instanceId;
      if (seen ? seen.has(id) : i > 0 && listed[i - 1]!.instanceId === id) continue;
      seen?.add(id);
      const a = attachments.get(id);
      if (a) met++;
      add(id, listed[i], a, i);
    }
    if (met < attachments.size) {
      seen ??= new Set(listed.map((e) => e.instanceId));
      for (const [id, a] of attachments) if (!seen.has(id)) add(id, undefined, a, -1);
    }
  }

  /**
   * Per ECS id, how many CLB instances of the region list it as an `ecs` backend (lazy, per region;
   * one pass over the region's backend entries, computed together with `clbBackendStats`).
   */
  ecsAttachments(region: RegionSnapshot): Map<string, EcsAttachment> {
    return this.regionBackendStats(region).attachments;
  }

  /**
   * Per CLB id of the region: backend entries summed over the default group and every vServer group, and
   * distinct server ids (lazy, shared with `ecsAttachments`).
   */
  clbBackendStats(region: RegionSnapshot): Map<string, ClbBackendStats> {
    return this.regionBackendStats(region).clbs;
  }

  /**
   * The shape of a non-empty vServer group of the region's CLBs (`VServerGroupShape`, from the backend pass shared
   * with `clbBackendStats`), or `undefined` for an empty group or one of another region.
   */
  vServerGroupShape(region: RegionSnapshot, group: VServerGroup): VServerGroupShape | undefined {
    return this.regionBackendStats(region).groups.get(group);
  }

  private regionBackendStats(region: RegionSnapshot): RegionBackendStats {
    let stats = this.statsByRegion.get(region);
    if (stats) return stats;
    stats = { attachments: new Map(), clbs: new Map(), groups: new Map() };
    // Stamps instead of per-group Sets: `lb` / `group` say whether a server was already counted on this CLB
    // / in this group, on the server's own record (`ServerRecord`: an ECS instance's attachment), so each backend
    // entry costs at most one map lookup and no allocation per group: linear with a small constant on a million entries.
    // The records of server ids no `ecs` entry named yet (ENI and ECI backends); an ECS instance's is in `attachments`.
    const others = new Map<string, ServerRecord>();
    const rows = new ListRowCache<ServerRecord>();
    // The region's trie of CLB id lists: the ECS instances of one cluster step through the same CLBs.
    const root = idPathRoot();
    const attachments = stats.attachments;
    let group = 0;
    let lbIndex = 0;
    for (const clb of region.loadBalancers ?? []) {
      lbIndex++;
      let entries = 0;
      let distinct = 0;
      const groupCount = clb.vServerGroups.length;
      for (let gi = -1; gi < groupCount; gi++) {
        const vGroup = gi < 0 ? undefined : clb.vServerGroups[gi]!;
        const servers = vGroup === undefined ? clb.defaultBackendServers : vGroup.backendServers;
        group++;
        entries += servers.length;
        if (servers.length === 0) continue;
        // The entry at the same position of the last group starting with the same server first (`ListRowCache`).
        const memo = rows.row(servers[0]!.serverId);
        // The group's shape, read off the entries this pass loads anyway (`VServerGroupShape`).
        const name = vGroup?.name;
        const port = servers[0]!.port;
        const weight = servers[0]!.weight;
        let uniform = vGroup !== undefined;
        let allHit = true;
        for (let i = 0; i < servers.length; i++) {
          const s = servers[i]!;
          if (uniform && (s.type !== 'ecs' || s.port !== port || s.weight !== weight || s.description !== name)) uniform = false;
          let st = memo.get(i, s.serverId);
          if (st === undefined) {
            allHit = false;
            st = (attachments.get(s.serverId) as ServerRecord | undefined) ?? (others.size > 0 ? others.get(s.serverId) : undefined);
            if (!st) {
              st = { loadBalancers: 0, groups: 0, loadBalancerPath: root, lb: 0, group: 0 };
              (s.type === 'ecs' ? attachments : others).set(s.serverId, st);
            }
            memo.set(i, s.serverId, st);
          }
          if (st.group === group) continue;
          st.group = group;
          const firstOnLb = st.lb !== lbIndex;
          if (firstOnLb) {
            st.lb = lbIndex;
            distinct++;
          }
          if (s.type !== 'ecs') continue;
          const a = st;
          // First named by an `ecs` entry after another type's: it becomes an attachment now, as it is first counted.
          if (a.groups === 0 && others.size > 0 && others.get(s.serverId) === a) {
            others.delete(s.serverId);
            attachments.set(s.serverId, a);
          }
          a.groups++;
          if (firstOnLb) {
            a.loadBalancers++;
            a.loadBalancerPath = stepIdPath(a.loadBalancerPath!, clb.loadBalancerId);
          }
        }
        const sequence = memo.sequenceOf(servers, allHit);
        if (vGroup !== undefined) stats.groups.set(vGroup, { uniform, port, weight, sequence });
      }
      stats.clbs.set(clb.loadBalancerId, {
        entries,
        distinctServers: distinct,
        vServerGroups: groupCount,
      });
    }
    // The CLBs the caller counted apart (`FleetIndexOptions.attachmentsOutside`): counted, never sampled.
    const outside = this.attachmentsOutside?.get(region);
    if (outside)
      for (const [id, n] of outside) {
        if (!(n > 0)) continue;
        let a = attachments.get(id);
        if (!a) {
          a = { loadBalancers: 0, groups: 0 };
          attachments.set(id, a);
        }
        a.loadBalancers += n;
      }
    this.statsByRegion.set(region, stats);
    return stats;
  }
}
