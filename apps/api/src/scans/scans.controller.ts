import { Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiForbiddenResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole, TeamAware } from '../common/bearer-auth.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { scanIdSchema } from '../common/request.schemas';
import { ApiRoute, ZodBody, ZodParam, ZodQuery } from '../common/route.decorator';
import { ApiZodBody } from '../common/zod-openapi.util';
import { LaunchScanResponseDto, ScanDto, ScanPageDto } from './scan.dto';
import { launchScanBodySchema, listScansQuerySchema, scanDiffQuerySchema, type LaunchScanBody, type ListScansQuery, type ScanDiffQueryParams } from './scans.schemas';
import { ScanDiffPageDto } from './scan-diff.dto';
import { ScansService } from './scans.service';
import { markDeprecated, type HeaderSink } from '../common/listing.util';

/** `/v1/scans`: list, read and launch scans. */
@TeamAware()
@BearerController('v1/scans', 'scans', 'Invalid query, path or body')
export class ScansController {
  constructor(private readonly scans: ScansService) {}

  @Get()
  @ApiRoute({ summary: "List scans, newest first; page with `limit` and `after` (the previous page's `nextCursor`)", query: listScansQuerySchema, ok: ScanPageDto })
  list(@ZodQuery(listScansQuerySchema) query: ListScansQuery, @CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) res: HeaderSink): Promise<ScanPageDto> {
    if (query.offset !== undefined) markDeprecated(res, 'offset: follow nextCursor as after');
    return this.scans.list(query, principal);
  }

  @Get(':id')
  @ApiRoute({ summary: "One scan with its coverage; summary, coverage and skipped results cover only the token's accounts (and teams)", param: { name: 'id', schema: { type: 'string', format: 'uuid' } }, ok: ScanDto, notFound: true })
  get(@ZodParam('id', scanIdSchema) id: string, @CurrentPrincipal() principal: Principal): Promise<ScanDto> {
    return this.scans.get(id, principal);
  }

  @Get(':id/diff')
  @ApiRoute({
    summary:
      "How scan {id} differs from scan `against` by finding fingerprint: new, resolved, persisting (same severity), severityChanged; counts and items cover only the token's accounts (and teams)",
    description:
      'Without `against` the baseline is the previous succeeded scan of the same fleet (404 when there is none). ' +
      'Either order is allowed: `new` = in {id}, not in `against`; `resolved` = in `against`, not in {id}; swapping the ids swaps new and resolved (with `against` newer, the diff runs backward in time). Both scans must have succeeded and be of one fleet.',
    param: { name: 'id', schema: { type: 'string', format: 'uuid' }, description: 'The scan compared (older or newer than `against`)' },
    query: scanDiffQuerySchema,
    ok: ScanDiffPageDto,
    badRequest: 'Invalid query, or scans of different fleets (INVALID_ARGUMENT naming both ids and fleets)',
    notFound: 'Either scan does not exist, or `against` is omitted and no earlier succeeded scan of the fleet exists',
    conflict: 'Either scan is running or failed (CONFLICT naming it)',
  })
  diff(@ZodParam('id', scanIdSchema) id: string, @ZodQuery(scanDiffQuerySchema) q: ScanDiffQueryParams, @CurrentPrincipal() principal: Principal): Promise<ScanDiffPageDto> {
    return this.scans.diffAgainst(id, q, principal);
  }

  @Post()
  @HttpCode(202)
  @RequireRole('operator')
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: "The token's role is below operator, or its account scope does not cover every account the source reads (the message names those outside it)" })
  @ApiOperation({
    summary: 'Queue a scan of a configured source; answers 202 at once, before the scan runs (role operator or admin)',
    description:
      'The scan row is created with status `running` and the scan is queued: on the BullMQ workers when Redis is configured, ' +
      'otherwise in this API process\'s own queue, which runs one scan at a time in a child process (never on the request path). ' +
      'Poll the `Location` (GET /v1/scans/{id}) until the status is `succeeded` or `failed`. ' +
      'One scan per source runs at a time: while one is running, the request joins it and answers 202 with that scan\'s id and `joined: true`. ' +
      'Each token may ask for SCAN_LAUNCHES_PER_MINUTE launches a minute (default 10; 429 RATE_LIMITED with Retry-After past that).',
  })
  @ApiZodBody(launchScanBodySchema)
  @ApiAcceptedResponse({
    type: LaunchScanResponseDto,
    headers: { Location: { description: 'The queued scan: /v1/scans/{id}', schema: { type: 'string' } } },
  })
  @ApiTooManyRequestsResponse({
    type: ErrorResponseDto,
    description: 'SCAN_QUEUE_FULL: SCAN_QUEUE_DEPTH scans already wait behind the running one; RATE_LIMITED: more than SCAN_LAUNCHES_PER_MINUTE (default 10) launches from this token in a minute',
    headers: { 'Retry-After': { description: 'Seconds until a slot is likely free', schema: { type: 'integer' } } },
  })
  @ApiServiceUnavailableResponse({
    type: ErrorResponseDto,
    description: 'This API process cannot start scans, is shutting down, or the scan queue (Redis) did not accept the scan within 2 s; no scan row is left behind',
    headers: { 'Retry-After': { description: 'Seconds after which a retry may succeed', schema: { type: 'integer' } } },
  })
  async launch(
    @ZodBody(launchScanBodySchema) body: LaunchScanBody,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: { setHeader(name: string, value: string): unknown },
  ): Promise<LaunchScanResponseDto> {
    const launched = await this.scans.launch(body, principal);
    res.setHeader('Location', `/v1/scans/${launched.scanId}`);
    return launched;
  }
}
