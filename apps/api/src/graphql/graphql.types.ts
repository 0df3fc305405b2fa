/**
 * GraphQL object types (NestJS code-first, docs.nestjs.com/graphql/resolvers): the scans, findings and the stored
 * fleet graph of a scan (libs/store FleetGraphRepository). Every list of nodes is a Relay connection
 * (relay.dev/graphql/connections.htm) with `edges { cursor node }`, `nodes`, `pageInfo` and, where cheap, a
 * lazily counted `totalCount`, as GitHub's GraphQL API does (docs.github.com/graphql/guides/using-pagination-in-the-graphql-api).
 * Embedded value lists (ports, listeners, IPs) are plain lists: they are part of their node, bounded, and not paged.
 *
 * Cost: a connection field costs `1 + n x max(1, cost of one node's selection)` (n = `first` or `last`), a root field
 * 1 plus its selection, other fields their selection (scalars 0); see graphql-cost.plugin.ts.
 */
import { ArgsType, Field, Float, ID, Int, ObjectType, registerEnumType, type ComplexityEstimatorArgs } from '@nestjs/graphql';
import type { Type } from '@nestjs/common';
import {
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
  type GraphBackend,
  type GraphCluster,
  type GraphEcsInstance,
  type GraphListener,
  type GraphLoadBalancer,
  type GraphNlb,
  type GraphNlbListener,
  type GraphNlbServer,
  type GraphNlbServerGroup,
  type GraphRegion,
  type GraphServerGroup,
  type GraphService,
  type GraphServicePort,
} from '@app/domain';
// 'graphql/index.js', not 'graphql': the same (CommonJS) module instance Nest and Apollo load, also under Vitest, whose
// resolver would otherwise pick graphql's ESM build for our files (two instances break instanceof checks).
import { GraphQLScalarType, Kind, type FieldNode, type SelectionSetNode, type ValueNode } from 'graphql/index.js';
import { gqlClassOf } from '../common/resource-class.util';
import { ScanDiffCountsDto } from '../scans/scan-diff.dto';


/** Largest `first` / `last` of a GraphQL connection (GitHub: 1..100). */
export const MAX_GRAPHQL_PAGE = 100;

/**
 * Whether a connection's selection asks for its nodes (`nodes`, `edges`, or a fragment that may): `totalCount` /
 * `pageInfo` alone return no node.
 */
export function selectsNodes(node: { readonly selectionSet?: SelectionSetNode } | undefined): boolean {
  if (!node) return true;
  const sels = node.selectionSet?.selections ?? [];
  return sels.some((s) => s.kind !== Kind.FIELD || !['totalCount', 'pageInfo', '__typename'].includes(s.name.value));
}

/**
 * Cost of a connection field: one request, plus `first` (or `last`) times the cost of each node, and every returned
 * node costs at least 1, so
 * `ecsInstances(first: 100) { nodes { instanceId } }` costs 101. A connection asked only for `totalCount` /
 * `pageInfo` returns no node and costs 1. Missing or out-of-range sizes count as the maximum (the field is refused at
 * execution anyway).
 */
export function connectionComplexity(o: ComplexityEstimatorArgs & { node?: FieldNode }): number {
  const n = (o.args.first ?? o.args.last) as number | undefined;
  const size = typeof n === 'number' && n >= 1 && n <= MAX_GRAPHQL_PAGE ? n : MAX_GRAPHQL_PAGE;
  return 1 + size * (selectsNodes(o.node) ? Math.max(1, o.childComplexity) : o.childComplexity);
}

function parseLiteralJson(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, parseLiteralJson(f.value)]));
    case Kind.LIST:
      return ast.values.map(parseLiteralJson);
    default:
      return null;
  }
}

/** Arbitrary JSON (forecast results and what-if scenarios, whose contract is libs/forecast README's JSON). */
export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Arbitrary JSON value (forecast results and what-if scenarios: libs/forecast README contract)',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast) => parseLiteralJson(ast),
});

/** Relay paging arguments: exactly one of `first` / `last` (1..100); `after` / `before` are opaque cursors. */
@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, { nullable: true, description: 'Page forward: the first n items (1..100) after `after`' })
  first?: number;
  @Field(() => String, { nullable: true, description: 'Cursor of an edge: items after it' })
  after?: string;
  @Field(() => Int, { nullable: true, description: 'Page backward: the last n items (1..100) before `before`' })
  last?: number;
  @Field(() => String, { nullable: true, description: 'Cursor of an edge: items before it' })
  before?: string;
}

/** Paging arguments of a root listing of one scan: `scanId` (default: the latest succeeded scan). */
@ArgsType()
export class ScanConnectionArgs extends ConnectionArgs {
  @Field(() => ID, { nullable: true })
  scanId?: string;
}

/** A fleet-graph listing's arguments: the scan, and the account and region filters. */
@ArgsType()
export class FleetConnectionArgs extends ScanConnectionArgs {
  @Field({ nullable: true })
  accountId?: string;
  @Field({ nullable: true })
  regionId?: string;
}

/** A load balancer listing's arguments (CLBs, NLBs): the fleet filters and who made them. */
@ArgsType()
export class LoadBalancerConnectionArgs extends FleetConnectionArgs {
  @Field({ nullable: true, description: 'ccm | reused | console' })
  owner?: string;
}

/** The ECS instance listing's arguments: the fleet filters and the cluster whose nodes they back. */
@ArgsType()
export class EcsInstanceConnectionArgs extends FleetConnectionArgs {
  @Field({ nullable: true })
  clusterId?: string;
}

/** Relay PageInfo. */
@ObjectType()
export class PageInfo {
  @Field()
  hasNextPage!: boolean;
  @Field()
  hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true })
  startCursor!: string | null;
  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

/** The runtime shape of every connection: edges, nodes, pageInfo and an optional lazy count. */
export interface ConnectionValue<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
  /** A getter: read (and counted) only when `totalCount` is selected. */
  readonly totalCount?: Promise<number | null> | number | null;
}

/**
 * A Relay connection type for `node` named `<name>Connection` (with `<name>Edge`).
 * @returns the class to register as the field's type
 */
export function Connection<T>(node: Type<T>, name: string): Type<ConnectionValue<T>> {
  @ObjectType(`${name}Edge`)
  class EdgeType {
    @Field({ description: 'Opaque cursor of this edge (pass to `after` / `before`)' })
    cursor!: string;
    @Field(() => node)
    node!: T;
  }
  @ObjectType(`${name}Connection`)
  class ConnectionType {
    @Field(() => [EdgeType])
    edges!: EdgeType[];
    @Field(() => [node], { description: 'The nodes of `edges`, without cursors' })
    nodes!: T[];
    @Field(() => PageInfo)
    pageInfo!: PageInfo;
    @Field(() => Int, { nullable: true, description: 'Items matching, over the whole listing (null where not counted)' })
    totalCount!: number | null;
  }
  return ConnectionType as unknown as Type<ConnectionValue<T>>;
}

export enum SeverityValue {
  info = 'info',
  warning = 'warning',
  critical = 'critical',
}
registerEnumType(SeverityValue, { name: 'Severity' });

export enum FindingChangeValue {
  new = 'new',
  resolved = 'resolved',
  persisting = 'persisting',
  severityChanged = 'severityChanged',
}
registerEnumType(FindingChangeValue, { name: 'FindingChange', description: 'How a fingerprint changed between two scans' });

/** A scan as the caller sees it (summary counts over its accounts). */
@ObjectType()
export class Scan {
  @Field(() => ID)
  id!: string;
  @Field({ description: 'running | succeeded | failed' })
  status!: string;
  @Field()
  source!: string;
  @Field(() => String, { nullable: true })
  fleetName!: string | null;
  @Field({ description: 'ISO 8601' })
  startedAt!: string;
  @Field(() => String, { nullable: true })
  finishedAt!: string | null;
  @Field(() => String, { nullable: true })
  error!: string | null;
  @Field(() => JSONScalar, { nullable: true, description: 'Counts per severity and check (the REST summary), over your accounts' })
  summary!: unknown;
}

/** The key of a resource: its kind and id, in an account and a region (ResourceRef's and a quota series' resource). */
@ObjectType({ isAbstract: true })
export abstract class ResourceKeyType {
  @Field()
  kind!: string;
  @Field()
  id!: string;
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
}

/** Where a finding or quota sample is. */
@ObjectType()
export class ResourceRefType extends ResourceKeyType {
  @Field(() => String, { nullable: true })
  clusterId!: string | null;
  @Field(() => String, { nullable: true, description: "The cluster's name (cluster.json `name`); null without a cluster or when not stored" })
  clusterName!: string | null;
  @Field(() => String, { nullable: true, description: "The team owning the cluster (team tag or the audit settings' owners); null without a cluster or an owner" })
  team!: string | null;
  @Field(() => String, { nullable: true })
  namespace!: string | null;
  @Field(() => String, { nullable: true })
  name!: string | null;
}

/**
 * What identifies a finding across scans and what-ifs: its fingerprint, its check and its resource (the base of
 * FindingRef, DiffItem and a what-if's SeverityChange).
 */
@ObjectType({ isAbstract: true })
export abstract class FindingKeyType {
  @Field()
  fingerprint!: string;
  @Field()
  checkId!: string;
  @Field(() => ResourceRefType)
  resource!: ResourceRefType;
}

/** What identifies and describes a finding (a what-if step's appeared / resolved findings; the base of Finding). */
@ObjectType({ description: 'A finding that a what-if step made appear or resolved' })
export class FindingRef extends FindingKeyType {
  @Field(() => SeverityValue)
  severity!: SeverityValue;
  @Field()
  message!: string;
}

/** A finding (REST FindingDto without `figures`), with the waiver state applied at read time. */
@ObjectType()
export class Finding extends FindingRef {
  @Field()
  remediation!: string;
  @Field()
  source!: string;
  @Field(() => Float, { nullable: true })
  used!: number | null;
  @Field(() => Float, { nullable: true })
  limit!: number | null;
  @Field(() => Float, { nullable: true })
  ratio!: number | null;
  @Field()
  firstSeenAt!: string;
  @Field()
  lastSeenAt!: string;
  @Field({ description: 'open | waived | waiver-expired' })
  status!: string;
  @Field(() => String, { nullable: true, description: 'The waiver applied, if any' })
  waiverId!: string | null;
}

/** A quota and the resource it is measured on (the base of a quota sample, a what-if's quota change, a breach). */
@ObjectType({ description: 'A quota and the resource it is measured on' })
export class QuotaRef {
  @Field()
  checkId!: string;
  @Field(() => ResourceRefType)
  resource!: ResourceRefType;
}

/** A quota usage sample (used / limit / ratio of one check on one resource). */
@ObjectType()
export class Quota extends QuotaRef {
  @Field(() => Float, { description: 'Count' })
  used!: number;
  @Field(() => Float, { description: 'Count' })
  limit!: number;
  @Field(() => Float, { description: 'used / limit' })
  ratio!: number;
}

@ObjectType()
export class Account {
  @Field(() => ID)
  accountId!: string;
  @Field()
  accountName!: string;
  @Field(() => Int)
  regionCount!: number;
  scanId!: string;
}

// The fleet-graph node types follow from their declarations (libs/domain fleet-graph.resources.ts): each is a class
// for the schema and a type for TypeScript (the domain row plus `scanId`, the scan its nested fields read).

/** One region of one account. */
export const Region = gqlClassOf(GRAPH_REGION) as Type<Region>;
export type Region = GraphRegion & { scanId: string };
/** An ACK cluster. */
export const Cluster = gqlClassOf(GRAPH_CLUSTER) as Type<Cluster>;
export type Cluster = GraphCluster & { scanId: string };
/** A port of a Service. */
export const ServicePort = gqlClassOf(GRAPH_SERVICE_PORT) as Type<ServicePort>;
export type ServicePort = GraphServicePort;
/** A Kubernetes Service of type LoadBalancer. */
export const Service = gqlClassOf(GRAPH_SERVICE) as Type<Service>;
export type Service = GraphService & { scanId: string };
/** A CLB listener. */
export const Listener = gqlClassOf(GRAPH_LISTENER) as Type<Listener>;
export type Listener = GraphListener;
/** A CLB instance (`clusterIds` is read through the `clusters` connection, narrowed to the caller's scope). */
export const LoadBalancer = gqlClassOf(GRAPH_LOAD_BALANCER) as Type<LoadBalancer>;
export type LoadBalancer = GraphLoadBalancer & { scanId: string };
/** A backend server entry; `position` is its index in the group (its cursor key). */
export const Backend = gqlClassOf(GRAPH_BACKEND) as Type<Backend>;
export type Backend = GraphBackend & { position: number; scanId: string };
/** A CLB server group with `backendCount`; its backends are the `backends` connection. */
export const ServerGroup = gqlClassOf(GRAPH_SERVER_GROUP, { backendCount: { type: () => Int } }) as Type<ServerGroup>;
export type ServerGroup = Omit<GraphServerGroup, 'accountId' | 'regionId' | 'backends'> & { backendCount: number; backends: Backend[]; scanId: string };
/** An NLB listener. */
export const NlbListener = gqlClassOf(GRAPH_NLB_LISTENER) as Type<NlbListener>;
export type NlbListener = GraphNlbListener;
/** A server of an NLB server group. */
export const NlbServer = gqlClassOf(GRAPH_NLB_SERVER) as Type<NlbServer>;
export type NlbServer = GraphNlbServer;
/** An NLB server group with its servers (a plain list). */
export const NlbServerGroup = gqlClassOf(GRAPH_NLB_SERVER_GROUP) as Type<NlbServerGroup>;
export type NlbServerGroup = GraphNlbServerGroup;
/**
 * An NLB instance with its listeners and server groups (with their servers) as plain lists (bounded: at most 400
 * server entries per NLB); the Services using it, their clusters and its quotas are connections.
 */
export const Nlb = gqlClassOf(GRAPH_NLB) as Type<Nlb>;
export type Nlb = GraphNlb & { scanId: string };
/** An ECS instance (its CLBs are the `loadBalancers` connection). */
export const EcsInstance = gqlClassOf(GRAPH_ECS_INSTANCE) as Type<EcsInstance>;
export type EcsInstance = GraphEcsInstance & { scanId: string };

@ObjectType()
export class DiffItem extends FindingKeyType {
  @Field(() => FindingChangeValue)
  change!: FindingChangeValue;
  @Field(() => SeverityValue, { nullable: true })
  severity!: SeverityValue | null;
  @Field(() => SeverityValue, { nullable: true })
  previousSeverity!: SeverityValue | null;
  @Field()
  message!: string;
}

@ObjectType({ description: 'Findings of `scanId` against the baseline `againstScanId`, by fingerprint' })
export class ScanDiff {
  @Field(() => ID)
  scanId!: string;
  @Field(() => ID)
  againstScanId!: string;
  @Field(() => ScanDiffCountsDto, { description: 'Over your accounts and the filters' })
  counts!: ScanDiffCountsDto;
}

@ObjectType()
export class StartScanPayload {
  @Field(() => ID)
  scanId!: string;
}

export const ScanConnection = Connection(Scan, 'Scan');
export const FindingConnection = Connection(Finding, 'Finding');
export const QuotaConnection = Connection(Quota, 'Quota');
export const AccountConnection = Connection(Account, 'Account');
export const RegionConnection = Connection(Region, 'Region');
export const ClusterConnection = Connection(Cluster, 'Cluster');
export const ServiceConnection = Connection(Service, 'Service');
export const LoadBalancerConnection = Connection(LoadBalancer, 'LoadBalancer');
export const NlbConnection = Connection(Nlb, 'Nlb');
export const ServerGroupConnection = Connection(ServerGroup, 'ServerGroup');
export const BackendConnection = Connection(Backend, 'Backend');
export const EcsInstanceConnection = Connection(EcsInstance, 'EcsInstance');
export const DiffItemConnection = Connection(DiffItem, 'DiffItem');
