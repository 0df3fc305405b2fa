import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { QuotaUsageSample } from '@app/domain';
import { Store, StoreError, type Principal } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { QuotaPageDto, type QuotaDto } from './quota.dto';
import { listQuotasQuerySchema, type ListQuotasQuery } from './quotas.schemas';

/**
 * `/v1/quotas`: quota usage per check and resource of a scan (table `quota_usage`, written with the
 * scan's findings): used / limit / ratio, filtered, in key order (check, account, region, resource kind,
 * resource id), keyset-paged (`after` = `nextCursor`). Read through the same repository as GraphQL
 * `quotas` (FleetGraphRepository.quotasPage / countQuotas), so both return the same numbers. Only samples
 * of the token's accounts are listed and counted, in SQL.
 */
@ApiTags('quotas')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@Controller('v1/quotas')
export class QuotasController {
  constructor(private readonly store: Store) {}

  @Get()
  @ApiOperation({ summary: "Quota usage (used, limit, ratio) per check and resource of a scan (default: the latest succeeded), in key order; only the token's accounts" })
  @ApiZodQuery(listQuotasQuerySchema)
  @ApiOkResponse({ type: QuotaPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid filter, limit or cursor' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  async list(@Query(new ZodValidationPipe(listQuotasQuerySchema, 'query')) q: ListQuotasQuery, @CurrentPrincipal() principal: Principal): Promise<QuotaPageDto> {
    if (q.scanId !== undefined && !(await this.store.scans.get(q.scanId))) throw new StoreError('NOT_FOUND', `scan ${q.scanId} not found`);
    const scanId = q.scanId ?? (await this.store.scans.latestSucceededId());
    if (scanId === null) return { items: [], total: 0, limit: q.limit, nextCursor: null, scanId: null };
    const { limit, after } = q;
    const filter = { checkId: q.checkId, accountId: q.accountId, regionId: q.regionId, clusterId: q.clusterId, resourceKind: q.resourceKind, resourceId: q.resourceId, minRatio: q.minRatio };
    const [page, total] = await Promise.all([
      this.store.graph.quotasPage(scanId, principal, { first: limit, ...(after !== undefined ? { after } : {}) }, filter),
      this.store.graph.countQuotas(scanId, principal, filter),
    ]);
    return { items: page.edges.map((e) => toQuotaDto(e.node)), total, limit, nextCursor: page.hasNextPage ? (page.edges.at(-1)?.cursor ?? null) : null, scanId };
  }
}

/** The response shape of a quota sample (absent cluster as null). */
export function toQuotaDto(s: QuotaUsageSample): QuotaDto {
  return { checkId: s.checkId, resource: { ...s.resource, clusterId: s.resource.clusterId ?? null }, used: s.used, limit: s.limit, ratio: s.ratio };
}
