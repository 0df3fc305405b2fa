/**
 * Each fleet-graph resource declared once: its fields, their value types and nullability, how REST
 * documents them (OpenAPI `@ApiProperty` options) and how GraphQL exposes them (`@Field` options). Everything else
 * follows from these declarations:
 * - the domain row types (`GraphCluster`, ...: fleet-graph.types.ts, `RowOf<typeof ...>`);
 * - the store columns and row mappers of the tables `graph_*` (libs/store fleet-graph.columns.ts: column
 *   `snake_case(field)` unless `column` names it);
 * - the REST response classes (`ClusterDto`, ...: apps/api fleet.dto.ts) and the GraphQL object types
 *   (`Cluster`, ...: apps/api graphql.types.ts), built from them at start-up (apps/api resource-class.util.ts).
 * Adding a field is one entry here plus its value in the builder (libs/checks fleet-graph.ts, which the row type
 * forces) and an append-only migration adding the column. A new resource (NLB) is one declaration.
 *
 * Plain data: no framework import (libs/domain imports nothing). Field order is the order of REST properties.
 */
import { LOAD_BALANCER_KIND_IDS } from './lb-kinds';

/** Scalar value kinds: `int` / `float` are counts and measures (JSON numbers), `id` a string that GraphQL types as `ID`. */
export type ResourceScalar = 'string' | 'id' | 'int' | 'float' | 'boolean' | 'string[]';

/**
 * REST documentation of a field: the `@ApiProperty` options other than `type` (the type follows from the field),
 * in the order they appear in the OpenAPI document. `false`: not part of the REST shape.
 */
export type RestFieldDoc = false | { readonly nullable?: true; readonly example?: unknown; readonly description?: string; readonly format?: string };

/** GraphQL exposure of a field: `@Field` options other than the type. `false`: a property of the node, not a field. */
export type GqlFieldDoc = false | { readonly description?: string };

/** One field of a resource. */
export interface ResourceField {
  /**
   * A scalar kind, or `list`: a list of another resource's rows (stored as one value: jsonb, or packed JSON text where
   * the store says so, as for an NLB's server groups: libs/store fleet-graph.columns.ts `unpackedRowsOf`).
   */
  readonly type: ResourceScalar | 'list';
  /** For `list`: the resource of the elements. */
  readonly of?: ResourceDecl;
  /** The value may be null (the source did not say, or was not read). */
  readonly nullable?: true;
  /** For a string: its only values (a union type; REST documents them as an enum). */
  readonly values?: readonly string[];
  /** REST documentation (default: no options beyond the type). */
  readonly rest?: RestFieldDoc;
  /** GraphQL exposure (default: a field without description). */
  readonly gql?: GqlFieldDoc;
  /** Store column name when not `snake_case(field)`; `false`: not stored in a column of its own. */
  readonly column?: string | false;
}

/** A fleet-graph resource: names of its REST class (`<rest>`) and GraphQL type (`<gql>`), and its fields. */
export interface ResourceDecl {
  /** REST class name (OpenAPI schema name); absent: REST has no class of this resource. */
  readonly rest?: string;
  /** GraphQL object type name. */
  readonly gql: string;
  /** GraphQL type description. */
  readonly gqlDescription?: string;
  readonly fields: Readonly<Record<string, ResourceField>>;
}

type ScalarValue<F extends ResourceField> = F['type'] extends 'int' | 'float'
  ? number
  : F['type'] extends 'boolean'
    ? boolean
    : F['type'] extends 'string[]'
      ? string[]
      : F['type'] extends 'list'
        ? F['of'] extends ResourceDecl
          ? RowOf<F['of']>[]
          : never
        : F['values'] extends readonly (infer V)[]
          ? V
          : string;

/** The value type of a field (null included when `nullable`). */
export type FieldValue<F extends ResourceField> = F['nullable'] extends true ? ScalarValue<F> | null : ScalarValue<F>;

/** The row type a declaration describes: one property per field. */
export type RowOf<D extends ResourceDecl> = { -readonly [K in keyof D['fields']]: FieldValue<D['fields'][K]> };

/** REST options of a nullable field: `nullable` first, then the example and the description where given. */
function nullableRest(example?: unknown, description?: string): RestFieldDoc {
  return {
    nullable: true,
    ...(example === undefined ? {} : { example }),
    ...(description === undefined ? {} : { description }),
  };
}

/** A nullable string field documented for REST with an example and a description (each omitted when absent). */
function nullableText(
  example?: string,
  description?: string,
): { readonly type: 'string'; readonly nullable: true; readonly rest: RestFieldDoc } {
  return { type: 'string', nullable: true, rest: nullableRest(example, description) };
}

/** A count (`int`) that is null when its source was not read: REST example and description, GraphQL description. */
function nullableCount(
  example: number,
  restDescription: string,
  gqlDescription: string,
): { readonly type: 'int'; readonly nullable: true; readonly rest: RestFieldDoc; readonly gql: GqlFieldDoc } {
  return { type: 'int', nullable: true, rest: nullableRest(example, restDescription), gql: { description: gqlDescription } };
}

/**
 * A string of one of `values`, or null: REST documents it as a nullable enum with a description, GraphQL with its
 * own description (which lists the values).
 */
function nullableChoice<const V extends readonly string[]>(
  values: V,
  restDescription: string,
  gqlDescription: string,
): { readonly type: 'string'; readonly values: V; readonly nullable: true; readonly rest: RestFieldDoc; readonly gql: GqlFieldDoc } {
  return { type: 'string', values, nullable: true, rest: nullableRest(undefined, restDescription), gql: { description: gqlDescription } };
}
/** Where a resource lives: its account and region (the two fields, in this order, of every located resource). */
const LOCATION = {
  accountId: { type: 'string', rest: { example: '1234567890123456' } },
  regionId: { type: 'string', rest: { example: 'cn-hangzhou' } },
} as const satisfies Record<string, ResourceField>;

/** An ACK cluster. */
export const GRAPH_CLUSTER = {
  rest: 'ClusterDto',
  gql: 'Cluster',
  fields: {
    clusterId: { type: 'id', rest: { example: 'c0123456789abcdef' } },
    ...LOCATION,
    name: { type: 'string', rest: { example: 'prod-payments' } },
    /** `ManagedKubernetes`, `Kubernetes`, ... */
    clusterType: { type: 'string', rest: { example: 'ManagedKubernetes' } },
    clusterSpec: nullableText('ack.pro.small'),
    state: nullableText('running'),
    currentVersion: nullableText('1.30.1-aliyun.1'),
    ccmVersion: nullableText('v2.10.0'),
    /** `flannel` | `terway` | `unknown`. */
    networkPlugin: { type: 'string', rest: { example: 'terway', description: 'flannel, terway or unknown' } },
    vpcId: nullableText('vpc-bp1abc'),
    apiServerLoadBalancerId: nullableText('lb-bp1apiserver'),
    /** Kubernetes nodes (count); null when the cluster's Kubernetes objects were not read. */
    nodeCount: nullableCount(12, 'Kubernetes nodes (count); null when not read', 'Null when the cluster’s Kubernetes objects were not read'),
    /** Services of type LoadBalancer (count); null when not read. */
    serviceCount: nullableCount(40, 'Services of type LoadBalancer (count); null when not read', 'Services of type LoadBalancer'),
    /**
     * The owning team (libs/domain owners.ts `teamOf`: the audit settings' `owners`, else the cluster's team tag); null
     * for an unowned cluster and for graphs stored before teams were recorded.
     */
    team: {
      type: 'string',
      nullable: true,
      rest: nullableRest('payments', "The owning team (audit settings owners, else the cluster's team tag); null when unowned"),
      gql: { description: "The owning team (audit settings owners, else the cluster's team tag); null when unowned" },
    },
  },
} as const satisfies ResourceDecl;

/** A port of a Service. */
export const GRAPH_SERVICE_PORT = {
  rest: 'ServicePortDto',
  gql: 'ServicePort',
  fields: {
    name: nullableText('https'),
    protocol: { type: 'string', rest: { example: 'TCP' } },
    port: { type: 'int', rest: { example: 443 } },
    nodePort: { type: 'int', nullable: true, rest: { nullable: true, example: 31443 } },
    /** Number or named port, as text; null when unset. */
    targetPort: nullableText('8443', 'Number or named port, as text'),
  },
} as const satisfies ResourceDecl;

/** Backend modes CCM applies to a CLB Service (CCM `serviceTrafficPolicy`). */
export const SERVICE_MODES = ['cluster', 'local', 'eni'] as const;
/** How the CLB of a Service was found (CCM `FindLoadBalancer` order): id annotation, id label, owner tag. */
export const SERVICE_LB_MATCHES = ['annotation', 'label', 'tag'] as const;

/**
 * How the NLB of a Service was found (CCM `FindNLB`, pkg/provider/alibaba/nlb/loadbalancer.go; research/nlb.md 3.2):
 * the `...-loadbalancer-id` annotation, the owner tag `kubernetes.do.not.delete`, the default LB name.
 */
export const SERVICE_NLB_MATCHES = ['id', 'tag', 'name'] as const;

/** A Kubernetes Service of type LoadBalancer. */
export const GRAPH_SERVICE = {
  rest: 'ServiceDto',
  gql: 'Service',
  gqlDescription: 'A Kubernetes Service of type LoadBalancer',
  fields: {
    clusterId: { type: 'string', rest: { example: 'c0123456789abcdef' } },
    namespace: { type: 'string', rest: { example: 'payments' } },
    name: { type: 'string', rest: { example: 'checkout' } },
    ...LOCATION,
    uid: { type: 'string', rest: { example: '6f1c2d3e-0000-4000-8000-000000000001' } },
    loadBalancerClass: nullableText(),
    /** Backend mode CCM applies (`cluster` | `local` | `eni`); null for Services CCM's CLB controller ignores. */
    mode: nullableChoice(SERVICE_MODES, 'Backend mode CCM applies; null when its CLB controller ignores the Service', 'Backend mode CCM applies: cluster | local | eni (null: not a CLB Service)'),
    externalTrafficPolicy: nullableText('Local'),
    ports: { type: 'list', of: GRAPH_SERVICE_PORT },
    /** `status.loadBalancer.ingress` IPs / hostnames. */
    ingress: { type: 'string[]', rest: { example: ['47.96.1.2'] } },
    /** The CLB it uses (found in the snapshot), or null. */
    loadBalancerId: nullableText('lb-bp1abcdefgh'),
    loadBalancerMatch: nullableChoice(SERVICE_LB_MATCHES, 'How the CLB was found (CCM order: id annotation, id label, owner tag)', 'How the CLB was found: annotation | label | tag'),
    /**
     * The kind of load balancer CCM manages for it: `clb` (its CLB controller takes it), `nlb` (its NLB controller:
     * `spec.loadBalancerClass: alibabacloud.com/nlb`), null when neither does (another controller's class, or
     * excluded). CCM `NeedCLB` / `NeedNLB`, pkg/controller/helper/service_utils.go.
     */
    loadBalancerKind: nullableChoice(
      LOAD_BALANCER_KIND_IDS,
      `${LOAD_BALANCER_KIND_IDS.join(' or ')}: which CCM controller takes the Service (null: neither)`,
      `${LOAD_BALANCER_KIND_IDS.join(' | ')}: which CCM controller takes the Service (null: neither)`,
    ),
    /** The NLB it uses (found in the snapshot the way CCM's `FindNLB` finds it), or null. */
    nlbId: nullableText('nlb-bp1abcdefgh'),
    nlbMatch: nullableChoice(SERVICE_NLB_MATCHES, "How the NLB was found (CCM FindNLB order: id annotation, owner tag, default name)", 'How the NLB was found: id | tag | name'),
  },
} as const satisfies ResourceDecl;

/** A CLB listener. */
export const GRAPH_LISTENER = {
  rest: 'ListenerDto',
  gql: 'Listener',
  fields: {
    port: { type: 'int', rest: { example: 443 } },
    protocol: { type: 'string', rest: { example: 'tcp' } },
    vServerGroupId: nullableText('rsp-bp1abc'),
    forwardPort: { type: 'int', nullable: true, rest: { nullable: true } },
    description: nullableText('k8s/443/checkout/payments/c0123456789abcdef'),
  },
} as const satisfies ResourceDecl;

/** Who made a CLB: CCM (owner tag), a user who had a Service reuse it, or the console / API (neither). */
export const LB_OWNERS = ['ccm', 'reused', 'console'] as const;
/** The `owner` field of a load balancer (CLB and NLB alike): who made it, one of `LB_OWNERS`. */
const LB_OWNER = {
  type: 'string',
  values: LB_OWNERS,
  rest: { description: 'Made by CCM (owner tag), reused by a Service, or made in the console / API' },
  gql: { description: 'ccm | reused | console' },
} as const satisfies ResourceField;

/** A CLB instance. */
export const GRAPH_LOAD_BALANCER = {
  rest: 'LoadBalancerDto',
  gql: 'LoadBalancer',
  gqlDescription: 'A CLB instance',
  fields: {
    loadBalancerId: { type: 'id', rest: { example: 'lb-bp1abcdefgh' } },
    ...LOCATION,
    name: { type: 'string', rest: { example: 'k8s-payments-checkout' } },
    /** `internet` | `intranet`. */
    addressType: { type: 'string', rest: { example: 'intranet', description: 'internet or intranet' } },
    address: nullableText('192.168.0.10'),
    vpcId: nullableText('vpc-bp1abc'),
    spec: nullableText('slb.s2.small'),
    status: nullableText('active'),
    createTime: nullableText('2026-01-05T08:00:00Z'),
    owner: LB_OWNER,
    /** The cluster whose API server this CLB is, or null. */
    apiServerClusterId: nullableText(undefined, 'The cluster whose API server this CLB is'),
    listeners: { type: 'list', of: GRAPH_LISTENER },
    listenerCount: { type: 'int', rest: { example: 2 } },
    /** vServer groups (count; the default server group not included). */
    vServerGroupCount: { type: 'int', column: 'vserver_group_count', rest: { example: 2, description: 'vServer groups (count; the default server group not included)' } },
    /** Backend server entries over the default group and every vServer group (count). */
    backendEntries: {
      type: 'int',
      rest: { example: 24, description: 'Backend entries over the default group and every vServer group (count)' },
      gql: { description: 'Backend server entries over every server group' },
    },
    /** Distinct server ids among them (count). */
    distinctBackends: { type: 'int', rest: { example: 12, description: 'Distinct backend server ids (count)' } },
    /** Services of type LoadBalancer using it (count). */
    serviceCount: { type: 'int', rest: { example: 1, description: 'Services of type LoadBalancer using it (count)' } },
    /** Clusters of those Services, sorted (GraphQL: the `clusters` connection, narrowed to the caller's scope). */
    clusterIds: { type: 'string[]', rest: { example: ['c0123456789abcdef'], description: 'Clusters of those Services, sorted' }, gql: false },
  },
} as const satisfies ResourceDecl;

/** A backend server entry of a server group. */
export const GRAPH_BACKEND = {
  rest: 'BackendDto',
  gql: 'Backend',
  fields: {
    /** ECS instance id (`i-...`), ENI id or ECI id. */
    serverId: { type: 'string', rest: { example: 'i-bp1node01', description: 'ECS instance id, ENI id or ECI id' } },
    serverIp: nullableText('192.168.0.21'),
    /** Backend port (vServer groups only), else null. */
    port: { type: 'int', nullable: true, rest: { nullable: true, example: 31443, description: 'Backend port (vServer groups only)' } },
    /** 0-100. */
    weight: { type: 'int', rest: { example: 100, description: '0-100' } },
    /** `ecs` | `eni` | `eci`. */
    type: { type: 'string', rest: { example: 'ecs', description: 'ecs, eni or eci' }, gql: { description: 'ecs | eni | eci' } },
  },
} as const satisfies ResourceDecl;

/** A server group of a CLB: the default server group (`isDefault`, id `''`) or a vServer group. */
export const GRAPH_SERVER_GROUP = {
  rest: 'ServerGroupDto',
  gql: 'ServerGroup',
  gqlDescription: 'A CLB server group: the default one (isDefault, id "") or a vServer group',
  fields: {
    loadBalancerId: { type: 'string', rest: false },
    /** `''` for the default server group. */
    vServerGroupId: { type: 'string', column: 'vserver_group_id', rest: { example: 'rsp-bp1abc', description: "'' for the default server group" } },
    isDefault: { type: 'boolean', rest: { example: false } },
    name: { type: 'string', rest: { example: 'k8s/443/checkout/payments/c0123456789abcdef' } },
    accountId: { type: 'string', rest: false, gql: false },
    regionId: { type: 'string', rest: false, gql: false },
    /** In the CLB's order (stored packed: libs/store fleet-graph.columns.ts). */
    backends: { type: 'list', of: GRAPH_BACKEND, column: false, rest: { description: "In the CLB's order" }, gql: false },
  },
} as const satisfies ResourceDecl;

/** An ECS instance with the CLBs it is a backend of and the NLB server groups (and their NLBs) it is a server of. */
export const GRAPH_ECS_INSTANCE = {
  rest: 'EcsInstanceDto',
  gql: 'EcsInstance',
  fields: {
    instanceId: { type: 'id', rest: { example: 'i-bp1node01' } },
    ...LOCATION,
    name: nullableText(),
    zoneId: nullableText('cn-hangzhou-h'),
    status: nullableText('Running'),
    instanceType: nullableText('ecs.g7.xlarge'),
    vpcId: nullableText(),
    privateIps: { type: 'string[]', rest: { example: ['192.168.0.21'] } },
    /** The cluster of the Kubernetes node it backs (providerID), or null. */
    clusterId: nullableText(undefined, 'Cluster of the Kubernetes node it backs'),
    nodeName: nullableText('cn-hangzhou.192.168.0.21'),
    /** CLBs of its region listing it as an `ecs` backend: distinct, sorted. */
    loadBalancerIds: {
      type: 'string[]',
      rest: { description: "CLBs of its region listing it as an ecs backend (distinct, sorted; on GET /v1/ecs-instances/{id} only those within the token's accounts)" },
      gql: false,
    },
    /** Server groups (default groups included) listing it (count). */
    serverGroupCount: { type: 'int', rest: { example: 3, description: 'Server groups (default groups included) listing it (count)' } },
    /**
     * NLB server groups of its account and region listing it: as an `Ecs` server (its id) or an `Ip` server (one of
     * its private IPs), those no NLB uses included (leaked groups still hold it); distinct, sorted. Their count is what
     * `nlb_quota_server_added_num` counts against it (research/nlb.md 5). Empty where the region's NLBs were not read,
     * and on graphs stored before this field.
     */
    nlbServerGroupIds: {
      type: 'string[]',
      rest: { example: ['sgp-bp1abc'], description: 'NLB server groups listing it as an Ecs server or by a private IP (unused groups included; distinct, sorted)' },
      gql: { description: 'NLB server groups listing it as an Ecs server or by a private IP (unused groups included)' },
    },
    /** NLBs using those server groups (their listeners' groups and `RelatedLoadBalancerIds`): distinct, sorted. */
    nlbIds: {
      type: 'string[]',
      rest: { example: ['nlb-bp1abcdefgh'], description: 'NLBs using those server groups (distinct, sorted)' },
      gql: false,
    },
  },
} as const satisfies ResourceDecl;

/** An NLB listener (NLB 2022-04-30 ListListeners; research/nlb.md 6): forwards to exactly one server group. */
export const GRAPH_NLB_LISTENER = {
  rest: 'NlbListenerDto',
  gql: 'NlbListener',
  fields: {
    listenerId: { type: 'string', rest: { example: 'lsn-bp1abc' } },
    /** `TCP`, `UDP`, `TCPSSL`. */
    protocol: { type: 'string', rest: { example: 'TCP', description: 'TCP, UDP or TCPSSL' } },
    /** Listener port; 0 for a port range (`startPort`..`endPort`). */
    port: { type: 'int', rest: { example: 443, description: 'Listener port; 0 for a port range (startPort..endPort)' } },
    startPort: { type: 'int', nullable: true, rest: { nullable: true } },
    endPort: { type: 'int', nullable: true, rest: { nullable: true } },
    serverGroupId: nullableText('sgp-bp1abc'),
    /** CCM writes `k8s.{servicePort}.{proto}.{svc}.{ns}.{clusterId}` here (research/nlb.md 3.1). */
    description: nullableText('k8s.443.TCP.checkout.payments.c0123456789abcdef'),
    status: nullableText('Running'),
  },
} as const satisfies ResourceDecl;

/** NLB server types (ListServerGroupServers `ServerType`; research/nlb.md 4). */
export const NLB_SERVER_TYPES = ['Ecs', 'Eni', 'Eci', 'Ip'] as const;

/** A server of an NLB server group (NLB 2022-04-30 ListServerGroupServers). */
export const GRAPH_NLB_SERVER = {
  rest: 'NlbServerDto',
  gql: 'NlbServer',
  fields: {
    /** ECS instance id, ENI id, ECI id, or the IP of an `Ip` server. */
    serverId: { type: 'string', rest: { example: 'i-bp1node01', description: 'ECS instance id, ENI id, ECI id, or the IP of an Ip server' } },
    serverIp: nullableText('192.168.0.21'),
    type: { type: 'string', values: NLB_SERVER_TYPES, rest: { description: 'Ecs, Eni, Eci or Ip' }, gql: { description: 'Ecs | Eni | Eci | Ip' } },
    /** Backend port (NodePort, or the targetPort in ENI mode; 0 on an any-port group). */
    port: { type: 'int', nullable: true, rest: { nullable: true, example: 31443, description: 'Backend port (0 on an any-port server group)' } },
    /** 0-100. */
    weight: { type: 'int', nullable: true, rest: { nullable: true, example: 100, description: '0-100' } },
    status: nullableText('Available'),
    zoneId: nullableText('cn-hangzhou-h'),
  },
} as const satisfies ResourceDecl;

/** An NLB server group with its servers (NLB 2022-04-30 ListServerGroups + ListServerGroupServers). */
export const GRAPH_NLB_SERVER_GROUP = {
  rest: 'NlbServerGroupDto',
  gql: 'NlbServerGroup',
  gqlDescription: 'An NLB server group (one per listener for CCM) with its servers',
  fields: {
    serverGroupId: { type: 'string', rest: { example: 'sgp-bp1abc' } },
    /** CCM names its groups `k8s.{port}.{proto}.{svc}.{ns}.{clusterId}` (research/nlb.md 3.1). */
    name: { type: 'string', rest: { example: 'k8s.443.TCP.checkout.payments.c0123456789abcdef' } },
    /** `Instance` or `Ip`. */
    type: { type: 'string', rest: { example: 'Instance', description: 'Instance or Ip' } },
    protocol: nullableText('TCP'),
    status: nullableText('Available'),
    /** CCM's owner tag `kubernetes.do.not.delete` (the Service's default LB name), or null when untagged. */
    ownerTag: nullableText(
      'a5e4dbfc9c2ae4642b0335607860aef6',
      "CCM's owner tag kubernetes.do.not.delete (the Service's default LB name); null when untagged",
    ),
    /** Servers (count: the entries below). */
    serverCount: { type: 'int', rest: { example: 6, description: 'Servers (count)' } },
    /** Sorted by type, id, IP and port. */
    servers: { type: 'list', of: GRAPH_NLB_SERVER, rest: { description: 'Sorted by type, id, IP and port' } },
  },
} as const satisfies ResourceDecl;

/**
 * One region of one account. REST serves it only on `GET /v1/nlb-server-groups/unused` (the region's NLB server
 * groups no NLB uses); GraphQL as `Account.regions`.
 */
export const GRAPH_REGION = {
  rest: 'RegionDto',
  gql: 'Region',
  fields: {
    accountId: { type: 'string' },
    regionId: { type: 'string' },
    accountName: { type: 'string' },
    /** ACK clusters of the region (count). */
    clusterCount: { type: 'int' },
    /** CLB instances (count); null when the region's CLBs were not read. */
    loadBalancerCount: { type: 'int', nullable: true, gql: { description: 'Null when the region’s CLBs were not read' } },
    /** ECS instances (count); null when not read. */
    ecsInstanceCount: { type: 'int', nullable: true },
    /**
     * NLB server groups of the region, used or not (count): what the fixed per-region quota `nlb_quota_servergroups_num`
     * (3,000) counts (research/nlb.md 5); null when the region's NLBs were not read (and on graphs stored before it).
     */
    nlbServerGroupCount: nullableCount(120, 'NLB server groups of the region, used or not (count; the fixed 3,000 quota counts them); null when not read', 'NLB server groups of the region, used or not; null when the region’s NLBs were not read'),
    /**
     * The region's NLB server groups no NLB uses (empty `RelatedLoadBalancerIds` and no listener): groups CCM builds
     * before v2.12.4 left behind when an NLB Service was deleted, and those `preserve-lb-on-delete` untagged and kept
     * (research/nlb.md 3.3). Each still holds a slot of the fixed quota. By id; empty when not read.
     */
    unusedNlbServerGroups: {
      type: 'list',
      of: GRAPH_NLB_SERVER_GROUP,
      rest: { description: 'NLB server groups no NLB uses (leaked by CCM before v2.12.4, or kept by preserve-lb-on-delete), by id' },
      gql: { description: 'NLB server groups no NLB uses (leaked by CCM before v2.12.4, or kept by preserve-lb-on-delete)' },
    },
  },
} as const satisfies ResourceDecl;

/**
 * An NLB instance (NLB 2022-04-30 ListLoadBalancers) with its listeners and server groups. A resource of its own
 * beside the CLB (`GRAPH_LOAD_BALANCER`), not one shared `kind`-tagged shape: the fields differ where it matters
 * (an NLB has a DNS name and zone mappings, never an address or spec; a listener forwards to one server group by
 * id, never a forward port; there is no default server group; servers are typed Ecs / Eni / Eci / Ip and carry
 * a zone). The Service resource, which both kinds share, says which kind it uses (`loadBalancerKind`).
 */
export const GRAPH_NLB = {
  rest: 'NlbDto',
  gql: 'Nlb',
  gqlDescription: 'An NLB instance (Network Load Balancer)',
  fields: {
    nlbId: { type: 'id', column: 'nlb_id', rest: { example: 'nlb-bp1abcdefgh' } },
    ...LOCATION,
    name: nullableText('k8s-payments-checkout'),
    /** `Internet` | `Intranet` (as the NLB API spells it). */
    addressType: nullableText('Intranet'),
    /** `ipv4` | `DualStack`. */
    addressIpVersion: nullableText('ipv4'),
    vpcId: nullableText('vpc-bp1abc'),
    /** What CCM writes as the Service's status hostname (NLB Services never get an IP). */
    dnsName: nullableText('nlb-bp1abcdefgh.cn-hangzhou.nlb.aliyuncs.com'),
    /** Zones of its zone mappings, in the API's order. */
    zoneIds: { type: 'string[]', rest: { example: ['cn-hangzhou-h', 'cn-hangzhou-i'], description: 'Zones of its zone mappings' } },
    status: nullableText('Active'),
    createTime: nullableText('2026-01-05T08:00:00Z'),
    owner: LB_OWNER,
    listeners: { type: 'list', of: GRAPH_NLB_LISTENER },
    listenerCount: { type: 'int', rest: { example: 2 } },
    /** The server groups it uses (its listeners' and those naming it), by id. */
    serverGroups: { type: 'list', of: GRAPH_NLB_SERVER_GROUP, rest: { description: "The server groups it uses (its listeners' and those naming it), by id" } },
    serverGroupCount: { type: 'int', rest: { example: 2 } },
    /** Server entries over its server groups (count; the NLB quota `nlb_quota_backends_num` counts these). */
    serverEntries: { type: 'int', rest: { example: 12, description: 'Server entries over its server groups (count)' } },
    /** Distinct servers (type + id) among them (count). */
    distinctServers: { type: 'int', rest: { example: 6, description: 'Distinct servers (type and id) among them (count)' } },
    /** Services of type LoadBalancer using it (count). */
    serviceCount: { type: 'int', rest: { example: 1, description: 'Services of type LoadBalancer using it (count)' } },
    /** Clusters of those Services, sorted (GraphQL: the `clusters` connection, narrowed to the caller's scope). */
    clusterIds: { type: 'string[]', rest: { example: ['c0123456789abcdef'], description: 'Clusters of those Services, sorted' }, gql: false },
  },
} as const satisfies ResourceDecl;
