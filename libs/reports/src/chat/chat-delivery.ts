/**
 * Report delivery to chat services (chat-message.ts formats), per team: each route names a service, its webhook URL
 * (a secret: it embeds the robot's token; never logged) and optionally a team, whose message counts only the findings
 * of that team's clusters (findings.team, libs/domain owners.ts) in the report's scan and the previous period's, after
 * waivers (the report's team rendition, report-team.ts).
 * Routes come from `REPORT_CHAT_WEBHOOKS` (JSON, parseChatRoutes).
 */
import { z } from 'zod';
import { SEVERITIES, TEAM_NAME, type Severity } from '@app/domain';
import type { Store } from '@app/store';
import { cockatielPackage } from '../cockatiel.lazy';
import { ALL_ACCOUNTS, accountsScope } from '@app/store/model';
import type { ReportDocument } from '../report.model';
import { teamReportDocument } from '../report-team';
import { CHAT_KINDS, chatMessage, type ChatKind, type ChatReportSummary } from './chat-message';

/** One delivery route: a chat service's webhook, for the whole report or one team. */
export interface ChatRoute {
  kind: ChatKind;
  /** The webhook URL (DingTalk `oapi.dingtalk.com/robot/send?access_token=...`, Lark `.../bot/v2/hook/...`, Slack `hooks.slack.com/services/...`). */
  url: string;
  /** Only this team's findings; absent: the report's whole scope. */
  team?: string;
}

/** Boundary schema of REPORT_CHAT_WEBHOOKS: a JSON array of routes. */
export const chatRoutesSchema = z
  .array(
    z.strictObject({
      kind: z.enum(CHAT_KINDS),
      url: z.string().regex(/^https?:\/\/\S+$/, 'an http:// or https:// URL'),
      team: z.string().regex(TEAM_NAME, 'a team name (a letter or digit, then up to 62 letters, digits, ".", "_" or "-")').optional(),
    }),
  )
  .max(100);

/**
 * The routes of a REPORT_CHAT_WEBHOOKS value.
 * @throws Error `REPORT_CHAT_WEBHOOKS: <path>: <problem>` for text that is not JSON or not a list of routes (never the URLs)
 */
export function parseChatRoutes(text: string): ChatRoute[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('REPORT_CHAT_WEBHOOKS: not JSON (expected [{"kind": "dingtalk|lark|slack", "url": "https://...", "team": "payments"}])');
  }
  const parsed = chatRoutesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`REPORT_CHAT_WEBHOOKS: ${issue.path.length ? issue.path.join('.') : '(top)'}: ${issue.message}`);
  }
  return parsed.data.map((r) => ({ kind: r.kind, url: r.url, ...(r.team !== undefined ? { team: r.team } : {}) }));
}

/** The link back to a report (its HTML view): `<base>/v1/reports/<id>?format=html`. */
export function reportLink(linkBase: string | undefined, reportId: string): string {
  return `${(linkBase ?? '').replace(/\/$/, '')}/v1/reports/${reportId}?format=html`;
}

/**
 * The summary of a report document (its scope): open findings after waivers (total and by severity), waived ones
 * apart, new and resolved since the previous period, the checks with the most open findings.
 * @param team the team of a team's rendition (teamReportDocument), else null
 */
export function fleetChatSummary(doc: ReportDocument, link: string, team: string | null = null): ChatReportSummary {
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, doc.summary.bySeverity[s]?.open ?? 0])) as Record<Severity, number>;
  return {
    title: doc.title,
    period: doc.period,
    team,
    open: doc.summary.open,
    waived: doc.summary.waived,
    bySeverity,
    new: doc.summary.changes.new,
    resolved: doc.summary.changes.resolved,
    topChecks: doc.summary.byCheck
      .filter((c) => c.open > 0)
      .sort((a, b) => b.open - a.open || (a.checkId < b.checkId ? -1 : 1))
      .slice(0, 5)
      .map((c) => ({ checkId: c.checkId, open: c.open })),
    link,
  };
}

/**
 * One team's summary: the summary of the report's team rendition (teamReportDocument: the findings of its clusters
 * in the report's scan and the previous period's, the waivers that cover them), so `open` counts after waivers and
 * `waived` apart, exactly as the team's token reads the report.
 */
export async function teamChatSummary(store: Store, doc: ReportDocument, team: string, link: string): Promise<ChatReportSummary> {
  const accountScope = doc.scope.accounts === 'all' ? ALL_ACCOUNTS : accountsScope(doc.scope.accounts);
  return fleetChatSummary(await teamReportDocument(store, doc, { accountScope, teamScope: [team] }), link, team);
}

/** Retry settings of one chat delivery (as the report webhook's). */
export interface ChatDeliveryOptions {
  linkBase?: string;
  maxAttempts?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  timeoutMs?: number;
}

/**
 * POST the report to every route in its own format (retried with backoff).
 * @param log where failures go: `weekly report <id>: <kind> delivery[ for team T] failed after N attempt(s): <why>` (never the URL)
 * @returns per route, in order: `delivered` or `failed`
 */
export async function deliverToChats(
  store: Store,
  reportId: string,
  doc: ReportDocument,
  routes: readonly ChatRoute[],
  opts: ChatDeliveryOptions,
  log: (message: string) => void,
): Promise<('delivered' | 'failed')[]> {
  const link = reportLink(opts.linkBase, reportId);
  const out: ('delivered' | 'failed')[] = [];
  for (const route of routes) {
    const summary = route.team === undefined ? fleetChatSummary(doc, link) : await teamChatSummary(store, doc, route.team, link);
    const body = JSON.stringify(chatMessage(route.kind, summary));
    let attempts = 0;
    let lastError = '';
    const { ExponentialBackoff, handleAll, retry } = cockatielPackage();
    const policy = retry(handleAll, {
      maxAttempts: Math.max(0, (opts.maxAttempts ?? 5) - 1),
      backoff: new ExponentialBackoff({ initialDelay: opts.initialDelayMs ?? 1000, maxDelay: opts.maxDelayMs ?? 30_000 }),
    });
    try {
      await policy.execute(async () => {
        attempts += 1;
        const res = await fetch(route.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'ack-fleet-audit-report' },
          body,
          signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
        }).catch((e: unknown) => {
          lastError = `request failed: ${e instanceof Error ? e.message : String(e)}`;
          throw new Error(lastError);
        });
        if (!res.ok) {
          lastError = `${route.kind} answered HTTP ${res.status}`;
          throw new Error(lastError);
        }
        // DingTalk and Lark answer HTTP 200 with an error code in the body (`errcode`, `code`; 0 = sent).
        const answer = route.kind === 'slack' ? undefined : ((await res.json().catch(() => undefined)) as { errcode?: unknown; code?: unknown; errmsg?: unknown; msg?: unknown } | undefined);
        const code = answer?.errcode ?? answer?.code;
        if (code !== undefined && code !== 0) {
          lastError = `${route.kind} refused the message: ${String(code)} ${String(answer?.errmsg ?? answer?.msg ?? '').slice(0, 200)}`;
          throw new Error(lastError);
        }
        if (route.kind === 'slack') await res.body?.cancel();
      });
      out.push('delivered');
    } catch {
      log(`weekly report ${reportId}: ${route.kind} delivery${route.team ? ` for team ${route.team}` : ''} failed after ${attempts} attempt(s): ${lastError}`);
      out.push('failed');
    }
  }
  return out;
}
