/**
 * GraphQL `quotaPlan`: the quota plan of REST `GET /v1/quota-plan` (the same service, validation and scope), typed.
 */
import { Args, Context, Field, Float, ID, Int, ObjectType, Query, Resolver } from '@nestjs/graphql';
import type { QuotaPlanRow } from '@app/forecast';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { QuotaPlanService, quotaPlanQuerySchema } from '../quota-plan/quota-plan.service';
import { FORECAST_COST } from './graphql-forecast.resolvers';
import type { GqlContext } from './graphql.options';

@ObjectType({ description: 'The series of a quota that reaches its limit first' })
export class QuotaFirstToReach {
  @Field()
  checkId!: string;
  @Field()
  resourceKind!: string;
  @Field()
  resourceId!: string;
  @Field(() => Float, { description: 'Current use (count)' })
  used!: number;
  @Field(() => String, { nullable: true, description: 'Early (p10) exhaustion, ISO 8601' })
  exhaustsAtP10!: string | null;
  @Field(() => String, { nullable: true, description: 'Median (p50) exhaustion, ISO 8601' })
  exhaustsAtP50!: string | null;
}

@ObjectType({ description: 'What a planned scenario needs of a quota' })
export class QuotaScenarioNeed {
  @Field()
  scenario!: string;
  @Field(() => Float, { description: 'Count' })
  used!: number;
}

@ObjectType({ description: 'What frees room on a quota that cannot be raised' })
export class QuotaRemediation {
  @Field()
  text!: string;
  @Field(() => Float, { nullable: true, description: 'Units of the quota it frees (count); null when not modelled' })
  size!: number | null;
}

@ObjectType({ description: 'An application in review for a quota' })
export class QuotaApplicationInReview {
  @Field()
  applicationId!: string;
  @Field()
  status!: string;
  @Field(() => Float, { description: 'The value asked for (count)' })
  desireValue!: number;
}

@ObjectType({ description: 'One Quota Center quota of one account and region in the plan (units: counts)' })
export class QuotaPlanRowType {
  @Field()
  accountId!: string;
  @Field()
  regionId!: string;
  @Field({ description: 'Quota Center ProductCode (slb, nlb)' })
  productCode!: string;
  @Field({ description: 'Quota Center QuotaActionCode' })
  quotaActionCode!: string;
  @Field()
  checkId!: string;
  @Field(() => Float)
  limit!: number;
  @Field({ description: 'quota-center or default' })
  limitSource!: string;
  @Field(() => Float)
  used!: number;
  @Field(() => Int, { description: 'Series measured (count)' })
  series!: number;
  @Field(() => QuotaFirstToReach, { nullable: true })
  firstToReach!: QuotaFirstToReach | null;
  @Field(() => Float, { description: 'Highest p10 use at the horizon' })
  trendNeed!: number;
  @Field(() => QuotaScenarioNeed, { nullable: true })
  scenarioNeed!: QuotaScenarioNeed | null;
  @Field(() => Float)
  need!: number;
  @Field(() => Float, { nullable: true, description: 'need + margin, rounded up; null unless the action is request' })
  requestValue!: number | null;
  @Field({ description: 'request, remediate, pending or covered' })
  action!: string;
  @Field()
  adjustable!: boolean;
  @Field({ description: 'quota-center (read live) or documented' })
  adjustableSource!: string;
  @Field(() => String, { nullable: true })
  unadjustableDetail!: string | null;
  @Field({ description: 'The numbers behind the action' })
  why!: string;
  @Field(() => QuotaRemediation, { nullable: true })
  remediation!: QuotaRemediation | null;
  @Field(() => QuotaApplicationInReview, { nullable: true })
  application!: QuotaApplicationInReview | null;
}

@ObjectType({ description: 'The quota plan (GET /v1/quota-plan)' })
export class QuotaPlanReport {
  @Field(() => ID, { description: 'The scan whose snapshot was read' })
  scanId!: string;
  @Field()
  generatedAt!: string;
  @Field(() => Int)
  horizonDays!: number;
  @Field(() => Float)
  marginPercent!: number;
  @Field(() => [QuotaPlanRowType], { description: 'Rows to act on first: request, remediate, pending, covered' })
  rows!: QuotaPlanRowType[];
}

function rowOf(r: QuotaPlanRow): QuotaPlanRowType {
  return {
    ...r,
    firstToReach: r.firstToReach
      ? { checkId: r.firstToReach.checkId, resourceKind: r.firstToReach.resource.kind, resourceId: r.firstToReach.resource.id, used: r.firstToReach.used, exhaustsAtP10: r.firstToReach.exhaustsAtP10, exhaustsAtP50: r.firstToReach.exhaustsAtP50 }
      : null,
  };
}

/** `quotaPlan`: the rows within the token's scope (accounts; a team token: where its teams own a cluster). */
@Resolver()
export class QuotaPlanResolver {
  constructor(private readonly plans: QuotaPlanService) {}

  @Query(() => QuotaPlanReport, {
    description: 'Per account, region and Quota Center quota: the value covering the p10 trend over the horizon plus a margin, or the remediation of a quota that cannot be raised (GET /v1/quota-plan)',
    complexity: (o) => FORECAST_COST + o.childComplexity,
  })
  async quotaPlan(
    @Context() ctx: GqlContext,
    @Args('horizonDays', { type: () => Int, nullable: true, description: 'Days the value must cover (default 30)' }) horizonDays?: number,
    @Args('marginPercent', { type: () => Int, nullable: true, description: 'Head room above the need, percent (default 10)' }) marginPercent?: number,
    @Args('now', { nullable: true, description: 'Plan clock, ISO 8601 (default: now)' }) now?: string,
  ): Promise<QuotaPlanReport> {
    const raw: Record<string, string> = {};
    if (horizonDays !== undefined && horizonDays !== null) raw['horizonDays'] = String(horizonDays);
    if (marginPercent !== undefined && marginPercent !== null) raw['marginPercent'] = String(marginPercent);
    if (now !== undefined && now !== null) raw['now'] = now;
    const query = new ZodValidationPipe(quotaPlanQuerySchema, 'args').transform(raw);
    const p = await this.plans.plan(query, ctx.principal);
    return { scanId: p.scanId, generatedAt: p.generatedAt, horizonDays: p.horizonDays, marginPercent: p.marginPercent, rows: p.rows.map(rowOf) };
  }
}
