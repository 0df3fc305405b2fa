import { Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { METRICS_CONTENT_TYPE } from '@app/telemetry';
import type { Principal } from '@app/store';
import { TeamAware } from '../common/bearer-auth.guard';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';

import { MetricsService } from './metrics.service';

/**
 * `GET /metrics`: Prometheus text format, behind the same bearer token as `/v1` (Prometheus sends it
 * with `authorization: { credentials_file: ... }` in the scrape config; see deploy/prometheus/).
 */
@TeamAware()
@BearerController('metrics', 'metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Findings, quota usage, coverage and scan health of the latest scans, for Prometheus' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string' } })
  get(@CurrentPrincipal() principal: Principal): Promise<string> {
    return this.metrics.render(principal);
  }
}
