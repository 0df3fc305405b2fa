/**
 * GraphQL object types (NestJS code-first, docs.nestjs.com/graphql/resolvers): the scans, findings and the stored
 * fleet graph of a scan (libs/store FleetGraphRepository). Every list of nodes is a Relay connection
 * (relay.dev/graphql/connections.htm) with `edges { cursor node }`, `nodes`, `pageInfo` and, where cheap, a
 * lazily counted `totalCount`, as GitHub's GraphQL API does (docs.github.com/graphql/guides/using-pagination-in-the-graphql-api).
 * Embedded value lists (ports, listeners, IPs) are plain lists: they are part of their node, bounded, and not paged.
 *
 * Cost: a connection field costs `1 + n x (cost of one node's selection)` (n = `first` or `last`), every other field 0,
 * the way GitHub counts requests; see graphql-cost.plugin.ts.
 */
import { ArgsType, Field, Float, ID, Int, ObjectType, registerEnumType, type ComplexityEstimatorArgs } from '@nestjs/graphql';
import type { Type } from '@nestjs/common';
// 'graphql/index.js', not 'graphql': the same (CommonJS) module instance Nest and Apollo load, also under Vitest, whose
// resolver would otherwise pick graphql's ESM build for our files (two instances break instanceof checks).
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql/index.js';


/** Largest `first` / `last` of a GraphQL connection (GitHub: 1..100). */
export const MAX_GRAPHQL_PAGE = 100;

/**
 * Cost of a connection field: one request, plus `first` (or `last`) times the cost of each node's selection.
 * Missing or out-of-range sizes count as the maximum (the field is refused at execution anyway).
 */
export function connectionComplexity(o: ComplexityEstimatorArgs): number {
  const n = (o.args.first ?? o.args.last) as number | undefined;
  const size = typeof n === 'number' && n >= 1 && n <= MAX_GRAPHQL_PAGE ? n : MAX_GRAPHQL_PAGE;
  return 1 + size * o.childComplexity;
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

/** Where a finding or quota sample is. */
@ObjectType()
export class ResourceRefType {
  @Field()
  kind!: string;
  @Field()
  id!: string;
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field(() => String, { nullable: true })
  clusterId!: string | null;
  @Field(() => String, { nullable: true })
  namespace!: string | null;
  @Field(() => String, { nullable: true })
  name!: string | null;
}

/** What identifies and describes a finding (a what-if step's appeared / resolved findings; the base of Finding). */
@ObjectType({ description: 'A finding that a what-if step made appear or resolved' })
export class FindingRef {
  @Field()
  fingerprint!: string;
  @Field()
  checkId!: string;
  @Field(() => SeverityValue)
  severity!: SeverityValue;
  @Field(() => ResourceRefType)
  resource!: ResourceRefType;
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

/** A quota usage sample (used / limit / ratio of one check on one resource). */
@ObjectType()
export class Quota {
  @Field()
  checkId!: string;
  @Field(() => ResourceRefType)
  resource!: ResourceRefType;
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

@ObjectType()
export class Region {
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field()
  accountName!: string;
  @Field(() => Int)
  clusterCount!: number;
  @Field(() => Int, { nullable: true, description: 'Null when the region’s CLBs were not read' })
  loadBalancerCount!: number | null;
  @Field(() => Int, { nullable: true })
  ecsInstanceCount!: number | null;
  scanId!: string;
}

@ObjectType()
export class Cluster {
  @Field(() => ID)
  clusterId!: string;
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field()
  name!: string;
  @Field()
  clusterType!: string;
  @Field(() => String, { nullable: true })
  clusterSpec!: string | null;
  @Field(() => String, { nullable: true })
  state!: string | null;
  @Field(() => String, { nullable: true })
  currentVersion!: string | null;
  @Field(() => String, { nullable: true })
  ccmVersion!: string | null;
  @Field()
  networkPlugin!: string;
  @Field(() => String, { nullable: true })
  vpcId!: string | null;
  @Field(() => String, { nullable: true })
  apiServerLoadBalancerId!: string | null;
  @Field(() => Int, { nullable: true, description: 'Null when the cluster’s Kubernetes objects were not read' })
  nodeCount!: number | null;
  @Field(() => Int, { nullable: true, description: 'Services of type LoadBalancer' })
  serviceCount!: number | null;
  scanId!: string;
}

@ObjectType()
export class ServicePort {
  @Field(() => String, { nullable: true })
  name!: string | null;
  @Field()
  protocol!: string;
  @Field(() => Int)
  port!: number;
  @Field(() => Int, { nullable: true })
  nodePort!: number | null;
  @Field(() => String, { nullable: true })
  targetPort!: string | null;
}

@ObjectType({ description: 'A Kubernetes Service of type LoadBalancer' })
export class Service {
  @Field()
  clusterId!: string;
  @Field()
  namespace!: string;
  @Field()
  name!: string;
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field()
  uid!: string;
  @Field(() => String, { nullable: true })
  loadBalancerClass!: string | null;
  @Field(() => String, { nullable: true, description: 'Backend mode CCM applies: cluster | local | eni (null: not a CLB Service)' })
  mode!: string | null;
  @Field(() => String, { nullable: true })
  externalTrafficPolicy!: string | null;
  @Field(() => [ServicePort])
  ports!: ServicePort[];
  @Field(() => [String])
  ingress!: string[];
  @Field(() => String, { nullable: true })
  loadBalancerId!: string | null;
  @Field(() => String, { nullable: true, description: 'How the CLB was found: annotation | label | tag' })
  loadBalancerMatch!: string | null;
  scanId!: string;
}

@ObjectType()
export class Listener {
  @Field(() => Int)
  port!: number;
  @Field()
  protocol!: string;
  @Field(() => String, { nullable: true })
  vServerGroupId!: string | null;
  @Field(() => Int, { nullable: true })
  forwardPort!: number | null;
  @Field(() => String, { nullable: true })
  description!: string | null;
}

@ObjectType({ description: 'A CLB instance' })
export class LoadBalancer {
  @Field(() => ID)
  loadBalancerId!: string;
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field()
  name!: string;
  @Field()
  addressType!: string;
  @Field(() => String, { nullable: true })
  address!: string | null;
  @Field(() => String, { nullable: true })
  vpcId!: string | null;
  @Field(() => String, { nullable: true })
  spec!: string | null;
  @Field(() => String, { nullable: true })
  status!: string | null;
  @Field(() => String, { nullable: true })
  createTime!: string | null;
  @Field({ description: 'ccm | reused | console' })
  owner!: string;
  @Field(() => String, { nullable: true })
  apiServerClusterId!: string | null;
  @Field(() => [Listener])
  listeners!: Listener[];
  @Field(() => Int)
  listenerCount!: number;
  @Field(() => Int)
  vServerGroupCount!: number;
  @Field(() => Int, { description: 'Backend server entries over every server group' })
  backendEntries!: number;
  @Field(() => Int)
  distinctBackends!: number;
  @Field(() => Int)
  serviceCount!: number;
  clusterIds!: string[];
  scanId!: string;
}

@ObjectType({ description: 'A CLB server group: the default one (isDefault, id "") or a vServer group' })
export class ServerGroup {
  @Field()
  loadBalancerId!: string;
  @Field()
  vServerGroupId!: string;
  @Field()
  isDefault!: boolean;
  @Field()
  name!: string;
  @Field(() => Int)
  backendCount!: number;
  backends!: Backend[];
  scanId!: string;
}

@ObjectType()
export class Backend {
  @Field()
  serverId!: string;
  @Field(() => String, { nullable: true })
  serverIp!: string | null;
  @Field(() => Int, { nullable: true })
  port!: number | null;
  @Field(() => Int)
  weight!: number;
  @Field({ description: 'ecs | eni | eci' })
  type!: string;
  position!: number;
  scanId!: string;
}

@ObjectType()
export class EcsInstance {
  @Field(() => ID)
  instanceId!: string;
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field(() => String, { nullable: true })
  name!: string | null;
  @Field(() => String, { nullable: true })
  zoneId!: string | null;
  @Field(() => String, { nullable: true })
  status!: string | null;
  @Field(() => String, { nullable: true })
  instanceType!: string | null;
  @Field(() => String, { nullable: true })
  vpcId!: string | null;
  @Field(() => [String])
  privateIps!: string[];
  @Field(() => String, { nullable: true })
  clusterId!: string | null;
  @Field(() => String, { nullable: true })
  nodeName!: string | null;
  @Field(() => Int)
  serverGroupCount!: number;
  loadBalancerIds!: string[];
  scanId!: string;
}

@ObjectType()
export class DiffCounts {
  @Field(() => Int)
  new!: number;
  @Field(() => Int)
  resolved!: number;
  @Field(() => Int)
  persisting!: number;
  @Field(() => Int)
  severityChanged!: number;
}

@ObjectType()
export class DiffItem {
  @Field()
  fingerprint!: string;
  @Field(() => FindingChangeValue)
  change!: FindingChangeValue;
  @Field()
  checkId!: string;
  @Field(() => SeverityValue, { nullable: true })
  severity!: SeverityValue | null;
  @Field(() => SeverityValue, { nullable: true })
  previousSeverity!: SeverityValue | null;
  @Field(() => ResourceRefType)
  resource!: ResourceRefType;
  @Field()
  message!: string;
}

@ObjectType({ description: 'Findings of `scanId` against the baseline `againstScanId`, by fingerprint' })
export class ScanDiff {
  @Field(() => ID)
  scanId!: string;
  @Field(() => ID)
  againstScanId!: string;
  @Field(() => DiffCounts, { description: 'Over your accounts and the filters' })
  counts!: DiffCounts;
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
export const ServerGroupConnection = Connection(ServerGroup, 'ServerGroup');
export const BackendConnection = Connection(Backend, 'Backend');
export const EcsInstanceConnection = Connection(EcsInstance, 'EcsInstance');
export const DiffItemConnection = Connection(DiffItem, 'DiffItem');
