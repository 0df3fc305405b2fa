import { Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { FleetService } from './fleet.service';
import { ClusterPageDto, EcsInstanceDetailDto, EcsInstancePageDto, LoadBalancerDetailDto, LoadBalancerPageDto, NlbDetailDto, NlbPageDto, UnusedNlbServerGroupsDto } from './fleet.dto';
import {
  graphObjectQuerySchema,
  listClustersQuerySchema,
  listEcsInstancesQuerySchema,
  listLoadBalancersQuerySchema,
  listNlbsQuerySchema,
  listUnusedNlbServerGroupsQuerySchema,
  resourceIdSchema,
  type GraphObjectQuery,
  type ListClustersQuery,
  type ListEcsInstancesQuery,
  type ListLoadBalancersQuery,
  type ListNlbsQuery,
  type ListUnusedNlbServerGroupsQuery,
} from './fleet.schemas';

/**
 * The stored fleet graph of a succeeded scan over REST (issue 11 item 5), on the same repository GraphQL
 * reads (FleetGraphRepository, tables `graph_*`): clusters, CLBs and ECS instances as filtered keyset-paged lists
 * (`limit` + `after`, `nextCursor`; issue 21 item 6); one CLB with the Services sharing it, its
 * server groups and backends and its quotas; one ECS instance with its CLBs. Every read is filtered by
 * the token's accounts in SQL; an object of another account answers 404 exactly like an absent one.
 * Scans stored before the graph existed have no graph (empty lists, 404 for objects).
 */
@BearerController('v1', 'fleet', 'Invalid query or path')
export class FleetController {
  constructor(private readonly fleet: FleetService) {}

  @Get('clusters')
  @ApiOperation({ summary: "ACK clusters of a scan (default: the latest succeeded), in cluster id order, keyset-paged; only the token's accounts" })
  @ApiZodQuery(listClustersQuerySchema)
  @ApiOkResponse({ type: ClusterPageDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  clusters(@Query(new ZodValidationPipe(listClustersQuerySchema, 'query')) q: ListClustersQuery, @CurrentPrincipal() principal: Principal): Promise<ClusterPageDto> {
    return this.fleet.clusterPage(q, principal);
  }

  @Get('load-balancers')
  @ApiOperation({ summary: "CLB instances of a scan (default: the latest succeeded), in id order, keyset-paged, filtered; only the token's accounts" })
  @ApiZodQuery(listLoadBalancersQuerySchema)
  @ApiOkResponse({ type: LoadBalancerPageDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  loadBalancers(
    @Query(new ZodValidationPipe(listLoadBalancersQuerySchema, 'query')) q: ListLoadBalancersQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<LoadBalancerPageDto> {
    return this.fleet.loadBalancerPage(q, principal);
  }

  @Get('nlbs')
  @ApiOperation({ summary: "NLB instances of a scan (default: the latest succeeded), in id order, keyset-paged, filtered; only the token's accounts" })
  @ApiZodQuery(listNlbsQuerySchema)
  @ApiOkResponse({ type: NlbPageDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  nlbs(@Query(new ZodValidationPipe(listNlbsQuerySchema, 'query')) q: ListNlbsQuery, @CurrentPrincipal() principal: Principal): Promise<NlbPageDto> {
    return this.fleet.nlbPage(q, principal);
  }

  @Get('nlbs/:id')
  @ApiOperation({ summary: 'One NLB: its listeners, server groups and servers, the Services using it (and their clusters), its quota usage' })
  @ApiParam({ name: 'id', description: 'NLB instance id', schema: { type: 'string', example: 'nlb-bp1abcdefgh' } })
  @ApiZodQuery(graphObjectQuerySchema)
  @ApiOkResponse({ type: NlbDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such NLB in the scan within the token's accounts, or no such scan" })
  nlb(
    @Param('id', new ZodValidationPipe(resourceIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(graphObjectQuerySchema, 'query')) q: GraphObjectQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<NlbDetailDto> {
    return this.fleet.nlbDetail(id, q.scanId, principal);
  }

  @Get('nlb-server-groups/unused')
  @ApiOperation({
    summary:
      "NLB server groups no NLB uses (leaked by CCM before v2.12.4, or kept by preserve-lb-on-delete), per region of a scan (default: the latest succeeded); only the token's accounts",
  })
  @ApiZodQuery(listUnusedNlbServerGroupsQuerySchema)
  @ApiOkResponse({ type: UnusedNlbServerGroupsDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  unusedNlbServerGroups(
    @Query(new ZodValidationPipe(listUnusedNlbServerGroupsQuerySchema, 'query')) q: ListUnusedNlbServerGroupsQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<UnusedNlbServerGroupsDto> {
    return this.fleet.unusedNlbServerGroups(q, principal);
  }

  @Get('ecs-instances')
  @ApiOperation({ summary: "ECS instances of a scan (default: the latest succeeded), in id order, keyset-paged, filtered; only the token's accounts" })
  @ApiZodQuery(listEcsInstancesQuerySchema)
  @ApiOkResponse({ type: EcsInstancePageDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  ecsInstances(
    @Query(new ZodValidationPipe(listEcsInstancesQuerySchema, 'query')) q: ListEcsInstancesQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EcsInstancePageDto> {
    return this.fleet.ecsInstancePage(q, principal);
  }

  @Get('load-balancers/:id')
  @ApiOperation({ summary: 'One CLB: the Services (and clusters) sharing it, its server groups and backends, its quota usage' })
  @ApiParam({ name: 'id', description: 'CLB instance id', schema: { type: 'string', example: 'lb-bp1abcdefgh' } })
  @ApiZodQuery(graphObjectQuerySchema)
  @ApiOkResponse({ type: LoadBalancerDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such CLB in the scan within the token's accounts, or no such scan" })
  loadBalancer(
    @Param('id', new ZodValidationPipe(resourceIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(graphObjectQuerySchema, 'query')) q: GraphObjectQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<LoadBalancerDetailDto> {
    return this.fleet.loadBalancerDetail(id, q.scanId, principal);
  }

  @Get('ecs-instances/:id')
  @ApiOperation({ summary: 'One ECS instance: the node it backs, the CLBs listing it as a backend and the NLBs whose server groups list it' })
  @ApiParam({ name: 'id', description: 'ECS instance id', schema: { type: 'string', example: 'i-bp1node01' } })
  @ApiZodQuery(graphObjectQuerySchema)
  @ApiOkResponse({ type: EcsInstanceDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such ECS instance in the scan within the token's accounts, or no such scan" })
  ecsInstance(
    @Param('id', new ZodValidationPipe(resourceIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(graphObjectQuerySchema, 'query')) q: GraphObjectQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EcsInstanceDetailDto> {
    return this.fleet.ecsInstanceDetail(id, q.scanId, principal);
  }
}
