import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { GraphLoadBalancer } from '@app/domain';
import { Store, StoreError, type Principal } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { toQuotaDto } from '../quotas/quotas.controller';
import { ClusterPageDto, EcsInstanceDetailDto, LoadBalancerDetailDto } from './fleet.dto';
import { graphObjectQuerySchema, listClustersQuerySchema, resourceIdSchema, type GraphObjectQuery, type ListClustersQuery } from './fleet.schemas';

/**
 * The stored fleet graph of a succeeded scan over REST (issue 11 item 5), on the same repository GraphQL
 * reads (FleetGraphRepository, tables `graph_*`): clusters; one CLB with the Services sharing it, its
 * server groups and backends and its quotas; one ECS instance with its CLBs. Every read is filtered by
 * the token's accounts in SQL; an object of another account answers 404 exactly like an absent one.
 * Scans stored before the graph existed have no graph (empty lists, 404 for objects).
 */
@ApiTags('fleet')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid query or path' })
@Controller('v1')
export class FleetController {
  constructor(private readonly store: Store) {}

  @Get('clusters')
  @ApiOperation({ summary: "ACK clusters of a scan (default: the latest succeeded), in cluster id order, keyset-paged; only the token's accounts" })
  @ApiZodQuery(listClustersQuerySchema)
  @ApiOkResponse({ type: ClusterPageDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  async clusters(@Query(new ZodValidationPipe(listClustersQuerySchema, 'query')) q: ListClustersQuery, @CurrentPrincipal() principal: Principal): Promise<ClusterPageDto> {
    const scanId = await this.scanOf(q.scanId);
    if (scanId === null) return { items: [], total: 0, limit: q.limit, nextCursor: null, scanId: null };
    const filter = { ...(q.accountId !== undefined ? { accountId: q.accountId } : {}), ...(q.regionId !== undefined ? { regionId: q.regionId } : {}) };
    const [page, total] = await Promise.all([
      this.store.graph.clustersPage(scanId, principal, { first: q.limit, ...(q.after !== undefined ? { after: q.after } : {}) }, filter),
      this.store.graph.countClusters(scanId, principal, filter),
    ]);
    return { items: page.edges.map((e) => e.node), total, limit: q.limit, nextCursor: page.hasNextPage ? (page.edges.at(-1)?.cursor ?? null) : null, scanId };
  }

  @Get('load-balancers/:id')
  @ApiOperation({ summary: 'One CLB: the Services (and clusters) sharing it, its server groups and backends, its quota usage' })
  @ApiParam({ name: 'id', description: 'CLB instance id', schema: { type: 'string', example: 'lb-bp1abcdefgh' } })
  @ApiZodQuery(graphObjectQuerySchema)
  @ApiOkResponse({ type: LoadBalancerDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such CLB in the scan within the token's accounts, or no such scan" })
  async loadBalancer(
    @Param('id', new ZodValidationPipe(resourceIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(graphObjectQuerySchema, 'query')) q: GraphObjectQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<LoadBalancerDetailDto> {
    const scanId = await this.scanOf(q.scanId);
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
      serverGroups: (groups.get(id) ?? []).map((g) => ({ vServerGroupId: g.vServerGroupId, isDefault: g.isDefault, name: g.name, backends: g.backends })),
      quotas: (quotas.get(`LoadBalancer/${id}`) ?? []).map(toQuotaDto),
    };
  }

  @Get('ecs-instances/:id')
  @ApiOperation({ summary: 'One ECS instance: the node it backs and the CLBs listing it as a backend' })
  @ApiParam({ name: 'id', description: 'ECS instance id', schema: { type: 'string', example: 'i-bp1node01' } })
  @ApiZodQuery(graphObjectQuerySchema)
  @ApiOkResponse({ type: EcsInstanceDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such ECS instance in the scan within the token's accounts, or no such scan" })
  async ecsInstance(
    @Param('id', new ZodValidationPipe(resourceIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(graphObjectQuerySchema, 'query')) q: GraphObjectQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EcsInstanceDetailDto> {
    const scanId = await this.scanOf(q.scanId);
    const [ecs] = scanId === null ? [] : await this.store.graph.ecsInstancesByIds(scanId, [id], principal);
    if (!ecs || scanId === null) throw new StoreError('NOT_FOUND', `ECS instance ${id} not found`);
    const lbs = await this.withVisibleClusters(scanId, (await this.store.graph.loadBalancersByEcsIds(scanId, [id], principal)).get(id) ?? [], principal);
    // Its CLB ids as the token sees them: only CLBs of accounts within the scope (like `loadBalancers`).
    return { scanId, ecsInstance: { ...ecs, loadBalancerIds: lbs.map((l) => l.loadBalancerId).sort() }, loadBalancers: lbs };
  }

  /**
   * CLBs with `clusterIds` narrowed to the clusters the principal sees (one read for all of them): a stored CLB lists
   * the clusters of the Services sharing it, and none of another account may be named to a scoped token.
   */
  private async withVisibleClusters(scanId: string, lbs: GraphLoadBalancer[], principal: Principal): Promise<GraphLoadBalancer[]> {
    const ids = [...new Set(lbs.flatMap((l) => l.clusterIds))];
    if (ids.length === 0) return lbs;
    const visible = new Set((await this.store.graph.clustersByIds(scanId, ids, principal)).map((c) => c.clusterId));
    return lbs.map((l) => ({ ...l, clusterIds: l.clusterIds.filter((c) => visible.has(c)) }));
  }

  /** The scan to read: the given one (404 when absent) or the latest succeeded (null when none). */
  private async scanOf(scanId: string | undefined): Promise<string | null> {
    if (scanId === undefined) return this.store.scans.latestSucceededId();
    if (!(await this.store.scans.get(scanId))) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
    return scanId;
  }
}
