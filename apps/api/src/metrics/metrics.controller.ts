import { Controller, Get, Header } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { METRICS_CONTENT_TYPE } from '@app/telemetry';
import type { Principal } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { MetricsService } from './metrics.service';

/**
 * `GET /metrics`: Prometheus text format, behind the same bearer token as `/v1` (Prometheus sends it
 * with `authorization: { credentials_file: ... }` in the scrape config; see deploy/prometheus/).
 */
@ApiTags('metrics')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@Controller('metrics')
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
