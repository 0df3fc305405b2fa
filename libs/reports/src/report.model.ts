/**
 * The weekly compliance report document: ONE versioned model, rendered as JSON (the model
 * itself), Markdown, CSV and HTML (libs/reports/src/render). JSON schema: docs/schemas/report.schema.json.
 * Anchors: research `next-features-anchors.md` §3 R1 (one model, four renderers), R2 (week-over-week
 * diff by fingerprint, waivers, 12-week trend), R3 (determinism).
 *
 * Times are ISO 8601 UTC; counts are integers; ratios are fractions (0.8 = 80 %).
 */
import type { CoverageDataset, ResourceKind, Severity, WaiverCategory, WaiverState } from '@app/domain';

/** Version of the document shape; bumped on any incompatible change. */
export const REPORT_SCHEMA_VERSION = 1;

/** The `$id`-like name of the document shape. */
export const REPORT_SCHEMA = 'ack-fleet-audit/weekly-report';

/** Where a current finding stands against the previous period and the waivers. */
export type ReportFindingStatus = 'new' | 'persisting' | 'waived';

/** A finding as listed in the report. */
export interface ReportFinding {
  fingerprint: string;
  checkId: string;
  severity: Severity;
  /** `clusterName`: the cluster's name (absent in documents made before findings carried it). */
  resource: { kind: ResourceKind; id: string; accountId: string; regionId: string; clusterId: string | null; clusterName?: string | null };
  message: string;
  /** What to do about it (the check's remediation text, libs/checks); absent in documents made before reports carried it. */
  remediation?: string;
  /** new / persisting (vs the previous period's last scan) / waived (an active waiver covers it); `resolved` in the resolved list. */
  status: ReportFindingStatus | 'resolved';
  /** Severity in the previous period's last scan, when it was there (null: new or no previous scan). */
  previousSeverity: Severity | null;
  /** True when a waiver covered it and expired: it counts again. */
  waiverExpired: boolean;
  /** The active (waived) or expired waiver covering it; null otherwise. */
  waiver: { id: string; owner: string; category: WaiverCategory; expiresAt: string } | null;
}

/** Open / waived split of a group of findings (open = not covered by an active waiver). */
export interface OpenWaived {
  total: number;
  open: number;
  waived: number;
}

/** A waiver as listed in the report. */
export interface ReportWaiver {
  id: string;
  state: WaiverState;
  checkId: string;
  scope: string;
  resource: string;
  owner: string;
  category: WaiverCategory;
  ticket: string | null;
  expiresAt: string;
  /** Findings of the report's scan it covers (count). */
  matched: number;
}

/** A quota high in usage or close to exhaustion. */
export interface ReportQuota {
  checkId: string;
  resource: { kind: ResourceKind; id: string; accountId: string; regionId: string; clusterId: string | null };
  used: number;
  limit: number;
  ratio: number;
  /** Forecast status (libs/forecast), null when not forecast. */
  forecastStatus: string | null;
  /** p10 (early) time of exhaustion, ISO 8601; null when none. */
  exhaustsAtP10: string | null;
}

/** One week of the trend: the last succeeded scan of the week ending at `weekEnding`. */
export interface ReportTrendPoint {
  weekEnding: string;
  /** Null when no scan succeeded that week (a gap, never zero findings). */
  scanId: string | null;
  bySeverity: Record<Severity, number> | null;
  byCheck: Record<string, number> | null;
}

/** The report document. */
export interface ReportDocument {
  schema: typeof REPORT_SCHEMA;
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  /** When the document was built (the only field that differs between two builds of the same inputs). */
  generatedAt: string;
  /** Time at which waivers were evaluated (active / expired). */
  asOf: string;
  title: string;
  period: { start: string; end: string };
  /**
   * `all`, or the account UIDs the report is limited to (sorted); `teams` when the document is a team's rendition of a
   * report (only the findings, quotas, coverage and waivers of those teams' clusters: report-team.ts).
   */
  scope: { accounts: 'all' | string[]; teams?: string[] };
  /** The scan the report describes (the last succeeded scan of the period); null when none. */
  scan: { id: string; startedAt: string; fleetName: string | null } | null;
  /** The previous period's last succeeded scan, the diff base; null when none (everything is new). */
  previousScan: { id: string; startedAt: string } | null;
  summary: {
    findings: number;
    open: number;
    waived: number;
    waiverExpired: number;
    bySeverity: Record<Severity, OpenWaived>;
    byCheck: ({ checkId: string } & OpenWaived & Record<Severity, number>)[];
    byAccount: ({ accountId: string } & OpenWaived)[];
    /** `clusterName`: the cluster's name when the findings carry it (absent in documents made before they did). */
    byCluster: ({ accountId: string; clusterId: string; clusterName?: string | null } & OpenWaived)[];
    /** Waived and waiver-expired findings per waiver owner (the accountable person or team). */
    byOwner: { owner: string; waived: number; waiverExpired: number; waivers: number }[];
    changes: { new: number; resolved: number; persisting: number; severityChanged: number; waived: number; waiverExpired: number };
  };
  new: ReportFinding[];
  resolved: ReportFinding[];
  persisting: ReportFinding[];
  severityChanged: ReportFinding[];
  waived: ReportFinding[];
  waivers: { active: ReportWaiver[]; expiring: ReportWaiver[]; expired: ReportWaiver[]; stale: ReportWaiver[] };
  quotas: {
    /** Highest usage ratio first (top 10). */
    byUsage: ReportQuota[];
    /** Soonest p10 exhaustion first (top 10); empty when no forecast. */
    byExhaustion: ReportQuota[];
    forecast: { available: boolean; note: string };
  };
  /** What could not be read: those targets are never reported as clean. */
  coverage: {
    complete: boolean;
    datasets: { ok: number; absent: number; failed: number };
    failed: { accountId: string; regionId: string | null; clusterId: string | null; api: CoverageDataset; errorCode: string | null; message: string | null }[];
  };
  /** 12 weeks, oldest first; the last point is the report's scan. */
  trend: ReportTrendPoint[];
  /**
   * Quota Center applications of the scope's accounts (`fleet-audit quota request --apply`): those in review at `asOf`
   * and those filed or decided within the period, open first, then newest. Absent in documents built before
   * applications existed, and in a team's rendition (applications are per account and region, not per cluster).
   */
  quotaApplications?: ReportQuotaApplication[];
}

/** One Quota Center application in a report (counts; times ISO 8601). */
export interface ReportQuotaApplication {
  accountId: string;
  regionId: string;
  productCode: string;
  quotaActionCode: string;
  /** Quota Center's ApplicationId; null when the call was refused or never answered. */
  applicationId: string | null;
  /** submitting, Process (in review), Agree, Disagree, Cancel, failed (the call was refused). */
  status: string;
  desireValue: number;
  approveValue: number | null;
  /** The reviewer's answer (`AuditReason`), or why the call failed. */
  reason: string | null;
  requestedBy: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The Summary's "Counts" rows, in display order: `[count name, value]`, names as in `summary` / `summary.changes`
 * (the one list the HTML and Markdown renderers show).
 */
export function summaryCountRows(summary: ReportDocument['summary']): [name: string, value: number][] {
  const c = summary.changes;
  return [
    ['findings', summary.findings],
    ['open', summary.open],
    ['waived', summary.waived],
    ['waiverExpired', summary.waiverExpired],
    ['new', c.new],
    ['resolved', c.resolved],
    ['persisting', c.persisting],
    ['severityChanged', c.severityChanged],
  ];
}

/** The Summary's "By severity" rows, most severe first: `[severity, total, open, waived]` (counts). */
export function severityCountRows(summary: ReportDocument['summary']): [severity: Severity, total: number, open: number, waived: number][] {
  return (['critical', 'warning', 'info'] as const).map((k) => [k, summary.bySeverity[k].total, summary.bySeverity[k].open, summary.bySeverity[k].waived]);
}
