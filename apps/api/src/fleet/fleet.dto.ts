/**
 * Response shapes of the fleet graph endpoints (`/v1/clusters`, `/v1/load-balancers/{id}`,
 * `/v1/ecs-instances/{id}`), documented for OpenAPI. Fields mirror libs/domain fleet-graph.types.ts
 * (the stored graph of a succeeded scan, FleetGraphRepository), the same rows GraphQL serves.
 */
import { ApiProperty } from '@nestjs/swagger';
import {
  GRAPH_BACKEND,
  GRAPH_CLUSTER,
  GRAPH_ECS_INSTANCE,
  GRAPH_LISTENER,
  GRAPH_LOAD_BALANCER,
  GRAPH_SERVER_GROUP,
  GRAPH_SERVICE,
  GRAPH_SERVICE_PORT,
  type GraphBackend,
  type GraphCluster,
  type GraphEcsInstance,
  type GraphListener,
  type GraphLoadBalancer,
  type GraphServerGroup,
  type GraphService,
  type GraphServicePort,
} from '@app/domain';
import { restClassOf } from '../common/resource-class.util';
import { QuotaDto } from '../quotas/quota.dto';

// The resource classes follow from their declarations (libs/domain fleet-graph.resources.ts): each is a class for
// OpenAPI (schema `<Name>Dto`) and a type for TypeScript (the domain row as REST sends it).

/** An ACK cluster of a scan. */
export const ClusterDto = restClassOf(GRAPH_CLUSTER);
export type ClusterDto = GraphCluster;
/** A port of a Service. */
export const ServicePortDto = restClassOf(GRAPH_SERVICE_PORT);
export type ServicePortDto = GraphServicePort;
/** A Kubernetes Service of type LoadBalancer. */
export const ServiceDto = restClassOf(GRAPH_SERVICE);
export type ServiceDto = GraphService;
/** A CLB listener. */
export const ListenerDto = restClassOf(GRAPH_LISTENER);
export type ListenerDto = GraphListener;
/** A CLB instance. */
export const LoadBalancerDto = restClassOf(GRAPH_LOAD_BALANCER);
export type LoadBalancerDto = GraphLoadBalancer;
/** A backend server entry of a server group. */
export const BackendDto = restClassOf(GRAPH_BACKEND);
export type BackendDto = GraphBackend;
/** A server group of a CLB (default group: id ''), with its backends; its CLB, account and region are the CLB's. */
export const ServerGroupDto = restClassOf(GRAPH_SERVER_GROUP);
export type ServerGroupDto = Omit<GraphServerGroup, 'loadBalancerId' | 'accountId' | 'regionId'>;
/** An ECS instance with the CLBs it is a backend of. */
export const EcsInstanceDto = restClassOf(GRAPH_ECS_INSTANCE);
export type EcsInstanceDto = GraphEcsInstance;

/** A page of clusters in cluster id order. */
export class ClusterPageDto {
  @ApiProperty({ type: [ClusterDto] })
  items: ClusterDto[];

  @ApiProperty({ example: 120, description: "Clusters matching the filters within the token's accounts (all pages)" })
  total: number;

  @ApiProperty({ example: 100 })
  limit: number;

  @ApiProperty({ type: String, nullable: true, example: 'WyJjMDEyMyJd', description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Scan read; null when no scan succeeded yet' })
  scanId: string | null;
}

/** One CLB with the Services sharing it (and their clusters), its server groups and backends, and its quotas. */
export class LoadBalancerDetailDto {
  @ApiProperty({ format: 'uuid', description: 'The scan read' })
  scanId: string;

  @ApiProperty({ type: LoadBalancerDto })
  loadBalancer: LoadBalancerDto;

  @ApiProperty({ type: [ServiceDto], description: 'Services of type LoadBalancer using this CLB (every cluster)' })
  services: ServiceDto[];

  @ApiProperty({ type: [ServerGroupDto], description: 'Default server group first, then vServer groups by id' })
  serverGroups: ServerGroupDto[];

  @ApiProperty({ type: [QuotaDto], description: 'Quota usage samples measured on this CLB (e.g. backend servers, listeners)' })
  quotas: QuotaDto[];
}

/** One ECS instance with its CLBs. */
export class EcsInstanceDetailDto {
  @ApiProperty({ format: 'uuid', description: 'The scan read' })
  scanId: string;

  @ApiProperty({ type: EcsInstanceDto })
  ecsInstance: EcsInstanceDto;

  @ApiProperty({ type: [LoadBalancerDto], description: "The CLBs listing it as a backend (within the token's accounts)" })
  loadBalancers: LoadBalancerDto[];
}
