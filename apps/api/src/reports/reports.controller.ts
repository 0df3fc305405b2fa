import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { REPORT_CONTENT_TYPES, renderReport, type ReportDocument, type ReportFormat } from '@app/reports';
import { Store, StoreError, type Principal, type StoredReportListItem } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { z } from 'zod';
import { ErrorResponseDto } from '../common/error-response.dto';
import { pageQueryFields } from '../common/request.schemas';
import { ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';

/** Query of `GET /v1/reports`. */
export const listReportsQuerySchema = z.strictObject({ ...pageQueryFields });
/** Query of `GET /v1/reports/{id}`. */
export const getReportQuerySchema = z.strictObject({
  format: z.enum(['json', 'html', 'md', 'csv'], 'must be one of json, html, md, csv').optional().default('json').describe('Rendering (default json: the document)'),
});

/** The parts of Express's response used to send a rendering. */
interface RawResponse {
  status(code: number): RawResponse;
  setHeader(name: string, value: string): unknown;
  send(body: string): unknown;
}

/**
 * `/v1/reports`: stored weekly compliance reports (built by the worker's weekly cron) with their webhook
 * delivery state, and each report rendered on request as JSON (the document), HTML, Markdown or CSV.
 *
 * Scope (issue 11): a report is made for a scope (every account, or a list of accounts). A token sees a
 * report only when every account it covers is in the token's scope (filtered in SQL): all-accounts
 * reports are for all-accounts tokens; a team token sees reports made for its accounts. Others answer
 * 404 as if absent. To give a team its weekly report, schedule one for its accounts
 * (`REPORT_ACCOUNTS` / `fleet-audit report --accounts`).
 */
@ApiTags('reports')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@Controller('v1/reports')
export class ReportsController {
  constructor(private readonly store: Store) {}

  @Get()
  @ApiOperation({ summary: "Stored weekly reports whose accounts are all in the token's scope, newest first (summary counts and webhook delivery state)" })
  @ApiZodQuery(listReportsQuerySchema)
  @ApiOkResponse({ description: '{items, total, limit, offset}', schema: { type: 'object' } })
  async list(
    @Query(new ZodValidationPipe(listReportsQuerySchema, 'query')) q: z.output<typeof listReportsQuerySchema>,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ items: StoredReportListItem[]; total: number; limit: number; offset: number }> {
    const page = await this.store.reports.list(q, principal);
    return { ...page, limit: q.limit, offset: q.offset };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One report, rendered: json (the document, schema docs/schemas/report.schema.json), html (self-contained), md, csv' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiZodQuery(getReportQuerySchema)
  @ApiProduces('application/json', 'text/html', 'text/markdown', 'text/csv')
  @ApiOkResponse({ description: 'The rendering' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such report within the token's accounts, or not built (yet)" })
  async get(
    @Param('id', new ZodValidationPipe(z.guid('must be a uuid'), 'path.id')) id: string,
    @Query(new ZodValidationPipe(getReportQuerySchema, 'query')) q: z.output<typeof getReportQuerySchema>,
    @Res() res: RawResponse,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    const report = await this.store.reports.get(id, principal);
    if (!report) throw new StoreError('NOT_FOUND', `report ${id} not found`);
    if (report.status !== 'ready' || report.document === null) throw new StoreError('NOT_FOUND', `report ${id} is ${report.status}${report.error ? `: ${report.error}` : ''}`);
    const format = q.format as ReportFormat;
    res.setHeader('Content-Type', REPORT_CONTENT_TYPES[format]);
    res.setHeader('Cache-Control', 'no-store');
    if (format !== 'json') res.setHeader('Content-Disposition', `inline; filename="weekly-report-${id}.${format}"`);
    res.status(200).send(renderReport(report.document as unknown as ReportDocument, format));
  }
}
