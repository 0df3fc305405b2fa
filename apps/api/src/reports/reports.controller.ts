import { Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces } from '@nestjs/swagger';
import type { ReportFormat } from '@app/reports';
import type { Principal, StoredReportListItem } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { z } from 'zod';
import { ErrorResponseDto } from '../common/error-response.dto';
import { afterOrOffset, deprecatedOffsetField, listPageQueryFields } from '../common/request.schemas';
import { markDeprecated, type ListPage } from '../common/listing.util';
import { ZodBody, ZodParam, ZodQuery } from '../common/route.decorator';
import { ApiZodBody, ApiZodQuery } from '../common/zod-openapi.util';
import { RequireRole, TeamAware } from '../common/bearer-auth.guard';
import { ReportsService } from './reports.service';

/** Query of `GET /v1/reports`: `limit` + `after` (keyset on creation time and id); `offset` deprecated. */
export const listReportsQuerySchema = afterOrOffset(z.strictObject({ ...listPageQueryFields, offset: deprecatedOffsetField }));
/** Query of `GET /v1/reports/{id}`. */
export const getReportQuerySchema = z.strictObject({
  format: z.enum(['json', 'html', 'md', 'csv'], 'must be one of json, html, md, csv').optional().default('json').describe('Rendering (default json: the document)'),
});

/** Body of `POST /v1/reports` (all optional: `{}` builds the token's own scope now). */
export const createReportBodySchema = z
  .strictObject({
    accounts: z
      .array(z.string().regex(/^\d{1,32}$/, 'must be an account id (digits)'), 'must be a list of account ids')
      .min(1, 'must name at least one account')
      .max(100, 'must name at most 100 accounts')
      .optional()
      .describe("The report's accounts, each within the token's scope (default: the token's accounts; every account for an all-accounts token)"),
    title: z.string().min(1).max(200, 'must be at most 200 characters').optional().describe('Report title'),
  })
  .optional();

/** The parts of Express's response used to send a rendering. */
interface RawResponse {
  status(code: number): RawResponse;
  setHeader(name: string, value: string): unknown;
  send(body: string): unknown;
}

/**
 * `/v1/reports`: stored weekly compliance reports (built by the worker's weekly cron, or now by `POST` with the
 * operator role) with their webhook
 * delivery state, and each report rendered on request as JSON (the document), HTML, Markdown or CSV.
 *
 * Scope: a report is made for a scope (every account, or a list of accounts). An account-scoped token sees a
 * report only when every account it covers is in the token's scope (filtered in SQL): all-accounts
 * reports are for all-accounts tokens. A team-scoped token sees every report covering one of its accounts, read as its
 * team's rendition (the report rebuilt from its scans with the team's reads; `scope.teams` set), and the listing
 * carries no fleet-wide summary for it. Others answer 404 as if absent.
 */
@TeamAware()
@BearerController('v1/reports', 'reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get()
  @ApiOperation({ summary: "Stored weekly reports whose accounts are all in the token's scope, newest first (summary counts and webhook delivery state); page with `limit` and `after`" })
  @ApiZodQuery(listReportsQuerySchema)
  @ApiOkResponse({ description: '{items, total, limit, nextCursor (pass as after; null on the last page), offset (deprecated: the offset given, else 0)}', schema: { type: 'object' } })
  list(
    @ZodQuery(listReportsQuerySchema) q: z.output<typeof listReportsQuerySchema>,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: RawResponse,
  ): Promise<ListPage<StoredReportListItem> & { offset: number }> {
    if (q.offset !== undefined) markDeprecated(res, 'offset: follow nextCursor as after');
    return this.reports.list(q, principal);
  }

  @Post()
  @HttpCode(201)
  @RequireRole('operator')
  @ApiOperation({
    summary: "Build and store a report now (operator): the 7 days ending at the latest succeeded scan, for the accounts asked for or the token's own; not sent to the webhook",
    description: 'Answers when the report is stored (`status` ready, or failed with `error`), with `Location: /v1/reports/{id}`; render it with GET /v1/reports/{id}?format=html.',
  })
  @ApiZodBody(createReportBodySchema)
  @ApiCreatedResponse({ description: 'The stored report as listed (no document)', schema: { type: 'object' }, headers: { Location: { description: '/v1/reports/{id}', schema: { type: 'string' } } } })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: "Role below operator, or an account outside the token's scope (named)" })
  async create(
    @ZodBody(createReportBodySchema) body: z.output<typeof createReportBodySchema>,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: RawResponse,
  ): Promise<StoredReportListItem> {
    const report = await this.reports.create(body ?? {}, principal);
    res.setHeader('Location', `/v1/reports/${report.id}`);
    return report;
  }

  @Get(':id')
  @ApiOperation({ summary: 'One report, rendered: json (the document, schema docs/schemas/report.schema.json), html (self-contained), md, csv' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiZodQuery(getReportQuerySchema)
  @ApiProduces('application/json', 'text/html', 'text/markdown', 'text/csv')
  @ApiOkResponse({ description: 'The rendering' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such report within the token's accounts, or not built (yet)" })
  async get(
    @ZodParam('id', z.guid('must be a uuid')) id: string,
    @ZodQuery(getReportQuerySchema) q: z.output<typeof getReportQuerySchema>,
    @Res() res: RawResponse,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    const r = await this.reports.render(id, q.format as ReportFormat, principal);
    res.setHeader('Content-Type', r.contentType);
    res.setHeader('Cache-Control', 'no-store');
    if (r.disposition !== undefined) res.setHeader('Content-Disposition', r.disposition);
    res.status(200).send(r.body);
  }
}
