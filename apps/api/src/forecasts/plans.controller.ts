import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { PlanResult } from '@app/forecast';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole, TeamAware } from '../common/bearer-auth.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ForecastsService } from './forecasts.service';

/**
 * `/v1/plans`: what applying Kubernetes manifests does to a cluster of the latest stored scan, the API face of
 * `fleet-audit plan` (libs/forecast manifest-plan.ts), for CI systems that call the service instead of holding a
 * database URL.
 */
@TeamAware()
@BearerController('v1/plans', 'forecasts')
export class PlansController {
  constructor(private readonly forecasts: ForecastsService) {}

  @Post()
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Plan Kubernetes manifests against a cluster of the latest stored scan: quotas before and after, first breach, findings added',
    description:
      'The manifests are the text `kubectl apply -f` reads (multi-document YAML or JSON, List kinds): the Services, and the ' +
      'Deployments, StatefulSets, ReplicaSets and DaemonSets selecting them (their pods). Bodies over 100 kB are refused with 413.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['cluster', 'manifests'],
      properties: {
        cluster: { type: 'string', description: 'Target cluster, by id or by name' },
        manifests: { type: 'string', description: 'Kubernetes manifests (YAML or JSON)' },
        delete: { type: 'array', items: { type: 'string' }, description: 'Services the change deletes, namespace/name' },
      },
    },
  })
  @ApiOkResponse({
    description: '`{scanId, cluster: {id, name}, services: [{service, action, source, pods, workloads}], step: {quotas, firstBreach, findings, headroom}, convergence, ignored}`',
    schema: { type: 'object', properties: { scanId: { type: 'string' }, cluster: { type: 'object' }, services: { type: 'array', items: { type: 'object' } }, step: { type: 'object' }, convergence: { type: 'object' }, ignored: { type: 'object' } } },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid body or manifest (the document and field), an unknown cluster, a deletion of a Service the cluster lacks' })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'A viewer token, or a cluster outside the token\'s scope' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No succeeded scan stored a snapshot' })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: 'RATE_LIMITED: the forecast queue is full (Retry-After)' })
  @ApiUnprocessableEntityResponse({ type: ErrorResponseDto, description: 'FORECAST_TOO_LARGE: past the forecast time or heap budget' })
  plan(@Body() body: unknown, @CurrentPrincipal() principal: Principal): Promise<{ scanId: string } & PlanResult> {
    return this.forecasts.plan(body, principal);
  }
}
