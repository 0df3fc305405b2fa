import { Get, Header, type Type } from '@nestjs/common';
import type { Principal } from '@app/store';
import { TeamAware } from '../common/bearer-auth.guard';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ApiRoute, ZodParam, ZodQuery, type RouteDoc } from '../common/route.decorator';
import { FleetService, type JsonText } from './fleet.service';
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
 * The content type of the fleet reads, which answer JSON text (FleetService: kept whole per findings generation):
 * what Express `res.json` sets, so the answers' headers and bytes are those of an object sent as JSON.
 */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** What every listing route answers besides its page: 404 when `scanId` names no scan. */
const LISTING = { notFound: 'scanId names no scan' } satisfies Partial<RouteDoc>;

/**
 * The documentation of a route reading one object of the graph: the `id` path parameter, `?scanId=` and the 404
 * answer naming the object.
 * @param idDescription the path parameter's description (`CLB instance id`)
 * @param example an id of that kind
 * @param name what the 404 answer calls the object (`CLB`)
 */
function graphObjectRoute(summary: string, idDescription: string, example: string, name: string, ok: Type<unknown>): RouteDoc {
  return {
    summary,
    param: { name: 'id', description: idDescription, schema: { type: 'string', example } },
    query: graphObjectQuerySchema,
    ok,
    notFound: `No such ${name} in the scan within the token's accounts, or no such scan`,
  };
}

/**
 * The stored fleet graph of a succeeded scan over REST, on the same repository GraphQL
 * reads (FleetGraphRepository, tables `graph_*`): clusters, CLBs and ECS instances as filtered keyset-paged lists
 * (`limit` + `after`, `nextCursor`); one CLB with the Services sharing it, its
 * server groups and backends and its quotas; one ECS instance with its CLBs. Every read is filtered by
 * the token's accounts in SQL; an object of another account answers 404 exactly like an absent one.
 * Scans stored before the graph existed have no graph (empty lists, 404 for objects).
 */
@TeamAware()
@BearerController('v1', 'fleet', 'Invalid query or path')
export class FleetController {
  constructor(private readonly fleet: FleetService) {}

  @Get('clusters')
  @ApiRoute({ summary: "ACK clusters of a scan (default: the latest succeeded), in cluster id order, keyset-paged; only the token's accounts (and teams)", query: listClustersQuerySchema, ok: ClusterPageDto, ...LISTING })
  @Header('Content-Type', JSON_CONTENT_TYPE)
  clusters(@ZodQuery(listClustersQuerySchema) q: ListClustersQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<ClusterPageDto>> {
    return this.fleet.clusterPage(q, principal);
  }

  @Get('load-balancers')
  @ApiRoute({ summary: "CLB instances of a scan (default: the latest succeeded), in id order, keyset-paged, filtered; only the token's accounts (and teams)", query: listLoadBalancersQuerySchema, ok: LoadBalancerPageDto, ...LISTING })
  @Header('Content-Type', JSON_CONTENT_TYPE)
  loadBalancers(@ZodQuery(listLoadBalancersQuerySchema) q: ListLoadBalancersQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<LoadBalancerPageDto>> {
    return this.fleet.loadBalancerPage(q, principal);
  }

  @Get('nlbs')
  @ApiRoute({ summary: "NLB instances of a scan (default: the latest succeeded), in id order, keyset-paged, filtered; only the token's accounts (and teams)", query: listNlbsQuerySchema, ok: NlbPageDto, ...LISTING })
  @Header('Content-Type', JSON_CONTENT_TYPE)
  nlbs(@ZodQuery(listNlbsQuerySchema) q: ListNlbsQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<NlbPageDto>> {
    return this.fleet.nlbPage(q, principal);
  }

  @Get('nlbs/:id')
  @ApiRoute(graphObjectRoute('One NLB: its listeners, server groups and servers, the Services using it (and their clusters), its quota usage', 'NLB instance id', 'nlb-bp1abcdefgh', 'NLB', NlbDetailDto))
  @Header('Content-Type', JSON_CONTENT_TYPE)
  nlb(@ZodParam('id', resourceIdSchema) id: string, @ZodQuery(graphObjectQuerySchema) q: GraphObjectQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<NlbDetailDto>> {
    return this.fleet.nlbDetail(id, q.scanId, principal);
  }

  @Get('nlb-server-groups/unused')
  @ApiRoute({
    summary:
      "NLB server groups no NLB uses (leaked by CCM before v2.12.4, or kept by preserve-lb-on-delete), per region of a scan (default: the latest succeeded); only the token's accounts (and teams)",
    query: listUnusedNlbServerGroupsQuerySchema,
    ok: UnusedNlbServerGroupsDto,
    ...LISTING,
  })
  @Header('Content-Type', JSON_CONTENT_TYPE)
  unusedNlbServerGroups(
    @ZodQuery(listUnusedNlbServerGroupsQuerySchema) q: ListUnusedNlbServerGroupsQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<JsonText<UnusedNlbServerGroupsDto>> {
    return this.fleet.unusedNlbServerGroups(q, principal);
  }

  @Get('ecs-instances')
  @ApiRoute({ summary: "ECS instances of a scan (default: the latest succeeded), in id order, keyset-paged, filtered; only the token's accounts (and teams)", query: listEcsInstancesQuerySchema, ok: EcsInstancePageDto, ...LISTING })
  @Header('Content-Type', JSON_CONTENT_TYPE)
  ecsInstances(@ZodQuery(listEcsInstancesQuerySchema) q: ListEcsInstancesQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<EcsInstancePageDto>> {
    return this.fleet.ecsInstancePage(q, principal);
  }

  @Get('load-balancers/:id')
  @ApiRoute(graphObjectRoute('One CLB: the Services (and clusters) sharing it, its server groups and backends, its quota usage', 'CLB instance id', 'lb-bp1abcdefgh', 'CLB', LoadBalancerDetailDto))
  @Header('Content-Type', JSON_CONTENT_TYPE)
  loadBalancer(@ZodParam('id', resourceIdSchema) id: string, @ZodQuery(graphObjectQuerySchema) q: GraphObjectQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<LoadBalancerDetailDto>> {
    return this.fleet.loadBalancerDetail(id, q.scanId, principal);
  }

  @Get('ecs-instances/:id')
  @ApiRoute(graphObjectRoute('One ECS instance: the node it backs, the CLBs listing it as a backend and the NLBs whose server groups list it', 'ECS instance id', 'i-bp1node01', 'ECS instance', EcsInstanceDetailDto))
  @Header('Content-Type', JSON_CONTENT_TYPE)
  ecsInstance(@ZodParam('id', resourceIdSchema) id: string, @ZodQuery(graphObjectQuerySchema) q: GraphObjectQuery, @CurrentPrincipal() principal: Principal): Promise<JsonText<EcsInstanceDetailDto>> {
    return this.fleet.ecsInstanceDetail(id, q.scanId, principal);
  }
}
