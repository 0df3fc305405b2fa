/**
 * The report as Markdown (GitHub-flavoured tables): summary counts, changes, waivers with owners, top
 * quotas, coverage gaps and the 12-week trend. Lists show the first LISTED_FINDINGS rows each (the CSV and
 * JSON carry every finding). The only line that depends on the build clock is `Generated at ...`.
 */
import { clusterLabel } from '@app/domain';
import { severityCountRows, summaryCountRows, type ReportDocument, type ReportFinding, type ReportWaiver } from '../report.model';
import { LISTED_FINDINGS, mdCell, percent, whereOf } from './text.util';

function table(head: string[], rows: (string | number | null)[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`, ...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`)];
}

function findings(title: string, list: ReportFinding[], extra: (f: ReportFinding) => string): string[] {
  const out = [`### ${title} (${list.length})`, ''];
  if (list.length === 0) return [...out, '_None._', ''];
  out.push(...table(['Severity', 'Check', 'Resource', 'Where', 'Detail'], list.slice(0, LISTED_FINDINGS).map((f) => [f.severity, f.checkId, `${f.resource.kind} ${f.resource.id}`, whereOf(f), extra(f)])));
  if (list.length > LISTED_FINDINGS) out.push('', `_… and ${list.length - LISTED_FINDINGS} more (every finding is in the CSV and JSON)._`);
  return [...out, ''];
}

function waivers(title: string, list: ReportWaiver[]): string[] {
  const out = [`### ${title} (${list.length})`, ''];
  if (list.length === 0) return [...out, '_None._', ''];
  return [...out, ...table(['Owner', 'Check', 'Scope', 'Resource', 'Category', 'Expires', 'Ticket', 'Matched'], list.map((w) => [w.owner, w.checkId, w.scope, w.resource, w.category, w.expiresAt.slice(0, 10), w.ticket, w.matched])), ''];
}

/** Render the Markdown document. */
export function renderReportMarkdown(doc: ReportDocument): string {
  const s = doc.summary;
  const out: string[] = [
    `# ${doc.title}`,
    '',
    `Generated at ${doc.generatedAt}`,
    '',
    `- Period: ${doc.period.start} – ${doc.period.end}`,
    `- Scope: ${doc.scope.accounts === 'all' ? 'all accounts' : doc.scope.accounts.join(', ')}`,
    `- Scan: ${doc.scan ? `${doc.scan.id} (${doc.scan.startedAt})` : 'none succeeded in the period'}`,
    `- Compared with: ${doc.previousScan ? `${doc.previousScan.id} (${doc.previousScan.startedAt})` : 'no previous scan (every finding is new)'}`,
    `- Waivers evaluated at: ${doc.asOf}`,
    '',
  ];
  if (!doc.coverage.complete)
    out.push(`> **Coverage incomplete:** ${doc.coverage.datasets.failed} dataset(s) could not be read; what they hold is not reported as clean (see Coverage).`, '');
  out.push('## Summary', '', ...table(['Count', 'Value'], summaryCountRows(s)), '');
  out.push('### By severity', '', ...table(['Severity', 'Total', 'Open', 'Waived'], severityCountRows(s)), '');
  out.push('### By check', '', ...table(['Check', 'Total', 'Open', 'Waived', 'Critical', 'Warning', 'Info'], s.byCheck.map((r) => [r.checkId, r.total, r.open, r.waived, r.critical, r.warning, r.info])), '');
  out.push('### By account', '', ...table(['Account', 'Total', 'Open', 'Waived'], s.byAccount.map((r) => [r.accountId, r.total, r.open, r.waived])), '');
  out.push(`### By cluster (top ${Math.min(LISTED_FINDINGS, s.byCluster.length)} of ${s.byCluster.length})`, '', ...table(['Account', 'Cluster', 'Total', 'Open', 'Waived'], s.byCluster.slice(0, LISTED_FINDINGS).map((r) => [r.accountId, clusterLabel(r.clusterId, r.clusterName), r.total, r.open, r.waived])), '');
  out.push('### By owner (waived findings)', '');
  out.push(...(s.byOwner.length === 0 ? ['_No waived findings._'] : table(['Owner', 'Waived', 'Waiver expired', 'Waivers'], s.byOwner.map((o) => [o.owner, o.waived, o.waiverExpired, o.waivers]))), '');
  out.push('## Changes since the previous week', '');
  out.push(...findings('New', doc.new, (f) => (f.waiverExpired ? `waiver expired (owner ${f.waiver?.owner ?? ''})` : f.message)));
  out.push(...findings('Resolved', doc.resolved, () => 'no longer found'));
  out.push(...findings('Severity changed', doc.severityChanged, (f) => `${f.previousSeverity ?? ''} → ${f.severity}`));
  out.push(...findings('Persisting', doc.persisting, (f) => (f.waiverExpired ? `waiver expired (owner ${f.waiver?.owner ?? ''})` : f.message)));
  out.push(...findings('Waived', doc.waived, (f) => `owner ${f.waiver?.owner ?? ''}, ${f.waiver?.category ?? ''}, until ${f.waiver?.expiresAt.slice(0, 10) ?? ''}`));
  out.push('## Waivers', '');
  out.push(...waivers('Expiring within 14 days', doc.waivers.expiring), ...waivers('Expired', doc.waivers.expired), ...waivers('Stale (matched nothing in the last 2 scans)', doc.waivers.stale), ...waivers('Active', doc.waivers.active));
  out.push('## Quotas', '', '### Highest usage', '');
  out.push(...(doc.quotas.byUsage.length === 0 ? ['_No quota measurements._'] : table(['Check', 'Resource', 'Where', 'Used', 'Limit', 'Usage'], doc.quotas.byUsage.map((q) => [q.checkId, `${q.resource.kind} ${q.resource.id}`, whereOf(q), q.used, q.limit, percent(q.ratio)]))), '');
  out.push('### Soonest exhaustion (forecast p10)', '');
  if (!doc.quotas.forecast.available) out.push(`_${doc.quotas.forecast.note}_`, '');
  else out.push(...(doc.quotas.byExhaustion.length === 0 ? ['_No quota is forecast to run out._'] : table(['Check', 'Resource', 'Where', 'Used', 'Limit', 'Exhausts (p10)'], doc.quotas.byExhaustion.map((q) => [q.checkId, `${q.resource.kind} ${q.resource.id}`, whereOf(q), q.used, q.limit, q.exhaustsAtP10?.slice(0, 10) ?? '']))), '');
  if (doc.quotaApplications) {
    out.push('## Quota applications', '');
    out.push(
      ...(doc.quotaApplications.length === 0
        ? ['_None in review or filed in the period (`fleet-audit quota plan` says what to ask for)._']
        : table(
            ['Status', 'Account', 'Region', 'Quota', 'Asked', 'Approved', 'Reason', 'Requested by', 'Updated'],
            doc.quotaApplications.map((a) => [a.status, a.accountId, a.regionId, a.quotaActionCode, a.desireValue, a.approveValue, a.reason, a.requestedBy, a.updatedAt.slice(0, 10)]),
          )),
      '',
    );
  }
  out.push('## Coverage', '', `Datasets read: ${doc.coverage.datasets.ok} ok, ${doc.coverage.datasets.absent} absent, ${doc.coverage.datasets.failed} failed.`, '');
  if (doc.coverage.failed.length > 0)
    out.push(...table(['Account', 'Region', 'Cluster', 'Dataset', 'Error', 'Message'], doc.coverage.failed.map((f) => [f.accountId, f.regionId, f.clusterId, f.api, f.errorCode, f.message])), '');
  out.push('## Trend (12 weeks)', '', ...table(['Week ending', 'Critical', 'Warning', 'Info'], doc.trend.map((t) => [t.weekEnding.slice(0, 10), t.bySeverity?.critical ?? 'no scan', t.bySeverity?.warning ?? '', t.bySeverity?.info ?? ''])), '');
  return `${out.join('\n')}\n`;
}
