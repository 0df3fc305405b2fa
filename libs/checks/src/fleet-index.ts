import {
  LABEL_SERVICE_LOADBALANCER_ID,
  TAG_CCM_OWNER,
  defaultLoadBalancerName,
  eligibleBackendNodes,
  nodeSelectionKey,
  parseCcmNamedKey,
  reusedLoadBalancerId,
  type AccountSnapshot,
  type Clb,
  type ClusterSnapshot,
  type CoverageDataset,
  type CoverageEntry,
  type EcsInstance,
  type EligibleNodes,
  type FleetSnapshot,
  type K8sEndpointSlice,
  type K8sNode,
  type K8sService,
  type NodeSelectionOptions,
  type RegionSnapshot,
} from '@app/domain';

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
}

/** A cluster with where it lives. */
export interface ClusterEntry {
  cluster: ClusterSnapshot;
  account: AccountSnapshot;
  region: RegionSnapshot;
}

/** A Service with its cluster. */
export interface ServiceEntry {
  service: K8sService;
  cluster: ClusterEntry;
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
  /** Up to 5 of the CLB ids, for messages. */
  sampleLoadBalancerIds: string[];
}

function serviceKey(clusterId: string, namespace: string, name: string): string {
  return `${clusterId}/${namespace}/${name}`;
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
  readonly nodeByEcsId = new Map<string, NodeEntry>();
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
  private readonly attachmentsByRegion = new Map<RegionSnapshot, Map<string, EcsAttachment>>();

  private constructor(readonly snapshot: FleetSnapshot) {}

  /** Builds the eager maps in one pass over the snapshot. */
  static build(snapshot: FleetSnapshot): FleetIndex {
    const ix = new FleetIndex(snapshot);
    for (const c of snapshot.coverage) ix.coverage.set(FleetIndex.coverageKey(c.accountId, c.regionId, c.clusterId, c.api), c);
    for (const account of snapshot.accounts) {
      for (const region of account.regions) {
        ix.regions.push({ account, region });
        for (const clb of region.loadBalancers ?? []) ix.clbById.set(clb.loadBalancerId, { clb, account, region });
        for (const ecs of region.ecsInstances ?? []) ix.ecsById.set(ecs.instanceId, { ecs, account, region });
        for (const cluster of region.clusters) {
          const entry: ClusterEntry = { cluster, account, region };
          ix.clusters.push(entry);
          ix.clusterById.set(cluster.clusterId, entry);
          if (cluster.apiServerLoadBalancerId) {
            const list = ix.apiServerClusters.get(cluster.apiServerLoadBalancerId) ?? [];
            list.push(entry);
            ix.apiServerClusters.set(cluster.apiServerLoadBalancerId, list);
          }
          const k8s = cluster.kubernetes;
          if (!k8s) continue;
          for (const node of k8s.nodes) if (node.ecsInstanceId) ix.nodeByEcsId.set(node.ecsInstanceId, { node, cluster: entry });
          for (const service of k8s.services) {
            const se: ServiceEntry = { service, cluster: entry };
            ix.services.push(se);
            ix.serviceByKey.set(serviceKey(cluster.clusterId, service.namespace, service.name), se);
            if (service.uid) ix.serviceByUid.set(service.uid, se);
            const reused = reusedLoadBalancerId(service);
            if (reused) {
              const list = ix.reusersByLbId.get(reused) ?? [];
              list.push(se);
              ix.reusersByLbId.set(reused, list);
            }
          }
        }
      }
    }
    return ix;
  }

  private static coverageKey(accountId: string, regionId: string | undefined, clusterId: string | undefined, api: string): string {
    return `${accountId}|${regionId ?? ''}|${clusterId ?? ''}|${api}`;
  }

  /**
   * The failed coverage entry for a dataset at the most specific level given, or at an enclosing level
   * (cluster -> region -> account), or `undefined` when nothing failed.
   */
  failedCoverage(accountId: string, regionId: string | undefined, clusterId: string | undefined, api: CoverageDataset): CoverageEntry | undefined {
    const keys = [
      FleetIndex.coverageKey(accountId, regionId, clusterId, api),
      FleetIndex.coverageKey(accountId, regionId, undefined, api),
      FleetIndex.coverageKey(accountId, undefined, undefined, api),
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
        if (!se.service.uid) continue;
        const name = defaultLoadBalancerName(se.service.uid);
        const list = m.get(name) ?? [];
        list.push(se);
        m.set(name, list);
      }
      this.servicesByDefaultNameCache = m;
    }
    return this.servicesByDefaultNameCache;
  }

  /**
   * The CLB a Service uses, as CCM finds it (`FindLoadBalancer`): the `...-loadbalancer-id` annotation,
   * else the `service.k8s.alibaba/loadbalancer-id` label, else the CLB tagged
   * `kubernetes.do.not.delete=<default name>`. `undefined` when none is in the snapshot.
   */
  clbOfService(se: ServiceEntry): ClbEntry | undefined {
    const reused = reusedLoadBalancerId(se.service);
    if (reused) return this.clbById.get(reused);
    const labelled = se.service.labels[LABEL_SERVICE_LOADBALANCER_ID];
    if (labelled) {
      const e = this.clbById.get(labelled);
      if (e) return e;
    }
    if (!se.service.uid) return undefined;
    return this.clbsByOwnerTag().get(defaultLoadBalancerName(se.service.uid))?.[0];
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
   * Per ECS id, how many CLB instances of the region list it as an `ecs` backend (lazy, per region;
   * linear in the region's backend entries).
   */
  ecsAttachments(region: RegionSnapshot): Map<string, EcsAttachment> {
    let m = this.attachmentsByRegion.get(region);
    if (m) return m;
    m = new Map();
    for (const clb of region.loadBalancers ?? []) {
      const seenOnLb = new Set<string>();
      const add = (serverId: string, type: string) => {
        if (type !== 'ecs') return;
        let a = m!.get(serverId);
        if (!a) {
          a = { loadBalancers: 0, groups: 0, sampleLoadBalancerIds: [] };
          m!.set(serverId, a);
        }
        a.groups++;
        if (!seenOnLb.has(serverId)) {
          seenOnLb.add(serverId);
          a.loadBalancers++;
          if (a.sampleLoadBalancerIds.length < 5) a.sampleLoadBalancerIds.push(clb.loadBalancerId);
        }
      };
      // A server counts once per group it is in; duplicates within one group (several ports) count once.
      const perGroup = (servers: readonly { serverId: string; type: string }[]) => {
        const inGroup = new Set<string>();
        for (const s of servers) {
          if (inGroup.has(s.serverId)) continue;
          inGroup.add(s.serverId);
          add(s.serverId, s.type);
        }
      };
      perGroup(clb.defaultBackendServers);
      for (const g of clb.vServerGroups) perGroup(g.backendServers);
    }
    this.attachmentsByRegion.set(region, m);
    return m;
  }
}
