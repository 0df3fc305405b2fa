/**
 * Response shapes of the fleet graph endpoints (`/v1/clusters`, `/v1/load-balancers/{id}`,
 * `/v1/ecs-instances/{id}`), documented for OpenAPI. Fields mirror libs/domain fleet-graph.types.ts
 * (the stored graph of a succeeded scan, FleetGraphRepository), the same rows GraphQL serves.
 */
import { ApiProperty } from '@nestjs/swagger';
import type { GraphLbOwner, GraphServiceLbMatch } from '@app/domain';
import { QuotaDto } from '../quotas/quota.dto';

/** An ACK cluster of a scan. */
export class ClusterDto {
  @ApiProperty({ example: 'c0123456789abcdef' })
  clusterId: string;

  @ApiProperty({ example: '1234567890123456' })
  accountId: string;

  @ApiProperty({ example: 'cn-hangzhou' })
  regionId: string;

  @ApiProperty({ example: 'prod-payments' })
  name: string;

  @ApiProperty({ example: 'ManagedKubernetes' })
  clusterType: string;

  @ApiProperty({ type: String, nullable: true, example: 'ack.pro.small' })
  clusterSpec: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'running' })
  state: string | null;

  @ApiProperty({ type: String, nullable: true, example: '1.30.1-aliyun.1' })
  currentVersion: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'v2.10.0' })
  ccmVersion: string | null;

  @ApiProperty({ example: 'terway', description: 'flannel, terway or unknown' })
  networkPlugin: string;

  @ApiProperty({ type: String, nullable: true, example: 'vpc-bp1abc' })
  vpcId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'lb-bp1apiserver' })
  apiServerLoadBalancerId: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 12, description: 'Kubernetes nodes (count); null when not read' })
  nodeCount: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 40, description: 'Services of type LoadBalancer (count); null when not read' })
  serviceCount: number | null;
}

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

/** A port of a Service. */
export class ServicePortDto {
  @ApiProperty({ type: String, nullable: true, example: 'https' })
  name: string | null;

  @ApiProperty({ example: 'TCP' })
  protocol: string;

  @ApiProperty({ example: 443 })
  port: number;

  @ApiProperty({ type: Number, nullable: true, example: 31443 })
  nodePort: number | null;

  @ApiProperty({ type: String, nullable: true, example: '8443', description: 'Number or named port, as text' })
  targetPort: string | null;
}

/** A Kubernetes Service of type LoadBalancer. */
export class ServiceDto {
  @ApiProperty({ example: 'c0123456789abcdef' })
  clusterId: string;

  @ApiProperty({ example: 'payments' })
  namespace: string;

  @ApiProperty({ example: 'checkout' })
  name: string;

  @ApiProperty({ example: '1234567890123456' })
  accountId: string;

  @ApiProperty({ example: 'cn-hangzhou' })
  regionId: string;

  @ApiProperty({ example: '6f1c2d3e-0000-4000-8000-000000000001' })
  uid: string;

  @ApiProperty({ type: String, nullable: true })
  loadBalancerClass: string | null;

  @ApiProperty({ enum: ['cluster', 'local', 'eni'], nullable: true, type: String, description: 'Backend mode CCM applies; null when its CLB controller ignores the Service' })
  mode: 'cluster' | 'local' | 'eni' | null;

  @ApiProperty({ type: String, nullable: true, example: 'Local' })
  externalTrafficPolicy: string | null;

  @ApiProperty({ type: [ServicePortDto] })
  ports: ServicePortDto[];

  @ApiProperty({ type: [String], example: ['47.96.1.2'] })
  ingress: string[];

  @ApiProperty({ type: String, nullable: true, example: 'lb-bp1abcdefgh' })
  loadBalancerId: string | null;

  @ApiProperty({ enum: ['annotation', 'label', 'tag'], nullable: true, type: String, description: 'How the CLB was found (CCM order: id annotation, id label, owner tag)' })
  loadBalancerMatch: GraphServiceLbMatch | null;
}

/** A CLB listener. */
export class ListenerDto {
  @ApiProperty({ example: 443 })
  port: number;

  @ApiProperty({ example: 'tcp' })
  protocol: string;

  @ApiProperty({ type: String, nullable: true, example: 'rsp-bp1abc' })
  vServerGroupId: string | null;

  @ApiProperty({ type: Number, nullable: true })
  forwardPort: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'k8s/443/checkout/payments/c0123456789abcdef' })
  description: string | null;
}

/** A CLB instance. */
export class LoadBalancerDto {
  @ApiProperty({ example: 'lb-bp1abcdefgh' })
  loadBalancerId: string;

  @ApiProperty({ example: '1234567890123456' })
  accountId: string;

  @ApiProperty({ example: 'cn-hangzhou' })
  regionId: string;

  @ApiProperty({ example: 'k8s-payments-checkout' })
  name: string;

  @ApiProperty({ example: 'intranet', description: 'internet or intranet' })
  addressType: string;

  @ApiProperty({ type: String, nullable: true, example: '192.168.0.10' })
  address: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'vpc-bp1abc' })
  vpcId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'slb.s2.small' })
  spec: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'active' })
  status: string | null;

  @ApiProperty({ type: String, nullable: true, example: '2026-01-05T08:00:00Z' })
  createTime: string | null;

  @ApiProperty({ enum: ['ccm', 'reused', 'console'], description: 'Made by CCM (owner tag), reused by a Service, or made in the console / API' })
  owner: GraphLbOwner;

  @ApiProperty({ type: String, nullable: true, description: 'The cluster whose API server this CLB is' })
  apiServerClusterId: string | null;

  @ApiProperty({ type: [ListenerDto] })
  listeners: ListenerDto[];

  @ApiProperty({ example: 2 })
  listenerCount: number;

  @ApiProperty({ example: 2, description: 'vServer groups (count; the default server group not included)' })
  vServerGroupCount: number;

  @ApiProperty({ example: 24, description: 'Backend entries over the default group and every vServer group (count)' })
  backendEntries: number;

  @ApiProperty({ example: 12, description: 'Distinct backend server ids (count)' })
  distinctBackends: number;

  @ApiProperty({ example: 1, description: 'Services of type LoadBalancer using it (count)' })
  serviceCount: number;

  @ApiProperty({ type: [String], example: ['c0123456789abcdef'], description: 'Clusters of those Services, sorted' })
  clusterIds: string[];
}

/** A backend server entry of a server group. */
export class BackendDto {
  @ApiProperty({ example: 'i-bp1node01', description: 'ECS instance id, ENI id or ECI id' })
  serverId: string;

  @ApiProperty({ type: String, nullable: true, example: '192.168.0.21' })
  serverIp: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 31443, description: 'Backend port (vServer groups only)' })
  port: number | null;

  @ApiProperty({ example: 100, description: '0-100' })
  weight: number;

  @ApiProperty({ example: 'ecs', description: 'ecs, eni or eci' })
  type: string;
}

/** A server group of a CLB: the default server group (id '') or a vServer group, with its backends. */
export class ServerGroupDto {
  @ApiProperty({ example: 'rsp-bp1abc', description: "'' for the default server group" })
  vServerGroupId: string;

  @ApiProperty({ example: false })
  isDefault: boolean;

  @ApiProperty({ example: 'k8s/443/checkout/payments/c0123456789abcdef' })
  name: string;

  @ApiProperty({ type: [BackendDto], description: "In the CLB's order" })
  backends: BackendDto[];
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

/** An ECS instance with the CLBs it is a backend of. */
export class EcsInstanceDto {
  @ApiProperty({ example: 'i-bp1node01' })
  instanceId: string;

  @ApiProperty({ example: '1234567890123456' })
  accountId: string;

  @ApiProperty({ example: 'cn-hangzhou' })
  regionId: string;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'cn-hangzhou-h' })
  zoneId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Running' })
  status: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'ecs.g7.xlarge' })
  instanceType: string | null;

  @ApiProperty({ type: String, nullable: true })
  vpcId: string | null;

  @ApiProperty({ type: [String], example: ['192.168.0.21'] })
  privateIps: string[];

  @ApiProperty({ type: String, nullable: true, description: 'Cluster of the Kubernetes node it backs' })
  clusterId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'cn-hangzhou.192.168.0.21' })
  nodeName: string | null;

  @ApiProperty({ type: [String], description: "CLBs of its region listing it as an ecs backend (distinct, sorted; on GET /v1/ecs-instances/{id} only those within the token's accounts)" })
  loadBalancerIds: string[];

  @ApiProperty({ example: 3, description: 'Server groups (default groups included) listing it (count)' })
  serverGroupCount: number;
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
