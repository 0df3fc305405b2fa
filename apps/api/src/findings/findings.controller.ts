import { Get, Header, Res } from '@nestjs/common';
import { ApiGoneResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error-response.dto';
import type { Principal } from '@app/store';
import { TeamAware } from '../common/bearer-auth.guard';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ApiRoute, ZodQuery } from '../common/route.decorator';
import { FindingPageDto } from './finding.dto';
import { markDeprecated, type HeaderSink } from '../common/listing.util';
import { listFindingsQuerySchema, type ListFindingsQuery } from './findings.schemas';
import { FindingsService } from './findings.service';

/** `/v1/findings`: findings of a scan, filtered and paged. */
@TeamAware()
@BearerController('v1/findings', 'findings')
export class FindingsController {
  constructor(private readonly findings: FindingsService) {}

  @Get()
  @ApiRoute({ summary: "Findings of a scan (default: the latest succeeded scan), most severe first; only accounts in the token's scope", query: listFindingsQuerySchema, ok: FindingPageDto, badRequest: 'Invalid filter or paging', notFound: 'scanId names no scan' })
  @ApiGoneResponse({ type: ErrorResponseDto, description: 'SCAN_PRUNED: retention pruned the scan scanId names (its findings are gone): prunedAt and the policy, never an empty page' })
  // The body is a FindingPageDto already serialised by the service (bodies of cached pages are reused).
  @Header('Content-Type', 'application/json; charset=utf-8')
  list(
    @ZodQuery(listFindingsQuerySchema) query: ListFindingsQuery,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: HeaderSink,
  ): Promise<string> {
    // The deprecated parameters still work, and say so (one paging style, `after`).
    if (query.cursor !== undefined) markDeprecated(res, 'cursor: send it as after');
    else if (query.offset > 0) markDeprecated(res, 'offset: follow nextCursor as after');
    return this.findings.listJson(query, principal);
  }
}
