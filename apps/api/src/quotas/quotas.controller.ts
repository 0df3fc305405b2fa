import { Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { QuotaPageDto } from './quota.dto';
import { QuotasService } from './quotas.service';
import { listQuotasQuerySchema, type ListQuotasQuery } from './quotas.schemas';

/**
 * `/v1/quotas`: quota usage per check and resource of a scan (table `quota_usage`, written with the
 * scan's findings): used / limit / ratio, filtered, in key order (check, account, region, resource kind,
 * resource id), keyset-paged (`after` = `nextCursor`). Read through the same repository as GraphQL
 * `quotas` (FleetGraphRepository.quotasPage / countQuotas), so both return the same numbers. Only samples
 * of the token's accounts are listed and counted, in SQL.
 */
@BearerController('v1/quotas', 'quotas')
export class QuotasController {
  constructor(private readonly quotas: QuotasService) {}

  @Get()
  @ApiOperation({ summary: "Quota usage (used, limit, ratio) per check and resource of a scan (default: the latest succeeded), in key order; only the token's accounts" })
  @ApiZodQuery(listQuotasQuerySchema)
  @ApiOkResponse({ type: QuotaPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid filter, limit or cursor' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  list(@Query(new ZodValidationPipe(listQuotasQuerySchema, 'query')) q: ListQuotasQuery, @CurrentPrincipal() principal: Principal): Promise<QuotaPageDto> {
    return this.quotas.list(q, principal);
  }
}
