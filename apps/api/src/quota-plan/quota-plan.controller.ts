import { Get } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { QuotaPlan } from '@app/forecast';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { TeamAware } from '../common/bearer-auth.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ZodQuery } from '../common/route.decorator';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { QuotaPlanService, quotaPlanQuerySchema, type QuotaPlanQuery } from './quota-plan.service';

/** `/v1/quota-plan`: the Quota Center values to apply for (the API face of `fleet-audit quota plan`). */
@TeamAware()
@BearerController('v1/quota-plan', 'forecasts')
export class QuotaPlanController {
  constructor(private readonly plans: QuotaPlanService) {}

  @Get()
  @ApiOperation({
    summary: 'Per account, region and Quota Center quota: the value covering the p10 trend over the horizon plus a margin, or the remediation of a quota that cannot be raised',
    description:
      'Rows to act on first (request, remediate, pending, covered). Quotas with an application in review (stored by `fleet-audit quota request --apply`) are pending. ' +
      'Planned scenarios are a CLI option (`quota plan --scenario`): a what-if per request would make this read a computation.',
  })
  @ApiZodQuery(quotaPlanQuerySchema)
  @ApiOkResponse({
    description: '`{scanId, generatedAt, horizonDays, marginPercent, scenarios, rows: [{accountId, regionId, productCode, quotaActionCode, checkId, limit, limitSource, used, series, firstToReach, trendNeed, scenarioNeed, need, requestValue, action, adjustable, adjustableSource, unadjustableDetail, why, remediation, application}]}`',
    schema: {
      type: 'object',
      properties: {
        scanId: { type: 'string' },
        generatedAt: { type: 'string' },
        horizonDays: { type: 'integer' },
        marginPercent: { type: 'number' },
        scenarios: { type: 'array', items: { type: 'string' } },
        rows: { type: 'array', items: { type: 'object' } },
      },
    },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid query' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No succeeded scan stored a snapshot' })
  plan(@ZodQuery(quotaPlanQuerySchema) query: QuotaPlanQuery, @CurrentPrincipal() principal: Principal): Promise<{ scanId: string } & QuotaPlan> {
    return this.plans.plan(query, principal);
  }
}
