import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Store, type Principal } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { QuotaPageDto } from './quota.dto';
import { listQuotasQuerySchema, type ListQuotasQuery } from './quotas.schemas';

/**
 * `/v1/quotas`: quota usage per check and resource of a scan (table `quota_usage`, written with the
 * scan's findings): used / limit / ratio, filtered, highest ratio first, keyset-paged (`after` =
 * `nextCursor`). Only samples of the token's accounts are listed and counted, in SQL.
 */
@ApiTags('quotas')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@Controller('v1/quotas')
export class QuotasController {
  constructor(private readonly store: Store) {}

  @Get()
  @ApiOperation({ summary: "Quota usage (used, limit, ratio) per check and resource of a scan (default: the latest succeeded), highest ratio first; only the token's accounts" })
  @ApiZodQuery(listQuotasQuerySchema)
  @ApiOkResponse({ type: QuotaPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid filter, limit or cursor' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  async list(@Query(new ZodValidationPipe(listQuotasQuerySchema, 'query')) q: ListQuotasQuery, @CurrentPrincipal() principal: Principal): Promise<QuotaPageDto> {
    const scanId = q.scanId ?? (await this.store.scans.latestSucceededId());
    if (scanId === null) return { items: [], total: 0, limit: q.limit, nextCursor: null, scanId: null };
    const page = await this.store.quotaUsage.page({ ...q, scanId }, principal);
    return {
      items: page.items.map((s) => ({ ...s, resource: { ...s.resource, clusterId: s.resource.clusterId ?? null } })),
      total: page.total,
      limit: q.limit,
      nextCursor: page.nextCursor,
      scanId,
    };
  }
}
