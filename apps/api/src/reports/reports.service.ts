import { Injectable } from '@nestjs/common';
import { REPORT_CONTENT_TYPES, renderReport, type ReportDocument, type ReportFormat } from '@app/reports';
import { encodeCursor, Store, StoreError, type Principal, type StoredReportListItem } from '@app/store';
import type { ListPage } from '../common/listing.util';

/** A report rendered for sending: its body and its content type. */
export interface RenderedReport {
  body: string;
  contentType: string;
  /** `inline; filename=...` for the non-JSON renderings, else undefined. */
  disposition: string | undefined;
}

/**
 * Stored weekly compliance reports (built by the worker's weekly cron) as `/v1/reports` serves them. Scope
 *: a report is visible only when every account it covers is in the principal's scope (in SQL);
 * others are absent.
 */
@Injectable()
export class ReportsService {
  constructor(private readonly store: Store) {}

  /**
   * A page of the visible reports, newest first (summary counts and webhook delivery state): keyset paging by `after`
   * (creation time and id); the deprecated `offset` pages as before (its answer also carries `nextCursor`).
   * @throws StoreError INVALID_ARGUMENT for a malformed cursor
   */
  async list(q: { limit: number; offset?: number; after?: string }, principal: Principal): Promise<ListPage<StoredReportListItem> & { offset: number }> {
    if (q.offset !== undefined) {
      const page = await this.store.reports.list({ limit: q.limit, offset: q.offset }, principal);
      const last = page.items.at(-1);
      const more = q.offset + page.items.length < page.total;
      return { ...page, limit: q.limit, nextCursor: more && last ? encodeCursor([last.createdAt, last.id]) : null, offset: q.offset };
    }
    const page = await this.store.reports.page({ first: q.limit, ...(q.after !== undefined ? { after: q.after } : {}) }, principal);
    return {
      items: page.edges.map((e) => e.node),
      total: page.total,
      limit: q.limit,
      nextCursor: page.hasNextPage ? (page.edges.at(-1)?.cursor ?? null) : null,
      offset: 0,
    };
  }

  /**
   * One report rendered as `format` (json: the document itself; html, md, csv: libs/reports renderers).
   * @throws StoreError NOT_FOUND when the report is absent, outside the scope, or not ready (naming its status)
   */
  async render(id: string, format: ReportFormat, principal: Principal): Promise<RenderedReport> {
    const report = await this.store.reports.get(id, principal);
    if (!report) throw new StoreError('NOT_FOUND', `report ${id} not found`);
    if (report.status !== 'ready' || report.document === null) throw new StoreError('NOT_FOUND', `report ${id} is ${report.status}${report.error ? `: ${report.error}` : ''}`);
    return {
      body: renderReport(report.document as unknown as ReportDocument, format),
      contentType: REPORT_CONTENT_TYPES[format],
      disposition: format !== 'json' ? `inline; filename="weekly-report-${id}.${format}"` : undefined,
    };
  }
}
