/**
 * The fleet graph of one scan: the relational view of a FleetSnapshot the API serves
 * (clusters, LoadBalancer Services with their CLB or NLB, CLB instances with listeners, server groups and
 * backends, NLB instances with listeners and server groups with servers, ECS instances with their attachments). Built from the snapshot by `buildFleetGraph`
 * (libs/checks fleet-graph.ts), stored per succeeded scan by libs/store `FleetGraphRepository`
 * (tables `graph_*`). Ids are Alibaba Cloud / Kubernetes ids; counts are plain counts.
 */

import type {
  GRAPH_BACKEND,
  GRAPH_CLUSTER,
  GRAPH_ECS_INSTANCE,
  GRAPH_LISTENER,
  GRAPH_LOAD_BALANCER,
  GRAPH_NLB,
  GRAPH_NLB_LISTENER,
  GRAPH_NLB_SERVER,
  GRAPH_NLB_SERVER_GROUP,
  GRAPH_REGION,
  GRAPH_SERVER_GROUP,
  GRAPH_SERVICE,
  GRAPH_SERVICE_PORT,
  LB_OWNERS,
  RowOf,
  SERVICE_LB_MATCHES,
  SERVICE_NLB_MATCHES,
} from './fleet-graph.resources';
import type { BackendServer, NlbServer } from './snapshot.types';

// The row types follow from the declarations in fleet-graph.resources.ts (fields, their meaning and units are
// documented there): a field added there is a property here.

/** One region of one account. */
export type GraphRegion = RowOf<typeof GRAPH_REGION>;

/** An ACK cluster. */
export type GraphCluster = RowOf<typeof GRAPH_CLUSTER>;

/** A port of a Service. */
export type GraphServicePort = RowOf<typeof GRAPH_SERVICE_PORT>;

/** How the CLB of a Service was found (CCM `FindLoadBalancer` order): id annotation, id label, owner tag. */
export type GraphServiceLbMatch = (typeof SERVICE_LB_MATCHES)[number];

/** A Kubernetes Service of type LoadBalancer. */
export type GraphService = RowOf<typeof GRAPH_SERVICE>;

/** A CLB listener. */
export type GraphListener = RowOf<typeof GRAPH_LISTENER>;

/** Who made a CLB: CCM (owner tag), a user who had a Service reuse it, or the console / API (neither). */
export type GraphLbOwner = (typeof LB_OWNERS)[number];

/** A CLB instance. */
export type GraphLoadBalancer = RowOf<typeof GRAPH_LOAD_BALANCER>;

/** A backend server entry of a server group. */
export type GraphBackend = RowOf<typeof GRAPH_BACKEND>;

/** A server group of a CLB: the default server group (`isDefault`, id `''`) or a vServer group. */
export type GraphServerGroup = RowOf<typeof GRAPH_SERVER_GROUP>;

/**
 * A backend entry of a built graph's server group: the snapshot's own entry (`BackendServer`, not copied: a
 * 5,000-cluster fleet has 10M of them), whose absent IP or port is stored and served as null; or a `GraphBackend`.
 */
export type GraphBackendEntry = GraphBackend | Pick<BackendServer, 'serverId' | 'serverIp' | 'port' | 'weight' | 'type'>;

/** A server group as `buildFleetGraph` gives it: a `GraphServerGroup` whose backends are `GraphBackendEntry`s. */
export type BuiltServerGroup = Omit<GraphServerGroup, 'backends'> & { backends: GraphBackendEntry[] };

/** An ECS instance with the CLBs it is a backend of. */
export type GraphEcsInstance = RowOf<typeof GRAPH_ECS_INSTANCE>;

/** How the NLB of a Service was found (CCM `FindNLB` order): id annotation, owner tag, default name. */
export type GraphServiceNlbMatch = (typeof SERVICE_NLB_MATCHES)[number];

/** An NLB listener. */
export type GraphNlbListener = RowOf<typeof GRAPH_NLB_LISTENER>;

/** A server of an NLB server group. */
export type GraphNlbServer = RowOf<typeof GRAPH_NLB_SERVER>;

/** An NLB server group with its servers. */
export type GraphNlbServerGroup = RowOf<typeof GRAPH_NLB_SERVER_GROUP>;

/** An NLB instance with its listeners and server groups. */
export type GraphNlb = RowOf<typeof GRAPH_NLB>;

/**
 * A server of a built graph's NLB server group: the snapshot's own entry (`NlbServer`, not copied: a 5,000-cluster
 * fleet has millions), whose absent fields are stored and served as null; or a `GraphNlbServer`.
 */
export type GraphNlbServerEntry = GraphNlbServer | Pick<NlbServer, 'serverId' | 'serverIp' | 'type' | 'port' | 'weight' | 'status' | 'zoneId'>;

/** An NLB server group as `buildFleetGraph` gives it: a `GraphNlbServerGroup` whose servers are `GraphNlbServerEntry`s. */
export type BuiltNlbServerGroup = Omit<GraphNlbServerGroup, 'servers'> & { servers: readonly GraphNlbServerEntry[] };

/** An NLB as `buildFleetGraph` gives it: its server groups are `BuiltNlbServerGroup`s. */
export type BuiltNlb = Omit<GraphNlb, 'serverGroups'> & { serverGroups: BuiltNlbServerGroup[] };

/** A region as `buildFleetGraph` gives it: its unused NLB server groups are `BuiltNlbServerGroup`s. */
export type BuiltRegion = Omit<GraphRegion, 'unusedNlbServerGroups'> & { unusedNlbServerGroups: BuiltNlbServerGroup[] };

/** The whole graph of one scan. Every list sorted by its key. */
export interface FleetGraph {
  /** Their unused NLB server groups' servers as the snapshot holds them (`BuiltRegion`). */
  regions: BuiltRegion[];
  clusters: GraphCluster[];
  services: GraphService[];
  loadBalancers: GraphLoadBalancer[];
  /** Their backends as the snapshot holds them (`BuiltServerGroup`); the store writes them as `GraphBackend`s. */
  serverGroups: BuiltServerGroup[];
  ecsInstances: GraphEcsInstance[];
  /**
   * NLB instances by id (empty for regions whose NLBs were not read), their servers as the snapshot holds them
   * (`BuiltNlb`); the store writes them as `GraphNlbServer`s.
   */
  nlbs: BuiltNlb[];
}
