/**
 * The report as CSV (RFC 4180: comma-separated, CRLF line ends, fields with comma, quote or line break
 * quoted, quotes doubled): one row per finding of the report's scan with its status (new, persisting,
 * waived) and one per resolved finding. Cells go through libs/domain csvField, the product's one CSV guard:
 * text starting with = + - @, tab or carriage return gets a leading apostrophe and quotes, so that a
 * spreadsheet never evaluates a finding message as a formula (OWASP "CSV injection").
 */
import { csvField } from '@app/domain';
import type { ReportDocument, ReportFinding } from '../report.model';

/** Columns, in order. */
export const REPORT_CSV_COLUMNS = [
  'status',
  'severity_changed',
  'check_id',
  'severity',
  'previous_severity',
  'fingerprint',
  'account_id',
  'region_id',
  'cluster_id',
  'resource_kind',
  'resource_id',
  'waiver_expired',
  'waiver_id',
  'waiver_owner',
  'waiver_expires_at',
  'message',
  // Appended, so that readers by column position keep working.
  'cluster_name',
  // What to do about the finding (empty for reports stored before documents carried it).
  'remediation',
] as const;

function row(f: ReportFinding): string {
  return [
    f.status,
    f.previousSeverity !== null && f.previousSeverity !== f.severity && f.status !== 'resolved',
    f.checkId,
    f.severity,
    f.previousSeverity,
    f.fingerprint,
    f.resource.accountId,
    f.resource.regionId,
    f.resource.clusterId,
    f.resource.kind,
    f.resource.id,
    f.waiverExpired,
    f.waiver?.id ?? null,
    f.waiver?.owner ?? null,
    f.waiver?.expiresAt ?? null,
    f.message,
    f.resource.clusterName ?? null,
    f.remediation ?? null,
  ]
    .map(csvField)
    .join(',');
}

/** Render the CSV (header row first; waived, new, persisting, then resolved rows). */
export function renderReportCsv(doc: ReportDocument): string {
  const lines = [REPORT_CSV_COLUMNS.join(',')];
  for (const list of [doc.waived, doc.new, doc.persisting, doc.resolved]) for (const f of list) lines.push(row(f));
  return `${lines.join('\r\n')}\r\n`;
}
