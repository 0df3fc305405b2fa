/**
 * Response shapes of the fleet graph endpoints (`/v1/clusters`, `/v1/load-balancers/{id}`,
 * `/v1/ecs-instances/{id}`), documented for OpenAPI. Fields mirror libs/domain fleet-graph.types.ts
 * (the stored graph of a succeeded scan, FleetGraphRepository), the same rows GraphQL serves.
 */
import { ApiProperty } from '@nestjs/swagger';
import {
  GRAPH_CLUSTER,
  GRAPH_ECS_INSTANCE,
  GRAPH_LOAD_BALANCER,
  GRAPH_NLB,
  GRAPH_REGION,
  GRAPH_SERVER_GROUP,
  GRAPH_SERVICE,
  type GraphCluster,
  type GraphEcsInstance,
  type GraphLoadBalancer,
  type GraphNlb,
  type GraphRegion,
  type GraphServerGroup,
  type GraphService,
} from '@app/domain';
import { ScanListingPageDto } from '../common/page.dto';
import { restClassOf } from '../common/resource-class.util';
import { QuotaDto } from '../quotas/quota.dto';

// The resources' own classes (OpenAPI schemas ClusterDto, ServiceDto, LoadBalancerDto, ServerGroupDto,
// EcsInstanceDto and their nested ServicePortDto, ListenerDto, BackendDto) follow from their declarations
// (libs/domain fleet-graph.resources.ts); in TypeScript they are the domain row types.

/** A server group as REST shows it inside its CLB: its CLB, account and region are the CLB's. */
export type ServerGroupDto = Omit<GraphServerGroup, 'loadBalancerId' | 'accountId' | 'regionId'>;

/** A page of clusters in cluster id order. */
export class ClusterPageDto extends ScanListingPageDto<GraphCluster>({
  items: restClassOf(GRAPH_CLUSTER),
  total: { example: 120, description: "Clusters matching the filters within the token's accounts (all pages)" },
  limitExample: 100,
  cursorExample: 'WyJjMDEyMyJd',
}) {}

/** A page of CLB instances in id order. */
export class LoadBalancerPageDto extends ScanListingPageDto<GraphLoadBalancer>({
  items: restClassOf(GRAPH_LOAD_BALANCER),
  itemsDescription: "clusterIds name only clusters within the token's accounts",
  total: { example: 40, description: "CLBs matching the filters within the token's accounts (all pages)" },
  limitExample: 100,
  cursorExample: 'WyJsYi1icDEiXQ',
}) {}

/** A page of ECS instances in id order. */
export class EcsInstancePageDto extends ScanListingPageDto<GraphEcsInstance>({
  items: restClassOf(GRAPH_ECS_INSTANCE),
  itemsDescription: "loadBalancerIds name only CLBs within the token's accounts",
  total: { example: 60, description: "ECS instances matching the filters within the token's accounts (all pages)" },
  limitExample: 100,
  cursorExample: 'WyJpLWJwMSJd',
}) {}

/** One CLB with the Services sharing it (and their clusters), its server groups and backends, and its quotas. */
export class LoadBalancerDetailDto {
  @ApiProperty({ format: 'uuid', description: 'The scan read' })
  scanId: string;

  @ApiProperty({ type: restClassOf(GRAPH_LOAD_BALANCER) })
  loadBalancer: GraphLoadBalancer;

  @ApiProperty({ type: [restClassOf(GRAPH_SERVICE)], description: 'Services of type LoadBalancer using this CLB (every cluster)' })
  services: GraphService[];

  @ApiProperty({ type: [restClassOf(GRAPH_SERVER_GROUP)], description: 'Default server group first, then vServer groups by id' })
  serverGroups: ServerGroupDto[];

  @ApiProperty({ type: [QuotaDto], description: 'Quota usage samples measured on this CLB (e.g. backend servers, listeners)' })
  quotas: QuotaDto[];
}

/** One ECS instance with its CLBs and NLBs. */
export class EcsInstanceDetailDto {
  @ApiProperty({ format: 'uuid', description: 'The scan read' })
  scanId: string;

  @ApiProperty({ type: restClassOf(GRAPH_ECS_INSTANCE) })
  ecsInstance: GraphEcsInstance;

  @ApiProperty({ type: [restClassOf(GRAPH_LOAD_BALANCER)], description: "The CLBs listing it as a backend (within the token's accounts)" })
  loadBalancers: GraphLoadBalancer[];

  @ApiProperty({
    type: [restClassOf(GRAPH_NLB)],
    description: "The NLBs whose server groups list it (ecsInstance.nlbIds, within the token's accounts; its server groups no NLB uses are in ecsInstance.nlbServerGroupIds only)",
  })
  nlbs: GraphNlb[];
}

/** A page of NLB instances in id order (`GET /v1/nlbs`). */
export class NlbPageDto extends ScanListingPageDto<GraphNlb>({
  items: restClassOf(GRAPH_NLB),
  itemsDescription: "clusterIds name only clusters within the token's accounts",
  total: { example: 12, description: "NLBs matching the filters within the token's accounts (all pages)" },
  limitExample: 100,
  cursorExample: 'WyJubGItYnAxIl0',
}) {}

/** One NLB (with its listeners, server groups and servers) with the Services using it and its quotas (`GET /v1/nlbs/{id}`). */
export class NlbDetailDto {
  @ApiProperty({ format: 'uuid', description: 'The scan read' })
  scanId: string;

  @ApiProperty({ type: restClassOf(GRAPH_NLB) })
  nlb: GraphNlb;

  @ApiProperty({ type: [restClassOf(GRAPH_SERVICE)], description: 'Services of type LoadBalancer using this NLB (every cluster within the token\'s accounts)' })
  services: GraphService[];

  @ApiProperty({ type: [QuotaDto], description: 'Quota usage samples measured on this NLB (listeners, server entries)' })
  quotas: QuotaDto[];
}

/** The regions holding NLB server groups no NLB uses (`GET /v1/nlb-server-groups/unused`). */
export class UnusedNlbServerGroupsDto {
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Scan read; null when no scan succeeded yet' })
  scanId: string | null;

  @ApiProperty({
    type: [restClassOf(GRAPH_REGION)],
    description: "Regions (within the token's accounts, by account and region id) whose NLBs were read and that hold at least one NLB server group no NLB uses",
  })
  regions: GraphRegion[];

  @ApiProperty({ example: 3, description: 'Unused NLB server groups over those regions (count)' })
  total: number;
}
