/**
 * GraphQL resolvers of capacity planning (`quotaTrends`, `headroom`, `whatIf`) and token management (`tokens`,
 * `createToken`, `revokeToken`). They call the services REST calls (ForecastsService, TokensService), so the
 * account scope, the scoped-admin rule and the audit rows are those of `/v1/forecasts` and `/v1/tokens`; their
 * arguments are validated by the REST zod schemas (forecasts.schemas.ts, tokens.schemas.ts, libs/forecast
 * scenario.schema.ts) at this boundary.
 *
 * Cost (graphql-cost.plugin.ts): a forecast reads every stored series or the whole snapshot, so each forecast
 * field costs FORECAST_COST on top of its connections; `whatIf` costs 1 plus its selection per scenario step.
 */
import { Args, Context, ID, Float, Int, Mutation, Parent, Query, ResolveField, Resolver, type ComplexityEstimatorArgs } from '@nestjs/graphql';
import { Inject } from '@nestjs/common';
import { GraphQLError } from 'graphql/index.js';
import type { HeadroomAnswer as HeadroomAnswerValue, HeadroomEntry, TrendEntry, WhatIfResult as WhatIfResultValue } from '@app/forecast';
import type { StoredApiToken } from '@app/store';
import { TokenAuthenticator } from '../auth/token-authenticator';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { headroomQuerySchema, trendsQuerySchema } from '../forecasts/forecasts.schemas';
import { ForecastsService } from '../forecasts/forecasts.service';
import { createTokenInputSchema, tokenIdSchema } from '../tokens/tokens.schemas';
import { TokensService } from '../tokens/tokens.service';
import {
  ApiToken,
  ApiTokenConnection,
  ClusterHeadroom,
  ClusterHeadroomConnection,
  CreateTokenInput,
  CreateTokenPayload,
  FindingRef,
  FindingRefConnection,
  HeadroomAnswer,
  HeadroomReport,
  QuotaChange,
  QuotaChangeConnection,
  QuotaTrend,
  QuotaTrendConnection,
  RoleValue,
  ScenarioInput,
  SeverityChange,
  SeverityChangeConnection,
  TrendStatusValue,
  WhatIfFindings,
  WhatIfResult,
  PlanResult,
  WhatIfStep,
} from './graphql-forecast.types';
import { type GqlContext } from './graphql.options';
import { CONNECTION, connection, pageArgs, pageByKey, requireRole, resourceRef } from './graphql.resolvers';
import { connectionComplexity, ConnectionArgs, type ConnectionValue, type SeverityValue } from './graphql.types';

/** Base cost of a forecast field: it reads every stored quota series or the whole latest snapshot. */
export const FORECAST_COST = 10;

/** Cost of `quotaTrends`: FORECAST_COST plus its connection. */
export function trendsComplexity(o: ComplexityEstimatorArgs): number {
  return FORECAST_COST + connectionComplexity(o);
}

/** Cost of `headroom` and of the token fields' parents: FORECAST_COST plus the selection. */
export function forecastComplexity(o: ComplexityEstimatorArgs): number {
  return FORECAST_COST + o.childComplexity;
}

/**
 * Cost of `whatIf`: FORECAST_COST, plus per scenario step (each applies a change and recomputes quotas, findings
 * and headroom) 1 and the selection (a step's connections are paged per step): `10 + steps x (1 + selection)`.
 * With the default budget of 1,000 a scenario of about 990 steps fits when only scalars are selected.
 */
export function whatIfComplexity(o: ComplexityEstimatorArgs): number {
  const steps = (o.args.input as { steps?: unknown[] } | undefined)?.steps;
  return FORECAST_COST + Math.max(1, Array.isArray(steps) ? steps.length : 1) * (1 + o.childComplexity);
}

const seriesKey = (checkId: string, r: { accountId: string; regionId: string; kind: string; id: string }): string => `${checkId}|${r.accountId}|${r.regionId}|${r.kind}|${r.id}`;

/** A libs/forecast headroom answer as the flattened GraphQL HeadroomAnswer. */
function answerOf(a: HeadroomAnswerValue): HeadroomAnswer {
  if ('alreadyOver' in a) return { headroom: null, limitedBy: null, alreadyOver: a.alreadyOver.map((o) => ({ ...o, resource: resourceRef(o.resource) })) };
  return { headroom: a.headroom, limitedBy: a.limitedBy ? { checkId: a.limitedBy.checkId, resource: resourceRef(a.limitedBy.resource) } : null, alreadyOver: [] };
}

function headroomOf(e: HeadroomEntry): ClusterHeadroom {
  return {
    clusterId: e.clusterId,
    clusterName: e.clusterName,
    nodes: answerOf(e.nodes),
    clusterModeServices: answerOf(e.clusterModeServices),
    localServices: answerOf(e.localServices),
    nlbClusterModeServices: e.nlbClusterModeServices ? answerOf(e.nlbClusterModeServices) : null,
    nlbLocalServices: e.nlbLocalServices ? answerOf(e.nlbLocalServices) : null,
  };
}

function trendOf(t: TrendEntry): QuotaTrend {
  return { ...t, status: t.status as TrendStatusValue };
}

type ResultStep = WhatIfResultValue['steps'][number];

function quotaChangeOf(q: ResultStep['quotas'][number]): QuotaChange {
  return { checkId: q.checkId, resource: resourceRef(q.resource), before: q.before, after: q.after };
}

function findingRefOf(f: ResultStep['findings']['appeared'][number]): FindingRef {
  return { ...f, severity: f.severity as SeverityValue, resource: resourceRef(f.resource) };
}

function stepOf(s: ResultStep): WhatIfStep {
  return {
    name: s.name,
    firstBreach: s.firstBreach ? quotaChangeOf(s.firstBreach) : null,
    findings: {
      appearedItems: s.findings.appeared.map(findingRefOf),
      resolvedItems: s.findings.resolved.map(findingRefOf),
      severityChangedItems: s.findings.severityChanged.map((c) => ({ ...c, before: c.before as SeverityValue, after: c.after as SeverityValue, resource: resourceRef(c.resource) })),
    },
    headroom: s.headroom.map(headroomOf),
    quotaItems: s.quotas.map(quotaChangeOf),
  };
}

/** The arguments given (null and absent alike dropped), numbers as the query-string text REST validates. */
function asQuery(args: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(args).flatMap(([k, v]) => (v === undefined || v === null ? [] : [[k, String(v)]])));
}

/**
 * The REST what-if body of a ScenarioInput: unset (null) fields dropped, `labels` as an object.
 * @throws GraphQLError BAD_USER_INPUT for a label key given twice
 */
export function scenarioBody(input: ScenarioInput): unknown {
  const clean = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => clean(x, `${path}.${i}`));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null || x === undefined) continue;
      if (k === 'labels' && Array.isArray(x)) {
        const labels: Record<string, string> = {};
        for (const l of x as { key: string; value: string }[]) {
          if (Object.prototype.hasOwnProperty.call(labels, l.key)) {
            throw new GraphQLError(`input.${path}.labels: label "${l.key}" is given twice`, { extensions: { code: 'BAD_USER_INPUT' } });
          }
          labels[l.key] = l.value;
        }
        out[k] = labels;
      } else out[k] = clean(x, path ? `${path}.${k}` : k);
    }
    return out;
  };
  return clean(input, '');
}

/** `quotaTrends`, `headroom` and `whatIf`: REST /v1/forecasts with typed results. */
@Resolver()
export class ForecastResolver {
  constructor(
    private readonly forecasts: ForecastsService,
    @Inject(TokenAuthenticator) private readonly auth: TokenAuthenticator,
  ) {}

  @Query(() => QuotaTrendConnection, {
    description: 'Time to exhaustion of every stored quota series of your accounts (GET /v1/forecasts/trends), soonest first; filters and settings as REST',
    complexity: trendsComplexity,
    nullable: false,
  })
  async quotaTrends(
    @Args() args: ConnectionArgs,
    @Context() ctx: GqlContext,
    @Args('checkId', { nullable: true }) checkId?: string,
    @Args('accountId', { nullable: true }) accountId?: string,
    @Args('clusterId', { nullable: true }) clusterId?: string,
    @Args('status', { type: () => TrendStatusValue, nullable: true }) status?: TrendStatusValue,
    @Args('now', { nullable: true, description: 'Forecast clock, ISO 8601 (default: now)' }) now?: string,
    @Args('windowDays', { type: () => Float, nullable: true, description: 'History window in days (default 14)' }) windowDays?: number,
    @Args('minSamples', { type: () => Int, nullable: true, description: 'Fewer samples -> insufficient_data (count, default 4)' }) minSamples?: number,
    @Args('minSpanHours', { type: () => Float, nullable: true, description: 'Shorter span -> insufficient_data (hours, default 48)' }) minSpanHours?: number,
  ): Promise<ConnectionValue<QuotaTrend>> {
    const a = pageArgs(args);
    const query = new ZodValidationPipe(trendsQuerySchema, 'args').transform(asQuery({ checkId, accountId, clusterId, status, now, windowDays, minSamples, minSpanHours }));
    const { trends } = await this.forecasts.trends(query, ctx.principal);
    return connection(pageByKey(trends, (t) => seriesKey(t.checkId, t.resource), a), trendOf, () => trends.length);
  }

  @Query(() => HeadroomReport, {
    description:
      "How many more nodes / Cluster-mode / Local Services fit per cluster before the first quota breach, on the latest stored snapshot (GET /v1/forecasts/headroom); only the clusters within the token's accounts and teams",
    complexity: forecastComplexity,
  })
  async headroom(
    @Context() ctx: GqlContext,
    @Args('clusterId', { nullable: true }) clusterId?: string,
    @Args('like', { nullable: true, description: 'New nodes copy this node (default: the first ready worker)' }) like?: string,
    @Args('ports', { type: () => Int, nullable: true, description: 'Ports per new Service (count, default 1)' }) ports?: number,
    @Args('podsPerService', { type: () => Int, nullable: true, description: 'Pods per new Local Service (count, default 2)' }) podsPerService?: number,
  ): Promise<HeadroomReport> {
    const query = new ZodValidationPipe(headroomQuerySchema, 'args').transform(asQuery({ clusterId, like, ports, podsPerService }));
    const r = await this.forecasts.headroom(query, ctx.principal);
    return { scanId: r.scanId, entries: r.headroom.map(headroomOf) };
  }

  @Mutation(() => WhatIfResult, {
    description:
      "Run a what-if scenario on the latest stored snapshot (POST /v1/forecasts/whatif; validated by the same schema); operator role, on clusters within the token's accounts and teams",
    complexity: whatIfComplexity,
  })
  async whatIf(@Args('input', { type: () => ScenarioInput }) input: ScenarioInput, @Context() ctx: GqlContext): Promise<WhatIfResult> {
    await requireRole(ctx, this.auth, 'operator', 'whatIf');
    const r = await this.forecasts.whatIf(scenarioBody(input), ctx.principal);
    return {
      scanId: r.scanId,
      scenario: r.scenario,
      steps: r.steps.map(stepOf),
      convergence: { ...r.convergence, callsPerApi: Object.entries(r.convergence.callsPerApi).map(([action, calls]) => ({ action, calls })) },
    };
  }

  @Mutation(() => PlanResult, {
    description: 'Plan Kubernetes manifests against a cluster of the latest stored scan (POST /v1/plans, same validation); operator role',
    complexity: forecastComplexity,
  })
  async plan(
    @Args('cluster', { description: 'Target cluster, by id or by name' }) cluster: string,
    @Args('manifests', { description: 'Kubernetes manifests (YAML or JSON; several documents, List kinds)' }) manifests: string,
    @Context() ctx: GqlContext,
    @Args('delete', { type: () => [String], nullable: true, description: 'Services the change deletes, namespace/name' }) deletes?: string[],
  ): Promise<PlanResult> {
    await requireRole(ctx, this.auth, 'operator', 'plan');
    const r = await this.forecasts.plan({ cluster, manifests, ...(deletes ? { delete: deletes } : {}) }, ctx.principal);
    return {
      scanId: r.scanId,
      clusterId: r.cluster.id,
      clusterName: r.cluster.name,
      services: r.services.map((s) => ({ ...s, workloads: [...s.workloads] })),
      step: stepOf(r.step),
      convergence: { ...r.convergence, callsPerApi: Object.entries(r.convergence.callsPerApi).map(([action, calls]) => ({ action, calls })) },
    };
  }
}

@Resolver(() => HeadroomReport)
export class HeadroomReportResolver {
  @ResolveField(() => ClusterHeadroomConnection, { description: 'One entry per cluster, in the snapshot’s order', ...CONNECTION })
  clusters(@Parent() r: HeadroomReport, @Args() args: ConnectionArgs): ConnectionValue<ClusterHeadroom> {
    return connection(pageByKey(r.entries, (e) => e.clusterId, pageArgs(args)), (e: ClusterHeadroom) => e, () => r.entries.length);
  }
}

@Resolver(() => WhatIfStep)
export class WhatIfStepResolver {
  @ResolveField(() => QuotaChangeConnection, { description: 'Quotas whose use the step changed (paging re-runs the scenario: it is deterministic)', ...CONNECTION })
  quotas(@Parent() s: WhatIfStep, @Args() args: ConnectionArgs): ConnectionValue<QuotaChange> {
    return connection(pageByKey(s.quotaItems, (q) => seriesKey(q.checkId, q.resource), pageArgs(args)), (q: QuotaChange) => q, () => s.quotaItems.length);
  }
}

@Resolver(() => WhatIfFindings)
export class WhatIfFindingsResolver {
  @ResolveField(() => FindingRefConnection, { description: 'Findings the step made appear', ...CONNECTION })
  appeared(@Parent() f: WhatIfFindings, @Args() args: ConnectionArgs): ConnectionValue<FindingRef> {
    return connection(pageByKey(f.appearedItems, (x) => x.fingerprint, pageArgs(args)), (x: FindingRef) => x, () => f.appearedItems.length);
  }

  @ResolveField(() => FindingRefConnection, { description: 'Findings the step resolved', ...CONNECTION })
  resolved(@Parent() f: WhatIfFindings, @Args() args: ConnectionArgs): ConnectionValue<FindingRef> {
    return connection(pageByKey(f.resolvedItems, (x) => x.fingerprint, pageArgs(args)), (x: FindingRef) => x, () => f.resolvedItems.length);
  }

  @ResolveField(() => SeverityChangeConnection, { description: 'Findings whose severity the step changed', ...CONNECTION })
  severityChanged(@Parent() f: WhatIfFindings, @Args() args: ConnectionArgs): ConnectionValue<SeverityChange> {
    return connection(pageByKey(f.severityChangedItems, (x) => x.fingerprint, pageArgs(args)), (x: SeverityChange) => x, () => f.severityChangedItems.length);
  }
}

function tokenOf(t: StoredApiToken): ApiToken {
  return { ...t, role: t.role as RoleValue };
}

/** `tokens`, `createToken`, `revokeToken` (admin): REST /v1/tokens through the same TokensService. */
@Resolver()
export class TokenResolver {
  constructor(
    private readonly tokens: TokensService,
    @Inject(TokenAuthenticator) private readonly auth: TokenAuthenticator,
  ) {}

  @Query(() => ApiTokenConnection, { name: 'tokens', description: 'Tokens over accounts within your token’s scope, newest first (GET /v1/tokens); admin role', ...CONNECTION })
  async apiTokens(@Args() args: ConnectionArgs, @Context() ctx: GqlContext): Promise<ConnectionValue<ApiToken>> {
    await requireRole(ctx, this.auth, 'admin', 'tokens');
    const a = pageArgs(args);
    const all = await this.tokens.list(ctx.principal);
    return connection(pageByKey(all, (t) => t.id, a), tokenOf, () => all.length);
  }

  @Mutation(() => CreateTokenPayload, { description: 'Create a token (POST /v1/tokens): the plaintext is in this payload only; admin role, a scoped admin only within its accounts' })
  async createToken(@Args('input', { type: () => CreateTokenInput }) input: CreateTokenInput, @Context() ctx: GqlContext): Promise<CreateTokenPayload> {
    await requireRole(ctx, this.auth, 'admin', 'createToken');
    const body = new ZodValidationPipe(createTokenInputSchema, 'input').transform(
      Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined)),
    );
    const { token, ...stored } = await this.tokens.create({ role: body.role, accounts: body.accounts, teams: body.teams, ttlMs: body.expiresIn, name: body.name }, ctx.principal);
    return { token, apiToken: tokenOf(stored) };
  }

  @Mutation(() => ApiToken, { description: 'Revoke a token within your scope (DELETE /v1/tokens/{id}; idempotent); admin role' })
  async revokeToken(@Args('id', { type: () => ID }) id: string, @Context() ctx: GqlContext): Promise<ApiToken> {
    await requireRole(ctx, this.auth, 'admin', 'revokeToken');
    return tokenOf(await this.tokens.revoke(new ZodValidationPipe(tokenIdSchema, 'id').transform(id), ctx.principal));
  }
}

/** The resolvers of this file (providers of the API module, with GRAPHQL_RESOLVERS). */
export const FORECAST_TOKEN_RESOLVERS = [ForecastResolver, HeadroomReportResolver, WhatIfStepResolver, WhatIfFindingsResolver, TokenResolver];
