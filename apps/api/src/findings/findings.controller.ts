import { Get, Header, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { FindingPageDto } from './finding.dto';
import { markDeprecated, type HeaderSink } from '../common/listing.util';
import { listFindingsQuerySchema, type ListFindingsQuery } from './findings.schemas';
import { FindingsService } from './findings.service';

/** `/v1/findings`: findings of a scan, filtered and paged. */
@BearerController('v1/findings', 'findings')
export class FindingsController {
  constructor(private readonly findings: FindingsService) {}

  @Get()
  @ApiOperation({ summary: 'Findings of a scan (default: the latest succeeded scan), most severe first; only accounts in the token\'s scope' })
  @ApiZodQuery(listFindingsQuerySchema)
  @ApiOkResponse({ type: FindingPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid filter or paging' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'scanId names no scan' })
  // The body is a FindingPageDto already serialised by the service (bodies of cached pages are reused).
  @Header('Content-Type', 'application/json; charset=utf-8')
  list(
    @Query(new ZodValidationPipe(listFindingsQuerySchema, 'query')) query: ListFindingsQuery,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: HeaderSink,
  ): Promise<string> {
    // The deprecated parameters still work, and say so (issue 21 item 6: one paging style, `after`).
    if (query.cursor !== undefined) markDeprecated(res, 'cursor: send it as after');
    else if (query.offset > 0) markDeprecated(res, 'offset: follow nextCursor as after');
    return this.findings.listJson(query, principal);
  }
}
