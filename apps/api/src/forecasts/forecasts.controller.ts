import { Body, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse, ApiUnprocessableEntityResponse, ApiConsumes } from '@nestjs/swagger';
import type { HeadroomEntry, TrendEntry, WhatIfResult } from '@app/forecast';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole, TeamAware } from '../common/bearer-auth.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ZodQuery } from '../common/route.decorator';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { headroomQuerySchema, trendsQuerySchema, type HeadroomQuery, type TrendsQuery } from './forecasts.schemas';
import { ForecastsService } from './forecasts.service';

const quantiles = (type: string) => ({
  type: 'object',
  properties: { p10: { type, nullable: true }, p50: { type, nullable: true }, p90: { type, nullable: true } },
});

/** `/v1/forecasts`: capacity planning (libs/forecast): trends, headroom, what-if scenarios. */
@TeamAware()
@BearerController('v1/forecasts', 'forecasts')
export class ForecastsController {
  constructor(private readonly forecasts: ForecastsService) {}

  @Get('trends')
  @ApiOperation({ summary: 'Time to exhaustion (p10/p50/p90) of every stored quota series, soonest first' })
  @ApiZodQuery(trendsQuerySchema)
  @ApiOkResponse({
    description:
      '`{trends: [...]}`; each entry: checkId, resource, status, used, limit, slopePerDay, samples, secondsToExhaustion, exhaustsAt. ' +
      'With limit or after: one page in series key order and `nextCursor` (null on the last page)',
    schema: {
      type: 'object',
      properties: {
        trends: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              checkId: { type: 'string' },
              resource: { type: 'object' },
              status: { type: 'string', enum: ['ok', 'insufficient_data', 'flat', 'decreasing', 'exhausted'] },
              used: { type: 'number' },
              limit: { type: 'number' },
              slopePerDay: { type: 'number', nullable: true },
              samples: { type: 'integer' },
              secondsToExhaustion: quantiles('number'),
              exhaustsAt: quantiles('string'),
            },
          },
        },
        nextCursor: { type: 'string', nullable: true, description: 'Only with limit or after: the cursor of the next page (after=), null on the last page' },
      },
    },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid filter or cursor' })
  trends(
    @ZodQuery(trendsQuerySchema) query: TrendsQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ trends: TrendEntry[]; nextCursor?: string | null }> {
    return this.forecasts.trends(query, principal);
  }

  @Get('headroom')
  @ApiOperation({ summary: 'How many more nodes / Cluster-mode / Local Services fit before the first quota breach (latest stored scan)' })
  @ApiZodQuery(headroomQuerySchema)
  @ApiOkResponse({
    description: '`{scanId, headroom: [{clusterId, clusterName, nodes, clusterModeServices, localServices, nlbClusterModeServices, nlbLocalServices}]}`; each answer `{headroom, limitedBy}` or `{alreadyOver}` (the NLB ones null where NLB Services cannot be planned)',
    schema: { type: 'object', properties: { scanId: { type: 'string' }, headroom: { type: 'array', items: { type: 'object' } } } },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid query' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No succeeded scan stored a snapshot' })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: 'RATE_LIMITED: the forecast queue is full (Retry-After)' })
  @ApiUnprocessableEntityResponse({ type: ErrorResponseDto, description: 'FORECAST_TOO_LARGE: past the forecast time or heap budget; the message names which' })
  headroom(
    @ZodQuery(headroomQuerySchema) query: HeadroomQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ scanId: string; headroom: HeadroomEntry[] }> {
    return this.forecasts.headroom(query, principal);
  }

  @Post('whatif')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a what-if scenario (apiVersion fleet-audit/v1) on the latest stored scan',
    description:
      'The scenario as JSON, or as YAML (`Content-Type: application/yaml` or `text/yaml`), the format of examples/scenarios: ' +
      'one schema for both; a YAML body that does not parse is a 400 naming the line and column. Bodies over 100 kB are refused with 413.',
  })
  @ApiConsumes('application/json', 'application/yaml', 'text/yaml')
  @ApiBody({
    description: 'A scenario: `{apiVersion: "fleet-audit/v1", kind: "Scenario", name, steps: [{addNodes: {...}} ...]}`',
    schema: { type: 'object', required: ['apiVersion', 'kind', 'name', 'steps'], properties: { apiVersion: { type: 'string', enum: ['fleet-audit/v1'] }, kind: { type: 'string', enum: ['Scenario'] }, name: { type: 'string' }, steps: { type: 'array', items: { type: 'object' } } } },
  })
  @ApiOkResponse({
    description: '`{scanId, scenario, steps: [{name, quotas, firstBreach, findings: {appeared, resolved, severityChanged}, headroom}], convergence}`',
    schema: { type: 'object', properties: { scanId: { type: 'string' }, scenario: { type: 'string' }, steps: { type: 'array', items: { type: 'object' } }, convergence: { type: 'object' } } },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid scenario: every problem at once, one `issues` entry each (`body.steps.1.addNodes.count`), the message listing them with their step and field' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No succeeded scan stored a snapshot' })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: 'RATE_LIMITED: the forecast queue is full (Retry-After)' })
  @ApiUnprocessableEntityResponse({ type: ErrorResponseDto, description: 'FORECAST_TOO_LARGE: past the forecast time or heap budget; the message names which' })
  whatIf(@Body() body: unknown, @CurrentPrincipal() principal: Principal): Promise<{ scanId: string } & WhatIfResult> {
    return this.forecasts.whatIf(body, principal);
  }
}
