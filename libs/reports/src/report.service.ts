/**
 * Builds, stores and delivers the weekly report of one period (the worker's cron; `POST /v1/reports` builds one
 * now, under a period key of its own, without delivery). Exactly one run per (period, scope) even with several
 * workers: the `reports` row is claimed first (unique key), the losers stop. Webhook delivery is retried
 * with exponential backoff (cockatiel); its outcome and attempts are written to the row, and exported by
 * `/metrics` (`fleet_audit_report_deliveries_failed`), so a failed delivery is never silent.
 */
import type { Store } from '@app/store';
import { cockatielPackage } from './cockatiel.lazy';
import { buildReport } from './report.builder';
import type { ReportDocument } from './report.model';
import { loadReportInput } from './report.source';
import { renderReportMarkdown } from './render/markdown.renderer';
import { deliverToChats, type ChatDeliveryOptions, type ChatRoute } from './chat/chat-delivery';

/** Webhook delivery settings. */
export interface ReportWebhookOptions {
  /** Receives a POST with JSON `{reportId, link, period, summary, markdown}`. Never logged in full (may hold a secret path). */
  url: string;
  /** Base of the link sent (e.g. `https://audit.example.com`): the link is `<base>/v1/reports/<id>?format=html`. */
  linkBase?: string;
  /** Attempts in all (default 5). */
  maxAttempts?: number;
  /** First retry delay (ms, default 1000), doubling up to `maxDelayMs` (default 30000). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt timeout (ms, default 10000). */
  timeoutMs?: number;
}

/** What one run did. */
export type WeeklyReportResult =
  | { status: 'built'; reportId: string; delivery: 'none' | 'delivered' | 'failed' }
  | { status: 'skipped'; reason: string }
  | { status: 'failed'; reportId: string; error: string };

/** The scope key of a report row: `all` or the sorted accounts. */
export function scopeKeyOf(accounts?: readonly string[]): string {
  return accounts && accounts.length > 0 ? [...accounts].sort().join(',') : 'all';
}

/** The Markdown summary sent with a webhook: the report's Markdown up to its change lists. */
export function markdownSummaryOf(doc: ReportDocument): string {
  const md = renderReportMarkdown(doc);
  const cut = md.indexOf('\n### By check');
  return cut >= 0 ? `${md.slice(0, cut)}\n` : md;
}

/** Builds, stores and delivers weekly reports. */
export class WeeklyReportService {
  /**
   * @param store the store (reports, scans, findings, waivers, quota samples)
   * @param log where warnings go (delivery failures; never the webhook URL)
   */
  constructor(
    private readonly store: Store,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /**
   * Build and store the report of `periodKey` (once per period and scope), then deliver it.
   * @param periodKey the cron tick (ISO 8601) or any unique key
   * @param opts.now clock of the report (default now); `accounts` scope; `webhook` delivery; `chats` routes to chat
   *   services (chat-delivery.ts), each the whole report or one team's part
   */
  async runForPeriod(
    periodKey: string,
    opts: { now?: Date; accounts?: readonly string[]; webhook?: ReportWebhookOptions; chats?: { routes: readonly ChatRoute[] } & ChatDeliveryOptions; title?: string } = {},
  ): Promise<WeeklyReportResult> {
    const now = opts.now ?? new Date();
    const id = await this.store.reports.claim(periodKey, scopeKeyOf(opts.accounts), now);
    if (id === null) return { status: 'skipped', reason: `the report of ${periodKey} was already claimed by another worker` };
    let doc: ReportDocument;
    try {
      doc = buildReport(
        await loadReportInput(this.store, { now, until: now, ...(opts.accounts ? { accounts: opts.accounts } : {}), ...(opts.title !== undefined ? { title: opts.title } : {}) }),
      );
      await this.store.reports.complete(
        id,
        { document: doc as unknown as Record<string, unknown>, summary: doc.summary as unknown as Record<string, unknown>, periodStart: doc.period.start, periodEnd: doc.period.end, scanId: doc.scan?.id ?? null },
        new Date(),
      );
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      await this.store.reports.fail(id, error);
      this.log(`weekly report ${periodKey} failed: ${error}`);
      return { status: 'failed', reportId: id, error };
    }
    // Chat routes (DingTalk, Lark, Slack; per team) in their own formats; failures are logged, never the URL.
    if (opts.chats && opts.chats.routes.length > 0) await deliverToChats(this.store, id, doc, opts.chats.routes, opts.chats, this.log);
    if (!opts.webhook) return { status: 'built', reportId: id, delivery: 'none' };
    return { status: 'built', reportId: id, delivery: await this.deliver(id, doc, opts.webhook) };
  }

  /**
   * POST the report to the webhook with retries; the row records attempts and the outcome.
   * @returns `delivered` or `failed` (after every attempt)
   */
  async deliver(reportId: string, doc: ReportDocument, webhook: ReportWebhookOptions): Promise<'delivered' | 'failed'> {
    const link = `${(webhook.linkBase ?? '').replace(/\/$/, '')}/v1/reports/${reportId}?format=html`;
    const body = JSON.stringify({ reportId, link, period: doc.period, scope: doc.scope, summary: { ...doc.summary.changes, open: doc.summary.open, findings: doc.summary.findings }, markdown: markdownSummaryOf(doc) });
    let attempts = 0;
    let lastError = '';
    await this.store.reports.setDelivery(reportId, { status: 'pending', attempts: 0 });
    const { ExponentialBackoff, handleAll, retry } = cockatielPackage();
    const policy = retry(handleAll, {
      maxAttempts: Math.max(0, (webhook.maxAttempts ?? 5) - 1),
      backoff: new ExponentialBackoff({ initialDelay: webhook.initialDelayMs ?? 1000, maxDelay: webhook.maxDelayMs ?? 30_000 }),
    });
    try {
      await policy.execute(async () => {
        attempts += 1;
        const res = await fetch(webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'ack-fleet-audit-report' },
          body,
          signal: AbortSignal.timeout(webhook.timeoutMs ?? 10_000),
        }).catch((e: unknown) => {
          lastError = `request failed: ${e instanceof Error ? e.message : String(e)}`;
          throw new Error(lastError);
        });
        if (!res.ok) {
          lastError = `webhook answered HTTP ${res.status}`;
          throw new Error(lastError);
        }
        await res.body?.cancel();
      });
      await this.store.reports.setDelivery(reportId, { status: 'delivered', attempts, deliveredAt: new Date() });
      return 'delivered';
    } catch {
      await this.store.reports.setDelivery(reportId, { status: 'failed', attempts, error: lastError });
      this.log(`weekly report ${reportId}: webhook delivery failed after ${attempts} attempt(s): ${lastError}`);
      return 'failed';
    }
  }
}
