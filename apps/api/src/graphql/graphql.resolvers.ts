/**
 * GraphQL resolvers (code-first): the same use cases and the same policy layer as REST. Every read passes the
 * request's principal (account scope) to the store, which filters in SQL; nested fields go through the
 * request's DataLoaders (graphql.loaders.ts). Mutations check the role like `@RequireRole` does for REST.
 */
import { Args, Context, ID, Float, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Inject } from '@nestjs/common';
import { GraphQLError } from 'graphql/index.js';
import type { GraphCluster, GraphEcsInstance, GraphLoadBalancer, GraphNlb, GraphRegion, GraphServerGroup, GraphService } from '@app/domain';
import { encodeCursor, decodeCursor, roleAllows, type GraphPage, type GraphPageArgs, type Role } from '@app/store';
import { TokenAuthenticator } from '../auth/token-authenticator';
import type { Listing } from '../common/listing.util';
import { toResourceDto } from '../findings/finding.mapper';
import { FindingsService } from '../findings/findings.service';
import { withScan } from '../fleet/fleet.mapper';
import { FleetService } from '../fleet/fleet.service';
import { toQuotaNode } from '../quotas/quota.mapper';
import { QuotasService } from '../quotas/quotas.service';
import { ScanSelectionService } from '../scans/scan-selection.service';
import { ScansService } from '../scans/scans.service';
import { withArgumentPaths, type GqlContext } from './graphql.options';
import {
  Account,
  AccountConnection,
  Backend,
  BackendConnection,
  Cluster,
  ClusterConnection,
  connectionComplexity,
  ConnectionArgs,
  type ConnectionValue,
  DiffItemConnection,
  EcsInstance,
  EcsInstanceConnection,
  EcsInstanceConnectionArgs,
  FleetConnectionArgs,
  FindingChangeValue,
  FindingConnection,
  LoadBalancer,
  LoadBalancerConnection,
  LoadBalancerConnectionArgs,
  MAX_GRAPHQL_PAGE,
  Nlb,
  NlbConnection,
  Quota,
  QuotaConnection,
  Region,
  RegionConnection,
  Scan,
  ScanConnection,
  ScanConnectionArgs,
  ScanDiff,
  ServerGroup,
  ServerGroupConnection,
  Service,
  ServiceConnection,
  SeverityValue,
  StartScanPayload,
} from './graphql.types';

/** Options of every connection field: its cost estimate (graphql-cost.plugin.ts) and non-null. */
export const CONNECTION = { complexity: connectionComplexity, nullable: false } as const;

/**
 * Check Relay paging arguments: exactly one of `first` / `last`, 1..100 (GitHub's rule).
 * @throws GraphQLError BAD_USER_INPUT naming the argument
 */
export function pageArgs(args: ConnectionArgs): GraphPageArgs {
  const { first, last } = args;
  if ((first === undefined || first === null) === (last === undefined || last === null)) {
    throw new GraphQLError('You must provide exactly one of `first` or `last` (1..100) to page this connection', { extensions: { code: 'BAD_USER_INPUT' } });
  }
  for (const [name, v] of [['first', first], ['last', last]] as const) {
    if (v !== undefined && v !== null && (v < 1 || v > MAX_GRAPHQL_PAGE)) {
      throw new GraphQLError(`\`${name}\` must be from 1 to ${MAX_GRAPHQL_PAGE}, got ${v}`, { extensions: { code: 'BAD_USER_INPUT' } });
    }
  }
  return {
    ...(first !== undefined && first !== null ? { first } : {}),
    ...(last !== undefined && last !== null ? { last } : {}),
    ...(args.after ? { after: args.after } : {}),
    ...(args.before ? { before: args.before } : {}),
  };
}

/** A store page as a connection value, mapping each node. */
export function connection<T, U>(page: GraphPage<T>, map: (t: T) => U, totalCount?: () => Promise<number | null> | number | null): ConnectionValue<U> {
  const edges = page.edges.map((e) => ({ cursor: e.cursor, node: map(e.node) }));
  return withLazyCount(
    {
      edges,
      nodes: edges.map((e) => e.node),
      pageInfo: {
        hasNextPage: page.hasNextPage,
        hasPreviousPage: page.hasPreviousPage,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges[edges.length - 1]?.cursor ?? null,
      },
    },
    totalCount,
  );
}

/** Attach `totalCount` as a getter: the count runs only when a query selects it. */
function withLazyCount<T>(value: Omit<ConnectionValue<T>, 'totalCount'>, count?: () => Promise<number | null> | number | null): ConnectionValue<T> {
  Object.defineProperty(value, 'totalCount', { get: () => (count ? count() : null), enumerable: false });
  return value as ConnectionValue<T>;
}

/**
 * Page an in-memory list already in key order (a node's bounded children: a CLB's server groups, a group's
 * backends, an ECS instance's CLBs) with the same cursor rules as the store: keyset on `keyOf`.
 */
export function sliceConnection<T>(items: readonly T[], keyOf: (t: T) => string | number, args: GraphPageArgs): GraphPage<T> {
  const key = (c: string) => decodeCursor(c, 1)[0]!;
  let from = 0;
  let to = items.length;
  if (args.after !== undefined) {
    const k = key(args.after);
    from = items.findIndex((t) => keyOf(t) > k);
    if (from < 0) from = items.length;
  }
  if (args.before !== undefined) {
    const k = key(args.before);
    const i = items.findIndex((t) => keyOf(t) >= k);
    to = i < 0 ? items.length : i;
  }
  return windowPage(items, from, to, keyOf, args);
}

/** Items[from, to) cut to `first` / `last`, with cursors encoding `keyOf` of each node. */
function windowPage<T>(items: readonly T[], from: number, to: number, keyOf: (t: T) => string | number, args: GraphPageArgs): GraphPage<T> {
  const window = items.slice(from, Math.max(from, to));
  const n = args.first ?? args.last ?? window.length;
  const kept = args.first !== undefined ? window.slice(0, n) : window.slice(Math.max(0, window.length - n));
  const edges = kept.map((node) => ({ cursor: encodeCursor([keyOf(node)]), node }));
  return args.first !== undefined
    ? { edges, hasNextPage: window.length > n, hasPreviousPage: args.after !== undefined }
    : { edges, hasPreviousPage: window.length > n, hasNextPage: args.before !== undefined };
}

/**
 * Page an in-memory list kept in an order that is not its key order (forecasts soonest first, tokens newest
 * first, a what-if step's changes): a cursor names an item by its unique key, and the page starts after (ends
 * before) that item's current position. Items inserted elsewhere never shift a page; an item gone from the list
 * makes its cursor invalid.
 * @throws GraphQLError BAD_USER_INPUT when a cursor names an item no longer in the list
 */
export function pageByKey<T>(items: readonly T[], keyOf: (t: T) => string, args: GraphPageArgs): GraphPage<T> {
  const at = (cursor: string, which: string): number => {
    const key = decodeCursor(cursor, 1)[0];
    const i = items.findIndex((t) => keyOf(t) === key);
    if (i < 0) throw new GraphQLError(`The \`${which}\` cursor names an item no longer in this listing: page again from the start`, { extensions: { code: 'BAD_USER_INPUT' } });
    return i;
  };
  const from = args.after !== undefined ? at(args.after, 'after') + 1 : 0;
  const to = args.before !== undefined ? at(args.before, 'before') : items.length;
  return windowPage(items, from, to, keyOf, args);
}

/**
 * Refuse a principal below `required` (same rule and audit row as REST's RequireRole).
 * @throws GraphQLError FORBIDDEN
 */
export async function requireRole(ctx: GqlContext, auth: TokenAuthenticator, required: Role, what: string): Promise<void> {
  if (roleAllows(ctx.principal.role, required)) return;
  await auth.forbidden(ctx.principal, ctx.clientAddress, `graphql.${what}`);
  throw new GraphQLError(`This operation needs the ${required} role; the token has ${ctx.principal.role}`, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
}

/** A domain ResourceRef as the GraphQL ResourceRef (absent optional fields as null): the REST mapper. */
export const resourceRef = toResourceDto;

/** Filter arguments as the store takes them: GraphQL's absent, null and empty arguments all mean "not filtered". */
function present<T extends Record<string, string | number | null | undefined>>(args: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== null && v !== '')) as { [K in keyof T]?: Exclude<T[K], null> };
}

/** A listing of a scan as a connection (`none` when no scan succeeded yet), each node mapped by `map(scanId)`. */
async function listingConnection<T, U>(scanId: string | null, listing: (scanId: string) => Listing<T>, map: (scanId: string) => (t: T) => U): Promise<ConnectionValue<U>> {
  if (!scanId) return none();
  const l = listing(scanId);
  return connection(await l.page, map(scanId), l.count);
}

/** A node the request's loader found in scan `scanId` (null: not in that scan), carrying the scan. */
async function inScan<T>(scanId: string, node: Promise<T | null>): Promise<(T & { scanId: string }) | null> {
  const n = await node;
  return n ? { ...n, scanId } : null;
}

/**
 * The clusters among a load balancer's `clusterIds` that the token sees (FleetService scope narrowing over the
 * request's loader: one batch), paged, counted over those.
 */
async function visibleClusterConnection(fleet: FleetService, scanId: string, clusterIds: readonly string[], args: ConnectionArgs, ctx: GqlContext): Promise<ConnectionValue<Cluster>> {
  const a = pageArgs(args);
  const visible = await fleet.visibleClusters(scanId, clusterIds, ctx.principal, (ids) => Promise.all(ids.map((id) => ctx.loaders.cluster(scanId, id))));
  return connection(sliceConnection(visible, (c) => c.clusterId, a), withScan<GraphCluster>(scanId), () => visible.length);
}

/** The quota usage samples measured on one resource (a CLB, an NLB) of a scan, by check id. */
async function resourceQuotaConnection(scanId: string, kind: 'LoadBalancer' | 'NetworkLoadBalancer', id: string, args: ConnectionArgs, ctx: GqlContext): Promise<ConnectionValue<Quota>> {
  const samples = await ctx.loaders.quotasOf(scanId, kind, id);
  return connection(sliceConnection(samples, (q) => q.checkId, pageArgs(args)), toQuotaNode, () => samples.length);
}

/** An empty connection (no scan succeeded yet). */
function none<T>(): ConnectionValue<T> {
  return connection<T, T>({ edges: [], hasNextPage: false, hasPreviousPage: false }, (t) => t, () => 0);
}

/** Top-level queries and the mutations: each reads through the service REST uses. */
@Resolver()
export class RootResolver {
  constructor(
    private readonly scans: ScansService,
    private readonly scanSelection: ScanSelectionService,
    private readonly findingReads: FindingsService,
    private readonly fleet: FleetService,
    private readonly quotaReads: QuotasService,
    @Inject(TokenAuthenticator) private readonly auth: TokenAuthenticator,
  ) {}

  /**
   * A listing of the scan `args.scanId` names (default: the latest succeeded) as a connection (empty when no scan
   * succeeded yet); the paging arguments are checked first.
   * @throws GraphQLError BAD_USER_INPUT for paging arguments out of range
   */
  private async scanListing<T, U>(args: ScanConnectionArgs, ctx: GqlContext, listing: (scanId: string, page: GraphPageArgs) => Listing<T>, map: (scanId: string) => (t: T) => U): Promise<ConnectionValue<U>> {
    const a = pageArgs(args);
    return listingConnection(await this.scanSelection.scanOf(args.scanId, false, ctx.loaders), (id) => listing(id, a), map);
  }

  /** Graph rows of a scan (see `scanListing`) as nodes carrying that scan. */
  private graphListing<T>(args: ScanConnectionArgs, ctx: GqlContext, listing: (scanId: string, page: GraphPageArgs) => Listing<T>): Promise<ConnectionValue<T & { scanId: string }>> {
    return this.scanListing(args, ctx, listing, (id) => withScan<T>(id));
  }

  /** One node of the scan `scanId` names (default: the latest succeeded), read by `load`, or null. */
  private async graphObject<T>(scanId: string | undefined, ctx: GqlContext, load: (scanId: string) => Promise<T | null>): Promise<(T & { scanId: string }) | null> {
    const id = await this.scanSelection.scanOf(scanId, false, ctx.loaders);
    return id ? inScan(id, load(id)) : null;
  }

  @Query(() => ScanConnection, { name: 'scans', description: 'Scans, newest first (summaries over your accounts)', ...CONNECTION })
  async scansPage(@Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Scan>> {
    const { page, count } = await this.scans.page(pageArgs(args), ctx.principal);
    return connection(page, (s) => s, count);
  }

  @Query(() => Scan, { nullable: true, description: 'One scan as you see it, or null' })
  scan(@Args('id', { type: () => ID }) id: string, @Context() ctx: GqlContext): Promise<Scan | null> {
    return this.scans.one(id, ctx.principal);
  }

  @Query(() => FindingConnection, { description: 'Findings of a scan (default: the latest succeeded), filters as REST /v1/findings, most severe first', ...CONNECTION })
  async findings(
    @Args() args: ConnectionArgs,
    @Context() ctx: GqlContext,
    @Args('scanId', { type: () => ID, nullable: true }) scanId?: string,
    @Args('checkId', { nullable: true }) checkId?: string,
    @Args('severity', { type: () => SeverityValue, nullable: true }) severity?: SeverityValue,
    @Args('accountId', { nullable: true }) accountId?: string,
    @Args('clusterId', { nullable: true }) clusterId?: string,
    @Args('team', { nullable: true, description: "Only findings of this team's clusters (owners)" }) team?: string,
  ): Promise<ConnectionValue<unknown>> {
    const { page, count } = await this.findingReads.page(present({ scanId, checkId, severity, accountId, clusterId, team }), pageArgs(args), ctx.principal);
    return connection(page, (f) => f, count);
  }

  @Query(() => AccountConnection, { description: 'Accounts of a scan’s fleet graph (default: the latest succeeded scan), by id', ...CONNECTION })
  accounts(@Args() args: ScanConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Account>> {
    return this.graphListing(args, ctx, (id, a) => this.fleet.accounts(id, ctx.principal, a));
  }

  @Query(() => ClusterConnection, { description: 'Clusters of a scan (default: the latest succeeded), by id', ...CONNECTION })
  clusters(@Args() args: FleetConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Cluster>> {
    const { accountId, regionId } = args;
    return this.graphListing(args, ctx, (id, a) => this.fleet.clusters(id, ctx.principal, a, present({ accountId, regionId })));
  }

  @Query(() => LoadBalancerConnection, { description: 'CLB instances of a scan (default: the latest succeeded), by id', ...CONNECTION })
  loadBalancers(@Args() args: LoadBalancerConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<LoadBalancer>> {
    const { accountId, regionId, owner } = args;
    return this.graphListing(args, ctx, (id, a) => this.fleet.loadBalancers(id, ctx.principal, a, present({ accountId, regionId, owner })));
  }

  @Query(() => LoadBalancer, { nullable: true, description: 'One CLB of a scan (default: the latest succeeded), or null' })
  loadBalancer(@Args('id', { type: () => ID }) lbId: string, @Context() ctx: GqlContext, @Args('scanId', { type: () => ID, nullable: true }) scanId?: string): Promise<LoadBalancer | null> {
    return this.graphObject(scanId, ctx, (id) => ctx.loaders.loadBalancer(id, lbId));
  }

  @Query(() => NlbConnection, { description: 'NLB instances of a scan (default: the latest succeeded), by id', ...CONNECTION })
  nlbs(@Args() args: LoadBalancerConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Nlb>> {
    const { accountId, regionId, owner } = args;
    return this.graphListing(args, ctx, (id, a) => this.fleet.nlbs(id, ctx.principal, a, present({ accountId, regionId, owner })));
  }

  @Query(() => Nlb, { nullable: true, description: 'One NLB of a scan (default: the latest succeeded), or null' })
  nlb(@Args('id', { type: () => ID }) nlbId: string, @Context() ctx: GqlContext, @Args('scanId', { type: () => ID, nullable: true }) scanId?: string): Promise<Nlb | null> {
    return this.graphObject(scanId, ctx, (id) => ctx.loaders.nlb(id, nlbId));
  }

  @Query(() => EcsInstanceConnection, { description: 'ECS instances of a scan (default: the latest succeeded), by id', ...CONNECTION })
  ecsInstances(@Args() args: EcsInstanceConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<EcsInstance>> {
    const { accountId, regionId, clusterId } = args;
    return this.graphListing(args, ctx, (id, a) => this.fleet.ecsInstances(id, ctx.principal, a, present({ accountId, regionId, clusterId })));
  }

  @Query(() => QuotaConnection, { description: 'Quota usage (used / limit / ratio) of a scan (default: the latest succeeded), by check and resource', ...CONNECTION })
  quotas(
    @Args() args: ScanConnectionArgs,
    @Context() ctx: GqlContext,
    @Args('checkId', { nullable: true }) checkId?: string,
    @Args('accountId', { nullable: true }) accountId?: string,
    @Args('regionId', { nullable: true }) regionId?: string,
    @Args('resourceKind', { nullable: true }) resourceKind?: string,
    @Args('minRatio', { type: () => Float, nullable: true, description: 'Only samples at or above this ratio (0..1)' }) minRatio?: number,
  ): Promise<ConnectionValue<Quota>> {
    const filter = present({ checkId, accountId, regionId, resourceKind, minRatio });
    return this.scanListing(args, ctx, (id, a) => this.quotaReads.quotas(id, ctx.principal, a, filter), () => toQuotaNode);
  }

  @Query(() => ScanDiff, {
    description:
      'Findings of `scanId` against the baseline `against` (default: the previous succeeded scan of the same fleet), by fingerprint (counts over your accounts). Either order: new = in scanId, not in against; resolved = in against, not in scanId (REST /v1/scans/{id}/diff). Both scans must have succeeded (else CONFLICT) and be of one fleet (else BAD_USER_INPUT naming both)',
  })
  async scanDiff(
    @Args('scanId', { type: () => ID }) scanId: string,
    @Context() ctx: GqlContext,
    @Args('against', {
      type: () => ID,
      nullable: true,
      description: 'The baseline scan; default: the previous succeeded scan of the same fleet (NOT_FOUND when there is none), as REST',
    })
    against?: string | null,
    @Args('checkId', { nullable: true }) checkId?: string,
    @Args('accountId', { nullable: true }) accountId?: string,
    @Args('clusterId', { nullable: true }) clusterId?: string,
  ): Promise<ScanDiff & { filters: Record<string, string> }> {
    const filters = present({ checkId, accountId, clusterId }) as Record<string, string>;
    // Without `against`, the baseline REST uses: the previous succeeded scan of the fleet.
    const baseline = against ?? (await this.scans.defaultBaseline(scanId));
    const first = await this.scans.diff({ scanId, againstScanId: baseline, limit: 1, ...filters }, ctx.principal);
    return { scanId, againstScanId: baseline, counts: first.counts, filters };
  }

  @Mutation(() => StartScanPayload, { description: 'Start a scan (POST /v1/scans); operator role' })
  async startScan(@Context() ctx: GqlContext, @Args('source', { nullable: true }) source?: string): Promise<StartScanPayload> {
    await requireRole(ctx, this.auth, 'operator', 'startScan');
    try {
      const { scanId } = await this.scans.launch(source ? { source } : {}, ctx.principal);
      return { scanId };
    } catch (e) {
      throw withArgumentPaths(e); // `source` is this operation's own argument, not a field of an `input`
    }
  }
}

@Resolver(() => ScanDiff)
export class ScanDiffResolver {
  constructor(private readonly scans: ScansService) {}

  @ResolveField(() => DiffItemConnection, { description: 'Items in fingerprint order (paged forward only: `first` / `after`)', ...CONNECTION })
  async items(
    @Parent() d: ScanDiff & { filters: Record<string, string> },
    @Args() args: ConnectionArgs,
    @Context() ctx: GqlContext,
    @Args('change', { type: () => FindingChangeValue, nullable: true }) change?: FindingChangeValue,
  ): Promise<ConnectionValue<unknown>> {
    const a = pageArgs(args);
    if (a.first === undefined) throw new GraphQLError('scanDiff items page forward only: use `first` (and `after`)', { extensions: { code: 'BAD_USER_INPUT' } });
    const page = await this.scans.diff({ scanId: d.scanId, againstScanId: d.againstScanId, limit: a.first, ...(a.after ? { after: a.after } : {}), ...(change ? { change } : {}), ...d.filters }, ctx.principal);
    const edges = page.items.map((i) => ({ cursor: encodeCursor([i.fingerprint]), node: i }));
    return withLazyCount(
      {
        edges,
        nodes: edges.map((e) => e.node),
        pageInfo: { hasNextPage: page.nextCursor !== null, hasPreviousPage: a.after !== undefined, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
      },
      () => (change ? page.counts[change] : Object.values(page.counts).reduce((x, y) => x + y, 0)),
    );
  }
}

@Resolver(() => Account)
export class AccountResolver {
  @ResolveField(() => RegionConnection, CONNECTION)
  async regions(@Parent() a: Account, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Region>> {
    return connection(await ctx.loaders.regionsOfAccount(a.scanId, a.accountId, pageArgs(args)), withScan<GraphRegion>(a.scanId), () => a.regionCount);
  }
}

@Resolver(() => Region)
export class RegionResolver {
  @ResolveField(() => ClusterConnection, CONNECTION)
  async clusters(@Parent() r: Region, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Cluster>> {
    return connection(await ctx.loaders.clustersOfRegion(r.scanId, r.accountId, r.regionId, pageArgs(args)), withScan<GraphCluster>(r.scanId), () => r.clusterCount);
  }
}

@Resolver(() => Cluster)
export class ClusterResolver {
  @ResolveField(() => ServiceConnection, { description: 'Its Services of type LoadBalancer, by namespace and name', ...CONNECTION })
  async services(@Parent() c: Cluster, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Service>> {
    return connection(await ctx.loaders.servicesOfCluster(c.scanId, c.clusterId, pageArgs(args)), withScan<GraphService>(c.scanId), () => c.serviceCount);
  }
}

@Resolver(() => Service)
export class ServiceResolver {
  @ResolveField(() => Cluster, { nullable: true })
  cluster(@Parent() s: Service, @Context() ctx: GqlContext): Promise<Cluster | null> {
    return inScan(s.scanId, ctx.loaders.cluster(s.scanId, s.clusterId));
  }

  @ResolveField(() => LoadBalancer, { nullable: true, description: 'The CLB it uses (null: none found in the scan)' })
  async loadBalancer(@Parent() s: Service, @Context() ctx: GqlContext): Promise<LoadBalancer | null> {
    return s.loadBalancerId ? inScan(s.scanId, ctx.loaders.loadBalancer(s.scanId, s.loadBalancerId)) : null;
  }

  @ResolveField(() => Nlb, { nullable: true, description: 'The NLB it uses (null: none found in the scan)' })
  async nlb(@Parent() s: Service, @Context() ctx: GqlContext): Promise<Nlb | null> {
    return s.nlbId ? inScan(s.scanId, ctx.loaders.nlb(s.scanId, s.nlbId)) : null;
  }
}

@Resolver(() => Nlb)
export class NlbResolver {
  constructor(private readonly fleet: FleetService) {}

  @ResolveField(() => ServiceConnection, { description: 'The Services using this NLB', ...CONNECTION })
  async services(@Parent() n: Nlb, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Service>> {
    return connection(await ctx.loaders.servicesOfNlb(n.scanId, n.nlbId, pageArgs(args)), withScan<GraphService>(n.scanId), () => n.serviceCount);
  }

  @ResolveField(() => ClusterConnection, { description: 'The clusters of those Services', ...CONNECTION })
  clusters(@Parent() n: Nlb, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Cluster>> {
    return visibleClusterConnection(this.fleet, n.scanId, n.clusterIds, args, ctx);
  }

  @ResolveField(() => QuotaConnection, { description: 'Quota usage of this NLB (listeners, server entries, ...)', ...CONNECTION })
  quotas(@Parent() n: Nlb, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Quota>> {
    return resourceQuotaConnection(n.scanId, 'NetworkLoadBalancer', n.nlbId, args, ctx);
  }
}

@Resolver(() => LoadBalancer)
export class LoadBalancerResolver {
  constructor(private readonly fleet: FleetService) {}

  @ResolveField(() => ServiceConnection, { description: 'The Services sharing this CLB', ...CONNECTION })
  async services(@Parent() l: LoadBalancer, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Service>> {
    return connection(await ctx.loaders.servicesOfLoadBalancer(l.scanId, l.loadBalancerId, pageArgs(args)), withScan<GraphService>(l.scanId), () => l.serviceCount);
  }

  @ResolveField(() => ClusterConnection, { description: 'The clusters of those Services', ...CONNECTION })
  clusters(@Parent() l: LoadBalancer, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Cluster>> {
    return visibleClusterConnection(this.fleet, l.scanId, l.clusterIds, args, ctx);
  }

  @ResolveField(() => ServerGroupConnection, { description: 'The default server group (when it has backends) and the vServer groups', ...CONNECTION })
  async vServerGroups(@Parent() l: LoadBalancer, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<ServerGroup>> {
    const groups = await ctx.loaders.serverGroupsOf(l.scanId, l.loadBalancerId);
    const page = sliceConnection(groups, (g) => g.vServerGroupId, pageArgs(args));
    return connection(page, (g: GraphServerGroup): ServerGroup => ({ ...g, backends: g.backends.map((b, position) => ({ ...b, position, scanId: l.scanId })), backendCount: g.backends.length, scanId: l.scanId }), () => groups.length);
  }

  @ResolveField(() => QuotaConnection, { description: 'Quota usage of this CLB (listeners, backends, ...)', ...CONNECTION })
  quotas(@Parent() l: LoadBalancer, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Quota>> {
    return resourceQuotaConnection(l.scanId, 'LoadBalancer', l.loadBalancerId, args, ctx);
  }
}

@Resolver(() => ServerGroup)
export class ServerGroupResolver {
  @ResolveField(() => BackendConnection, { description: 'Backend servers in the CLB’s order', ...CONNECTION })
  backends(@Parent() g: ServerGroup, @Args() args: ConnectionArgs): ConnectionValue<Backend> {
    const items = g.backends;
    return connection(sliceConnection(items, (b) => b.position, pageArgs(args)), (b: Backend) => b, () => items.length);
  }
}

@Resolver(() => Backend)
export class BackendResolver {
  @ResolveField(() => EcsInstance, { nullable: true, description: 'The ECS instance (null for ENI / ECI backends and instances not read)' })
  async ecsInstance(@Parent() b: Backend, @Context() ctx: GqlContext): Promise<EcsInstance | null> {
    return b.type === 'ecs' ? inScan(b.scanId, ctx.loaders.ecsInstance(b.scanId, b.serverId)) : null;
  }
}

@Resolver(() => EcsInstance)
export class EcsInstanceResolver {
  @ResolveField(() => LoadBalancerConnection, { description: 'The CLBs listing it as an ecs backend', ...CONNECTION })
  async loadBalancers(@Parent() e: EcsInstance, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<LoadBalancer>> {
    const lbs = await ctx.loaders.loadBalancersOfEcs(e.scanId, e.instanceId);
    return connection(sliceConnection(lbs, (l) => l.loadBalancerId, pageArgs(args)), withScan<GraphLoadBalancer>(e.scanId), () => lbs.length);
  }

  @ResolveField(() => NlbConnection, { description: 'The NLBs whose server groups list it (its nlbServerGroupIds that an NLB uses)', ...CONNECTION })
  async nlbs(@Parent() e: EcsInstance, @Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<Nlb>> {
    const nlbs = (await Promise.all(e.nlbIds.map((id) => ctx.loaders.nlb(e.scanId, id)))).filter((n): n is GraphNlb => n !== null);
    return connection(sliceConnection(nlbs, (n) => n.nlbId, pageArgs(args)), withScan<GraphNlb>(e.scanId), () => nlbs.length);
  }

  @ResolveField(() => Cluster, { nullable: true, description: 'The cluster of the Kubernetes node it backs' })
  async cluster(@Parent() e: EcsInstance & GraphEcsInstance, @Context() ctx: GqlContext): Promise<Cluster | null> {
    return e.clusterId ? inScan(e.scanId, ctx.loaders.cluster(e.scanId, e.clusterId)) : null;
  }
}

/** Every resolver class (providers of the API module). */
export const GRAPHQL_RESOLVERS = [
  RootResolver,
  ScanDiffResolver,
  AccountResolver,
  RegionResolver,
  ClusterResolver,
  ServiceResolver,
  LoadBalancerResolver,
  NlbResolver,
  ServerGroupResolver,
  BackendResolver,
  EcsInstanceResolver,
];
