/**
 * Request-scoped DataLoaders (github.com/graphql/dataloader) over the stored fleet graph: every lookup a
 * resolver makes while one GraphQL request executes is collected per tick and answered by ONE batch read of
 * libs/store FleetGraphRepository, so a nested query over 100 clusters x their Services x CLBs costs a small
 * constant number of SQL statements, not one per node. Created per request with the request's principal: every
 * batch read filters by its account scope in SQL, and nothing is cached across requests or principals.
 */
import DataLoader from 'dataloader';
import type { GraphCluster, GraphEcsInstance, GraphRegion, GraphLoadBalancer, GraphNlb, GraphServerGroup, GraphService, QuotaUsageSample, ResourceKind } from '@app/domain';
import type { GraphPage, GraphPageArgs, Principal, Store } from '@app/store';

const SEP = '\u0000';

/** A loader of `T | null` by (scan id, id), batching per scan. */
function byIdLoader<T>(load: (scanId: string, ids: string[]) => Promise<T[]>, idOf: (t: T) => string): DataLoader<string, T | null> {
  return new DataLoader<string, T | null>(async (keys) => {
    const byScan = new Map<string, string[]>();
    for (const k of keys) {
      const [scanId, id] = k.split(SEP) as [string, string];
      const list = byScan.get(scanId);
      if (list) list.push(id);
      else byScan.set(scanId, [id]);
    }
    const found = new Map<string, T>();
    for (const [scanId, ids] of byScan) for (const row of await load(scanId, ids)) found.set(`${scanId}${SEP}${idOf(row)}`, row);
    return keys.map((k) => found.get(k) ?? null);
  });
}

/** A loader of per-parent values by (scan id, group, parent key), batching per (scan id, group). */
function groupedLoader<V>(load: (scanId: string, group: string, parents: string[]) => Promise<V[]>): DataLoader<string, V> {
  return new DataLoader<string, V>(async (keys) => {
    const batches = new Map<string, { scanId: string; group: string; parents: string[]; at: number[] }>();
    keys.forEach((k, i) => {
      const [scanId, group, parent] = k.split(SEP) as [string, string, string];
      const bk = `${scanId}${SEP}${group}`;
      let b = batches.get(bk);
      if (!b) batches.set(bk, (b = { scanId, group, parents: [], at: [] }));
      b.parents.push(parent);
      b.at.push(i);
    });
    const out: V[] = new Array<V>(keys.length);
    for (const b of batches.values()) {
      const values = await load(b.scanId, b.group, b.parents);
      b.at.forEach((i, j) => (out[i] = values[j]!));
    }
    return out;
  });
}

/** Paging arguments as a stable group key. */
function argsKey(args: GraphPageArgs): string {
  return JSON.stringify([args.first ?? null, args.after ?? null, args.last ?? null, args.before ?? null]);
}

/** The loaders of one request. */
export class GraphLoaders {
  private readonly clusters: DataLoader<string, GraphCluster | null>;
  private readonly loadBalancers: DataLoader<string, GraphLoadBalancer | null>;
  private readonly ecsInstances: DataLoader<string, GraphEcsInstance | null>;
  private readonly nlbs: DataLoader<string, GraphNlb | null>;
  private readonly servicePagesOfNlb: DataLoader<string, GraphPage<GraphService>>;
  private readonly serverGroups: DataLoader<string, GraphServerGroup[]>;
  private readonly lbsOfEcs: DataLoader<string, GraphLoadBalancer[]>;
  private readonly quotas: DataLoader<string, QuotaUsageSample[]>;
  private readonly servicePagesOfCluster: DataLoader<string, GraphPage<GraphService>>;
  private readonly servicePagesOfLb: DataLoader<string, GraphPage<GraphService>>;
  private readonly clusterPagesOfRegion: DataLoader<string, GraphPage<GraphCluster>>;
  private readonly regionPagesOfAccount: DataLoader<string, GraphPage<GraphRegion>>;
  /**
   * This request's latest succeeded scan, resolved once for all its top-level fields (ScanSelectionService.scanOf
   * fills it; LatestScanMemo).
   */
  latestScan?: Promise<string | null>;
  /** Whether one of this request's reads named its scan (ScanSelectionService.scanOf sets it; LatestScanMemo). */
  namedScan?: boolean;

  /**
   * @param store the API's store
   * @param principal the request's principal: every batch read is scoped to it
   */
  constructor(
    store: Store,
    readonly principal: Principal,
  ) {
    const g = store.graph;
    this.clusters = byIdLoader((s, ids) => g.clustersByIds(s, ids, principal), (c) => c.clusterId);
    this.loadBalancers = byIdLoader((s, ids) => g.loadBalancersByIds(s, ids, principal), (l) => l.loadBalancerId);
    this.ecsInstances = byIdLoader((s, ids) => g.ecsInstancesByIds(s, ids, principal), (e) => e.instanceId);
    this.nlbs = byIdLoader((s, ids) => g.nlbsByIds(s, ids, principal), (n) => n.nlbId);
    this.servicePagesOfNlb = groupedLoader((s, a, ids) => g.servicePagesByNlbIds(s, ids, parseArgs(a), principal));
    this.serverGroups = groupedLoader(async (s, _g, ids) => {
      const m = await g.serverGroupsByLoadBalancerIds(s, ids, principal);
      return ids.map((id) => m.get(id) ?? []);
    });
    this.lbsOfEcs = groupedLoader(async (s, _g, ids) => {
      const m = await g.loadBalancersByEcsIds(s, ids, principal);
      return ids.map((id) => m.get(id) ?? []);
    });
    this.quotas = groupedLoader(async (s, kind, ids) => {
      const m = await g.quotasByResources(s, ids.map((id) => ({ kind: kind as ResourceKind, id })), principal);
      return ids.map((id) => m.get(`${kind}/${id}`) ?? []);
    });
    this.servicePagesOfCluster = groupedLoader((s, a, ids) => g.servicePagesByClusterIds(s, ids, parseArgs(a), principal));
    this.servicePagesOfLb = groupedLoader((s, a, ids) => g.servicePagesByLoadBalancerIds(s, ids, parseArgs(a), principal));
    this.clusterPagesOfRegion = groupedLoader((s, a, keys) =>
      g.clusterPagesByRegions(
        s,
        keys.map((k) => {
          const [accountId, regionId] = k.split('/') as [string, string];
          return { accountId, regionId };
        }),
        parseArgs(a),
        principal,
      ),
    );
    this.regionPagesOfAccount = groupedLoader(async (s, a, ids) => {
      const m = await g.regionPagesByAccountIds(s, ids, parseArgs(a), principal);
      return ids.map((id) => m.get(id)!);
    });
  }

  /** A cluster of a scan, or null (missing or outside the scope). */
  cluster(scanId: string, id: string): Promise<GraphCluster | null> {
    return this.clusters.load(`${scanId}${SEP}${id}`);
  }

  /** A CLB of a scan, or null. */
  loadBalancer(scanId: string, id: string): Promise<GraphLoadBalancer | null> {
    return this.loadBalancers.load(`${scanId}${SEP}${id}`);
  }

  /** An NLB of a scan, or null (missing or outside the scope). */
  nlb(scanId: string, id: string): Promise<GraphNlb | null> {
    return this.nlbs.load(`${scanId}${SEP}${id}`);
  }

  /** A page of the Services using an NLB. */
  servicesOfNlb(scanId: string, nlbId: string, args: GraphPageArgs): Promise<GraphPage<GraphService>> {
    return this.servicePagesOfNlb.load(`${scanId}${SEP}${argsKey(args)}${SEP}${nlbId}`);
  }

  /** An ECS instance of a scan, or null (also for backends that are ENIs / ECIs or instances not read). */
  ecsInstance(scanId: string, id: string): Promise<GraphEcsInstance | null> {
    return this.ecsInstances.load(`${scanId}${SEP}${id}`);
  }

  /** The server groups of a CLB. */
  serverGroupsOf(scanId: string, lbId: string): Promise<GraphServerGroup[]> {
    return this.serverGroups.load(`${scanId}${SEP}${SEP}${lbId}`);
  }

  /** The CLBs an ECS instance is a backend of. */
  loadBalancersOfEcs(scanId: string, ecsId: string): Promise<GraphLoadBalancer[]> {
    return this.lbsOfEcs.load(`${scanId}${SEP}${SEP}${ecsId}`);
  }

  /** The quota samples of a resource. */
  quotasOf(scanId: string, kind: ResourceKind, id: string): Promise<QuotaUsageSample[]> {
    return this.quotas.load(`${scanId}${SEP}${kind}${SEP}${id}`);
  }

  /** A page of a cluster's Services. */
  servicesOfCluster(scanId: string, clusterId: string, args: GraphPageArgs): Promise<GraphPage<GraphService>> {
    return this.servicePagesOfCluster.load(`${scanId}${SEP}${argsKey(args)}${SEP}${clusterId}`);
  }

  /** A page of the Services sharing a CLB. */
  servicesOfLoadBalancer(scanId: string, lbId: string, args: GraphPageArgs): Promise<GraphPage<GraphService>> {
    return this.servicePagesOfLb.load(`${scanId}${SEP}${argsKey(args)}${SEP}${lbId}`);
  }

  /** A page of a region's clusters. */
  clustersOfRegion(scanId: string, accountId: string, regionId: string, args: GraphPageArgs): Promise<GraphPage<GraphCluster>> {
    return this.clusterPagesOfRegion.load(`${scanId}${SEP}${argsKey(args)}${SEP}${accountId}/${regionId}`);
  }

  /** A page of an account's regions. */
  regionsOfAccount(scanId: string, accountId: string, args: GraphPageArgs): Promise<GraphPage<GraphRegion>> {
    return this.regionPagesOfAccount.load(`${scanId}${SEP}${argsKey(args)}${SEP}${accountId}`);
  }
}

function parseArgs(key: string): GraphPageArgs {
  const [first, after, last, before] = JSON.parse(key) as [number | null, string | null, number | null, string | null];
  return {
    ...(first !== null ? { first } : {}),
    ...(after !== null ? { after } : {}),
    ...(last !== null ? { last } : {}),
    ...(before !== null ? { before } : {}),
  };
}
