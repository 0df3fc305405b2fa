import { Get, Header } from '@nestjs/common';
import type { Principal } from '@app/store';
import { TeamAware } from '../common/bearer-auth.guard';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ApiRoute, ZodQuery } from '../common/route.decorator';
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
@TeamAware()
@BearerController('v1/quotas', 'quotas')
export class QuotasController {
  constructor(private readonly quotas: QuotasService) {}

  @Get()
  @ApiRoute({
    summary: "Quota usage (used, limit, ratio) per check and resource of a scan (default: the latest succeeded), in key order; only the token's accounts (and teams)",
    query: listQuotasQuerySchema,
    ok: QuotaPageDto,
    badRequest: 'Invalid filter, limit or cursor',
    notFound: 'scanId names no scan',
  })
  // The body is a QuotaPageDto already serialised by the service (answers of the latest scan are kept).
  @Header('Content-Type', 'application/json; charset=utf-8')
  list(@ZodQuery(listQuotasQuerySchema) q: ListQuotasQuery, @CurrentPrincipal() principal: Principal): Promise<string> {
    return this.quotas.listJson(q, principal);
  }
}
