import { Injectable } from '@nestjs/common';
import type { GraphCluster, GraphEcsInstance, GraphLoadBalancer, GraphNlb } from '@app/domain';
import { Store, StoreError, type EcsInstanceListFilter, type GraphAccount, type GraphPageArgs, type LoadBalancerListFilter, type NlbListFilter, type Principal } from '@app/store';
import { GenerationAnswerCache } from '../common/generation-answer-cache.util';
import { cursorPage, type Listing } from '../common/listing.util';
import { toQuotaDto } from '../quotas/quota.mapper';
import { namesScan, ScanSelectionService } from '../scans/scan-selection.service';
import type { ClusterPageDto, EcsInstanceDetailDto, EcsInstancePageDto, LoadBalancerDetailDto, LoadBalancerPageDto, NlbDetailDto, NlbPageDto, UnusedNlbServerGroupsDto } from './fleet.dto';
import { toServerGroupDto } from './fleet.mapper';
import type { ListClustersQuery, ListEcsInstancesQuery, ListLoadBalancersQuery, ListNlbsQuery, ListUnusedNlbServerGroupsQuery } from './fleet.schemas';

/**
 * The JSON text of an answer of type `T` (`JSON.stringify` of it): what the fleet reads hand their controller, which
 * sends it as `application/json` as it is (GenerationAnswerCache).
 */
export type JsonText<T> = string & { readonly __json?: T };

/** Filters of the cluster listing (undefined: not filtered). */
export interface ClusterFilter {
  accountId?: string;
  regionId?: string;
}

/** Filters of the CLB listing (libs/store LoadBalancerListFilter): `owner` is ccm, reused or console. */
export type LoadBalancerFilter = LoadBalancerListFilter;

/** Filters of the ECS listing (libs/store EcsInstanceListFilter): `clusterId` is the cluster of the node an instance backs. */
export type EcsInstanceFilter = EcsInstanceListFilter;

/** The query values that are set (a filter object without undefined members, as the store's filters take them). */
function present<T extends object>(q: T): Partial<T> {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Reads of the stored fleet graph of a succeeded scan for REST (`/v1/clusters`,
 * `/v1/load-balancers/{id}`, `/v1/ecs-instances/{id}`) and GraphQL (top-level graph listings, CLB clusters), on
 * libs/store FleetGraphRepository (tables `graph_*`). Every read is filtered by the principal's accounts in SQL;
 * an object of another account is absent exactly like a missing one. Scans stored before the graph existed have
 * no graph (empty lists, absent objects).
 */
@Injectable()
export class FleetService {
  /** Whole REST answers under the findings generation (the graph of a scan changes only with it). */
  private readonly answers: GenerationAnswerCache;

  constructor(
    private readonly store: Store,
    private readonly scans: ScanSelectionService,
  ) {
    this.answers = new GenerationAnswerCache(store.generations);
  }

  /**
   * A REST read's answer as JSON text: of the latest succeeded scan (no `scanId` given), kept per findings generation
   * (GenerationAnswerCache); of a given scan, read every time (`namesScan`: a sharded scan's graph grows while it
   * runs, without a generation bump).
   */
  private async answer<T extends object>(name: string, scanId: string | undefined, args: unknown[], principal: Principal, run: () => Promise<T>): Promise<JsonText<T>> {
    return (namesScan(scanId) ? JSON.stringify(await run()) : await this.answers.answer(name, args, principal, run)) as JsonText<T>;
  }

  /** The accounts of a scan's graph, by id. */
  accounts(scanId: string, principal: Principal, args: GraphPageArgs): Listing<GraphAccount> {
    return { page: this.store.graph.accountsPage(scanId, principal, args), count: () => this.store.graph.countAccounts(scanId, principal) };
  }

  /** The clusters of a scan, by id. */
  clusters(scanId: string, principal: Principal, args: GraphPageArgs, filter: ClusterFilter): Listing<GraphCluster> {
    return { page: this.store.graph.clustersPage(scanId, principal, args, filter), count: () => this.store.graph.countClusters(scanId, principal, filter) };
  }

  /** The CLBs of a scan, by id (`clusterIds` as stored: narrow them with `visibleClusters` before showing them). */
  loadBalancers(scanId: string, principal: Principal, args: GraphPageArgs, filter: LoadBalancerFilter): Listing<GraphLoadBalancer> {
    return { page: this.store.graph.loadBalancersPage(scanId, principal, args, filter), count: () => this.store.graph.countLoadBalancers(scanId, principal, filter) };
  }

  /** The NLBs of a scan, by id (`clusterIds` as stored: narrow them with `withVisibleClusters` before showing them). */
  nlbs(scanId: string, principal: Principal, args: GraphPageArgs, filter: NlbListFilter): Listing<GraphNlb> {
    return { page: this.store.graph.nlbsPage(scanId, principal, args, filter), count: () => this.store.graph.countNlbs(scanId, principal, filter) };
  }

  /** The ECS instances of a scan, by id. */
  ecsInstances(scanId: string, principal: Principal, args: GraphPageArgs, filter: EcsInstanceFilter): Listing<GraphEcsInstance> {
    return { page: this.store.graph.ecsInstancesPage(scanId, principal, args, filter), count: () => this.store.graph.countEcsInstances(scanId, principal, filter) };
  }

  /**
   * `GET /v1/clusters`: a keyset page of clusters of a scan (default: the latest succeeded) and their total.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a malformed cursor
   */
  clusterPage(q: ListClustersQuery, principal: Principal): Promise<JsonText<ClusterPageDto>> {
    return this.answer('clusterPage', q.scanId, [q], principal, () => this.clusterPageUncached(q, principal));
  }

  private async clusterPageUncached(q: ListClustersQuery, principal: Principal): Promise<ClusterPageDto> {
    const scanId = await this.scans.scanOf(q.scanId, true);
    const filter = { ...(q.accountId !== undefined ? { accountId: q.accountId } : {}), ...(q.regionId !== undefined ? { regionId: q.regionId } : {}) };
    return cursorPage(scanId, q.limit, q.after, (s, args) => this.clusters(s, principal, args, filter), (c) => c);
  }

  /**
   * `GET /v1/load-balancers`: a keyset page of the CLBs of a scan (default: the latest succeeded) in id order and
   * their total, filtered (account, region, owner, address type, cluster); each CLB's `clusterIds` narrowed to the
   * clusters the principal sees, as on `GET /v1/load-balancers/{id}` (one read for the page).
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a malformed cursor
   */
  loadBalancerPage(q: ListLoadBalancersQuery, principal: Principal): Promise<JsonText<LoadBalancerPageDto>> {
    return this.answer('loadBalancerPage', q.scanId, [q], principal, () => this.loadBalancerPageUncached(q, principal));
  }

  private async loadBalancerPageUncached(q: ListLoadBalancersQuery, principal: Principal): Promise<LoadBalancerPageDto> {
    const scanId = await this.scans.scanOf(q.scanId, true);
    const filter = present({ accountId: q.accountId, regionId: q.regionId, owner: q.owner, addressType: q.addressType, clusterId: q.clusterId });
    const page = await cursorPage(scanId, q.limit, q.after, (s, args) => this.loadBalancers(s, principal, args, filter), (l) => l);
    return page.scanId === null ? page : { ...page, items: await this.withVisibleClusters(page.scanId, page.items, principal) };
  }

  /**
   * `GET /v1/nlbs`: a keyset page of the NLBs of a scan (default: the latest succeeded) in id order and their total,
   * filtered (account, region, owner, cluster); each NLB's `clusterIds` narrowed to the clusters the principal sees.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a malformed cursor
   */
  nlbPage(q: ListNlbsQuery, principal: Principal): Promise<JsonText<NlbPageDto>> {
    return this.answer('nlbPage', q.scanId, [q], principal, () => this.nlbPageUncached(q, principal));
  }

  private async nlbPageUncached(q: ListNlbsQuery, principal: Principal): Promise<NlbPageDto> {
    const scanId = await this.scans.scanOf(q.scanId, true);
    const filter = present({ accountId: q.accountId, regionId: q.regionId, owner: q.owner, clusterId: q.clusterId });
    const page = await cursorPage(scanId, q.limit, q.after, (s, args) => this.nlbs(s, principal, args, filter), (n) => n);
    return page.scanId === null ? page : { ...page, items: await this.withVisibleClusters(page.scanId, page.items, principal) };
  }

  /**
   * `GET /v1/nlbs/{id}`: one NLB (listeners, server groups, servers) with the Services using it and its quota samples.
   * @throws StoreError NOT_FOUND when the NLB is not in the scan within the principal's accounts, or no such scan
   */
  nlbDetail(id: string, given: string | undefined, principal: Principal): Promise<JsonText<NlbDetailDto>> {
    return this.answer('nlbDetail', given, [id], principal, () => this.nlbDetailUncached(id, given, principal));
  }

  private async nlbDetailUncached(id: string, given: string | undefined, principal: Principal): Promise<NlbDetailDto> {
    const scanId = await this.scans.scanOf(given, true);
    const [nlb] = scanId === null ? [] : await this.store.graph.nlbsByIds(scanId, [id], principal);
    if (!nlb || scanId === null) throw new StoreError('NOT_FOUND', `NLB ${id} not found`);
    const [services, quotas, [scoped]] = await Promise.all([
      this.store.graph.servicesByNlbIds(scanId, [id], principal),
      this.store.graph.quotasByResources(scanId, [{ kind: 'NetworkLoadBalancer', id }], principal),
      this.withVisibleClusters(scanId, [nlb], principal),
    ]);
    return { scanId, nlb: scoped!, services: services.get(id) ?? [], quotas: (quotas.get(`NetworkLoadBalancer/${id}`) ?? []).map(toQuotaDto) };
  }

  /**
   * `GET /v1/nlb-server-groups/unused`: the regions of a scan (default: the latest succeeded) within the principal's
   * accounts that hold NLB server groups no NLB uses, each with those groups, and their total.
   * @throws StoreError NOT_FOUND when `scanId` names no scan
   */
  unusedNlbServerGroups(q: ListUnusedNlbServerGroupsQuery, principal: Principal): Promise<JsonText<UnusedNlbServerGroupsDto>> {
    return this.answer('unusedNlbServerGroups', q.scanId, [q], principal, () => this.unusedNlbServerGroupsUncached(q, principal));
  }

  private async unusedNlbServerGroupsUncached(q: ListUnusedNlbServerGroupsQuery, principal: Principal): Promise<UnusedNlbServerGroupsDto> {
    const scanId = await this.scans.scanOf(q.scanId, true);
    if (scanId === null) return { scanId, regions: [], total: 0 };
    const regions = await this.store.graph.regionsWithNlbData(scanId, principal, { ...present({ accountId: q.accountId, regionId: q.regionId }), unusedOnly: true });
    return { scanId, regions, total: regions.reduce((n, r) => n + r.unusedNlbServerGroups.length, 0) };
  }

  /**
   * `GET /v1/ecs-instances`: a keyset page of the ECS instances of a scan (default: the latest succeeded) in id order
   * and their total, filtered (account, region, cluster of the node, number of CLBs listing it); each instance's
   * `loadBalancerIds` narrowed to the CLBs within the principal's accounts, as on `GET /v1/ecs-instances/{id}`.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a malformed cursor
   */
  ecsInstancePage(q: ListEcsInstancesQuery, principal: Principal): Promise<JsonText<EcsInstancePageDto>> {
    return this.answer('ecsInstancePage', q.scanId, [q], principal, () => this.ecsInstancePageUncached(q, principal));
  }

  private async ecsInstancePageUncached(q: ListEcsInstancesQuery, principal: Principal): Promise<EcsInstancePageDto> {
    const scanId = await this.scans.scanOf(q.scanId, true);
    const filter = present({
      accountId: q.accountId,
      regionId: q.regionId,
      clusterId: q.clusterId,
      minLoadBalancers: q.minLoadBalancers,
      maxLoadBalancers: q.maxLoadBalancers,
    });
    const page = await cursorPage(scanId, q.limit, q.after, (s, args) => this.ecsInstances(s, principal, args, filter), (e) => e);
    if (page.scanId === null || page.items.length === 0) return page;
    const lbIds = await this.store.graph.loadBalancerIdsByEcsIds(page.scanId, page.items.map((e) => e.instanceId), principal);
    return { ...page, items: page.items.map((e) => ({ ...e, loadBalancerIds: lbIds.get(e.instanceId) ?? [] })) };
  }

  /**
   * `GET /v1/load-balancers/{id}`: one CLB with the Services sharing it, its server groups and its quota samples.
   * @throws StoreError NOT_FOUND when the CLB is not in the scan within the principal's accounts, or no such scan
   */
  loadBalancerDetail(id: string, given: string | undefined, principal: Principal): Promise<JsonText<LoadBalancerDetailDto>> {
    return this.answer('loadBalancerDetail', given, [id], principal, () => this.loadBalancerDetailUncached(id, given, principal));
  }

  private async loadBalancerDetailUncached(id: string, given: string | undefined, principal: Principal): Promise<LoadBalancerDetailDto> {
    const scanId = await this.scans.scanOf(given, true);
    const [lb] = scanId === null ? [] : await this.store.graph.loadBalancersByIds(scanId, [id], principal);
    if (!lb || scanId === null) throw new StoreError('NOT_FOUND', `load balancer ${id} not found`);
    const [services, groups, quotas, [scoped]] = await Promise.all([
      this.store.graph.servicesByLoadBalancerIds(scanId, [id], principal),
      this.store.graph.serverGroupsByLoadBalancerIds(scanId, [id], principal),
      this.store.graph.quotasByResources(scanId, [{ kind: 'LoadBalancer', id }], principal),
      this.withVisibleClusters(scanId, [lb], principal),
    ]);
    return {
      scanId,
      loadBalancer: scoped!,
      services: services.get(id) ?? [],
      serverGroups: (groups.get(id) ?? []).map(toServerGroupDto),
      quotas: (quotas.get(`LoadBalancer/${id}`) ?? []).map(toQuotaDto),
    };
  }

  /**
   * `GET /v1/ecs-instances/{id}`: one ECS instance, the CLBs listing it as a backend and the NLBs whose server groups
   * list it, all as the principal sees them.
   * @throws StoreError NOT_FOUND when the instance is not in the scan within the principal's accounts, or no such scan
   */
  ecsInstanceDetail(id: string, given: string | undefined, principal: Principal): Promise<JsonText<EcsInstanceDetailDto>> {
    return this.answer('ecsInstanceDetail', given, [id], principal, () => this.ecsInstanceDetailUncached(id, given, principal));
  }

  private async ecsInstanceDetailUncached(id: string, given: string | undefined, principal: Principal): Promise<EcsInstanceDetailDto> {
    const scanId = await this.scans.scanOf(given, true);
    const [ecs] = scanId === null ? [] : await this.store.graph.ecsInstancesByIds(scanId, [id], principal);
    if (!ecs || scanId === null) throw new StoreError('NOT_FOUND', `ECS instance ${id} not found`);
    const [clbs, nlbRows] = await Promise.all([
      this.store.graph.loadBalancersByEcsIds(scanId, [id], principal),
      ecs.nlbIds.length > 0 ? this.store.graph.nlbsByIds(scanId, ecs.nlbIds, principal) : Promise.resolve([]),
    ]);
    const [lbs, nlbs] = await Promise.all([this.withVisibleClusters(scanId, clbs.get(id) ?? [], principal), this.withVisibleClusters(scanId, nlbRows, principal)]);
    // Its CLB and NLB ids as the token sees them: only those of accounts within the scope (like `loadBalancers`, `nlbs`).
    const ecsInstance = { ...ecs, loadBalancerIds: lbs.map((l) => l.loadBalancerId).sort(), nlbIds: nlbs.map((n) => n.nlbId).sort() };
    return { scanId, ecsInstance, loadBalancers: lbs, nlbs: [...nlbs].sort((a, b) => (a.nlbId < b.nlbId ? -1 : a.nlbId > b.nlbId ? 1 : 0)) };
  }

  /**
   * Scope narrowing of the clusters a CLB names: a stored CLB lists the clusters of the Services sharing it, and none
   * of another account may be named to a scoped token. The clusters among `ids` the principal sees, in `ids` order.
   * @param load reads clusters by id within the principal's scope (default: one store read; GraphQL passes its
   *   request's DataLoader, which batches the lookups of every CLB of a query into one read)
   */
  async visibleClusters(
    scanId: string,
    ids: readonly string[],
    principal: Principal,
    load: (ids: readonly string[]) => Promise<(GraphCluster | null)[]> = (list) => this.store.graph.clustersByIds(scanId, list, principal),
  ): Promise<GraphCluster[]> {
    if (ids.length === 0) return [];
    const byId = new Map((await load(ids)).filter((c): c is GraphCluster => c !== null).map((c) => [c.clusterId, c]));
    return ids.map((i) => byId.get(i)).filter((c): c is GraphCluster => c !== undefined);
  }

  /** CLBs or NLBs with `clusterIds` narrowed to the clusters the principal sees (`visibleClusters`, one read for all of them). */
  async withVisibleClusters<L extends { clusterIds: string[] }>(scanId: string, lbs: L[], principal: Principal): Promise<L[]> {
    const ids = [...new Set(lbs.flatMap((l) => l.clusterIds))];
    if (ids.length === 0) return lbs;
    const visible = new Set((await this.visibleClusters(scanId, ids, principal)).map((c) => c.clusterId));
    return lbs.map((l) => ({ ...l, clusterIds: l.clusterIds.filter((c) => visible.has(c)) }));
  }
}
