/**
 * The fleet graph of one scan (issue 11 item 3): the relational view of a FleetSnapshot the API serves
 * (clusters, LoadBalancer Services with their CLB, CLB instances with listeners, server groups and
 * backends, ECS instances with their attachments). Built from the snapshot by `buildFleetGraph`
 * (libs/checks fleet-graph.ts), stored per succeeded scan by libs/store `FleetGraphRepository`
 * (tables `graph_*`). Ids are Alibaba Cloud / Kubernetes ids; counts are plain counts.
 */

/** One region of one account. */
export interface GraphRegion {
  accountId: string;
  regionId: string;
  accountName: string;
  /** ACK clusters of the region (count). */
  clusterCount: number;
  /** CLB instances (count); null when the region's CLBs were not read. */
  loadBalancerCount: number | null;
  /** ECS instances (count); null when not read. */
  ecsInstanceCount: number | null;
}

/** An ACK cluster. */
export interface GraphCluster {
  clusterId: string;
  accountId: string;
  regionId: string;
  name: string;
  /** `ManagedKubernetes`, `Kubernetes`, ... */
  clusterType: string;
  clusterSpec: string | null;
  state: string | null;
  currentVersion: string | null;
  ccmVersion: string | null;
  /** `flannel` | `terway` | `unknown`. */
  networkPlugin: string;
  vpcId: string | null;
  apiServerLoadBalancerId: string | null;
  /** Kubernetes nodes (count); null when the cluster's Kubernetes objects were not read. */
  nodeCount: number | null;
  /** Services of type LoadBalancer (count); null when not read. */
  serviceCount: number | null;
}

/** A port of a Service. */
export interface GraphServicePort {
  name: string | null;
  protocol: string;
  port: number;
  nodePort: number | null;
  /** Number or named port, as text; null when unset. */
  targetPort: string | null;
}

/** How the CLB of a Service was found (CCM `FindLoadBalancer` order): id annotation, id label, owner tag. */
export type GraphServiceLbMatch = 'annotation' | 'label' | 'tag';

/** A Kubernetes Service of type LoadBalancer. */
export interface GraphService {
  clusterId: string;
  namespace: string;
  name: string;
  accountId: string;
  regionId: string;
  uid: string;
  loadBalancerClass: string | null;
  /** Backend mode CCM applies (`cluster` | `local` | `eni`); null for Services CCM's CLB controller ignores. */
  mode: 'cluster' | 'local' | 'eni' | null;
  externalTrafficPolicy: string | null;
  ports: GraphServicePort[];
  /** `status.loadBalancer.ingress` IPs / hostnames. */
  ingress: string[];
  /** The CLB it uses (found in the snapshot), or null. */
  loadBalancerId: string | null;
  loadBalancerMatch: GraphServiceLbMatch | null;
}

/** A CLB listener. */
export interface GraphListener {
  port: number;
  protocol: string;
  vServerGroupId: string | null;
  forwardPort: number | null;
  description: string | null;
}

/** Who made a CLB: CCM (owner tag), a user who had a Service reuse it, or the console / API (neither). */
export type GraphLbOwner = 'ccm' | 'reused' | 'console';

/** A CLB instance. */
export interface GraphLoadBalancer {
  loadBalancerId: string;
  accountId: string;
  regionId: string;
  name: string;
  /** `internet` | `intranet`. */
  addressType: string;
  address: string | null;
  vpcId: string | null;
  spec: string | null;
  status: string | null;
  createTime: string | null;
  owner: GraphLbOwner;
  /** The cluster whose API server this CLB is, or null. */
  apiServerClusterId: string | null;
  listeners: GraphListener[];
  listenerCount: number;
  /** vServer groups (count; the default server group not included). */
  vServerGroupCount: number;
  /** Backend server entries over the default group and every vServer group (count). */
  backendEntries: number;
  /** Distinct server ids among them (count). */
  distinctBackends: number;
  /** Services of type LoadBalancer using it (count). */
  serviceCount: number;
  /** Clusters of those Services, sorted. */
  clusterIds: string[];
}

/** A backend server entry of a server group. */
export interface GraphBackend {
  /** ECS instance id (`i-...`), ENI id or ECI id. */
  serverId: string;
  serverIp: string | null;
  /** Backend port (vServer groups only), else null. */
  port: number | null;
  /** 0-100. */
  weight: number;
  /** `ecs` | `eni` | `eci`. */
  type: string;
}

/** A server group of a CLB: the default server group (`isDefault`, id `''`) or a vServer group. */
export interface GraphServerGroup {
  loadBalancerId: string;
  /** `''` for the default server group. */
  vServerGroupId: string;
  isDefault: boolean;
  name: string;
  accountId: string;
  regionId: string;
  /** In the CLB's order. */
  backends: GraphBackend[];
}

/** An ECS instance with the CLBs it is a backend of. */
export interface GraphEcsInstance {
  instanceId: string;
  accountId: string;
  regionId: string;
  name: string | null;
  zoneId: string | null;
  status: string | null;
  instanceType: string | null;
  vpcId: string | null;
  privateIps: string[];
  /** The cluster of the Kubernetes node it backs (providerID), or null. */
  clusterId: string | null;
  nodeName: string | null;
  /** CLBs of its region listing it as an `ecs` backend: distinct, sorted. */
  loadBalancerIds: string[];
  /** Server groups (default groups included) listing it (count). */
  serverGroupCount: number;
}

/** The whole graph of one scan. Every list sorted by its key. */
export interface FleetGraph {
  regions: GraphRegion[];
  clusters: GraphCluster[];
  services: GraphService[];
  loadBalancers: GraphLoadBalancer[];
  serverGroups: GraphServerGroup[];
  ecsInstances: GraphEcsInstance[];
}
