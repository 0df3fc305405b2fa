import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { REPORT_CONTENT_TYPES, renderReport, scopeKeyOf, teamReportDocument, WeeklyReportService, type ReportDocument, type ReportFormat } from '@app/reports';
import { encodeCursor, scopeIncludes, Store, StoreError, type Principal, type StoredReportListItem } from '@app/store';
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
 * others are absent. A team-scoped principal reads each report as its team's rendition (libs/reports
 * teamReportDocument: the report rebuilt from its stored scans with the team's reads), and the listing carries no
 * whole-report summary for it (`summary: null`: the counts of every team) and a scope key of its own accounts only.
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
    const page = await this.listUnnarrowed(q, principal);
    return principal.teamScope === undefined ? page : { ...page, items: page.items.map((i) => asTeamSees(i, principal)) };
  }

  private async listUnnarrowed(q: { limit: number; offset?: number; after?: string }, principal: Principal): Promise<ListPage<StoredReportListItem> & { offset: number }> {
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
   * Build and store a report now (`POST /v1/reports`), as the weekly cron does but for this request: the period ends
   * now (the 7 days ending at the latest succeeded scan), the scope is the accounts asked for, else the token's own
   * (every account for an all-accounts token). Not sent to the webhook: the caller has its id. Runs in the request
   * (seconds: `npm run bench:report` times the 5,000-cluster report); the operator role limits who may.
   * @param body.accounts the report's accounts (each within the token's scope); body.title its title
   * @returns the stored report as listed (status `ready`, or `failed` with its error)
   * @throws StoreError FORBIDDEN when an account asked for is outside the token's scope
   */
  async create(body: { accounts?: string[]; title?: string }, principal: Principal): Promise<StoredReportListItem> {
    const outside = (body.accounts ?? []).filter((a) => !scopeIncludes(principal.accountScope, a));
    if (outside.length > 0) throw new StoreError('FORBIDDEN', `accounts outside the token's scope: ${outside.join(', ')}`);
    const accounts = body.accounts ?? (principal.accountScope.all ? undefined : [...principal.accountScope.accountIds]);
    const now = new Date();
    const result = await new WeeklyReportService(this.store).runForPeriod(`on-demand:${now.toISOString()}:${randomUUID()}`, {
      now,
      ...(accounts ? { accounts } : {}),
      ...(body.title !== undefined ? { title: body.title } : {}),
    });
    if (result.status === 'skipped') throw new StoreError('CONFLICT', result.reason);
    const stored = await this.store.reports.get(result.reportId, principal);
    if (!stored) throw new StoreError('NOT_FOUND', `report ${result.reportId} not found`);
    // As listed: the document is rendered by GET /v1/reports/{id}.
    const item: StoredReportListItem = { ...stored };
    delete (item as Partial<typeof stored>).document;
    if (principal.teamScope === undefined) return item;
    if (stored.document === null) return asTeamSees(item, principal);
    // A team-scoped token: the summary of its team's rendition of the report it built.
    const mine = await teamReportDocument(this.store, stored.document as unknown as ReportDocument, principal);
    return { ...asTeamSees(item, principal), summary: mine.summary as unknown as Record<string, unknown> };
  }

  /**
   * One report rendered as `format` (json: the document itself; html, md, csv: libs/reports renderers); for a
   * team-scoped principal, its team's rendition (`scope.teams` set).
   * @throws StoreError NOT_FOUND when the report is absent, outside the scope, or not ready (naming its status), and
   *   for a team rendition when the report's scan is no longer stored; ScanPrunedError when retention pruned it
   */
  async render(id: string, format: ReportFormat, principal: Principal): Promise<RenderedReport> {
    const report = await this.store.reports.get(id, principal);
    if (!report) throw new StoreError('NOT_FOUND', `report ${id} not found`);
    if (report.status !== 'ready' || report.document === null) throw new StoreError('NOT_FOUND', `report ${id} is ${report.status}${report.error ? `: ${report.error}` : ''}`);
    const stored = report.document as unknown as ReportDocument;
    const doc = principal.teamScope === undefined ? stored : await teamReportDocument(this.store, stored, principal);
    return {
      body: renderReport(doc, format),
      contentType: REPORT_CONTENT_TYPES[format],
      disposition: format !== 'json' ? `inline; filename="weekly-report-${id}.${format}"` : undefined,
    };
  }
}

/**
 * A listed report as a team-scoped principal sees it: no summary (the whole report's counts) and its scope key
 * narrowed to the principal's accounts (the key lists the report's accounts, which may include others).
 */
function asTeamSees(item: StoredReportListItem, principal: Principal): StoredReportListItem {
  const own = principal.accountScope.all ? undefined : new Set(principal.accountScope.accountIds);
  const scopeKey = own === undefined ? item.scopeKey : scopeKeyOf(item.scopeKey === 'all' ? [...own] : item.scopeKey.split(',').filter((a) => own.has(a)));
  return { ...item, scopeKey, summary: null };
}
