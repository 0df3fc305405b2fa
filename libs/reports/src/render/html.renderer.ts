/**
 * The report as ONE self-contained HTML file: inline CSS, inline SVG charts rendered on the server
 * (charts.ts, Apache ECharts SSR), no script, no external request at view time; readable printed
 * (`@media print`: no shadows, tables not split across pages where avoidable). Counts carry
 * `data-count="<name>"` so tests and scrapers read them without parsing prose. Lists show the first
 * LISTED_FINDINGS rows each (the CSV and JSON carry every finding). The only text that depends on the
 * build clock is the `Generated at` line.
 */
import { clusterLabel } from '@app/domain';
import { severityCountRows, summaryCountRows, type ReportDocument, type ReportFinding, type ReportWaiver } from '../report.model';
import { changesChart, checksChart, trendChart } from './charts';
import { escapeHtml as h, LISTED_FINDINGS, percent, whereOf } from './text.util';

const CSS = `
:root { color-scheme: light; }
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
header h1 { margin: 0 0 4px; font-size: 24px; }
.meta { color: #58616b; font-size: 13px; margin: 2px 0; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 16px 20px; margin: 16px 0; }
h2 { font-size: 18px; margin: 0 0 12px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e6e9ed; vertical-align: top; overflow-wrap: break-word; }
table.findings { table-layout: fixed; }
table.findings td { overflow-wrap: anywhere; }
table.findings col.sev { width: 76px; }
table.findings col.check { width: 22%; }
table.findings col.res { width: 20%; }
table.findings col.where { width: 18%; }
th { background: #f0f2f5; font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; }
.card { flex: 1 1 120px; border: 1px solid #dde1e6; border-radius: 6px; padding: 8px 12px; }
.card b { display: block; font-size: 22px; }
.card span { color: #58616b; font-size: 12px; }
.sev-critical { color: #b3261e; font-weight: 600; }
.sev-warning { color: #8a5a00; font-weight: 600; }
.sev-info { color: #5f7d95; }
.warn { background: #fff4e5; border: 1px solid #f0c36d; padding: 8px 12px; border-radius: 6px; }
.muted { color: #58616b; }
.chart svg { max-width: 100%; height: auto; }
@media print {
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  section { border: none; padding: 0; margin: 12px 0; break-inside: avoid-page; }
  tr { break-inside: avoid; }
}
`;

const n = (name: string, v: number) => `<td class="n" data-count="${h(name)}">${v}</td>`;
const sev = (s: string) => `<span class="sev-${h(s)}">${h(s)}</span>`;

function table(head: string[], rows: string[][], attrs = '', cols = ''): string {
  return `<table${attrs}>${cols}<thead><tr>${head.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</tbody></table>`;
}
const td = (s: string | number | null) => `<td>${h(String(s ?? ''))}</td>`;
const tdn = (v: number) => `<td class="n">${v}</td>`;

/**
 * Column widths of a findings list: a fixed layout whose ids and messages wrap inside their cells (a CLB or
 * vServer group id has no space to break at), so the table never runs past its card.
 */
const FINDING_COLUMNS = '<colgroup><col class="sev"><col class="check"><col class="res"><col class="where"><col></colgroup>';

function findings(id: string, title: string, list: ReportFinding[], detail: (f: ReportFinding) => string): string {
  const rows = list.slice(0, LISTED_FINDINGS).map((f) => [`<td>${sev(f.severity)}</td>`, td(f.checkId), td(`${f.resource.kind} ${f.resource.id}`), td(whereOf(f)), td(detail(f))]);
  const more = list.length > LISTED_FINDINGS ? `<p class="muted">… and ${list.length - LISTED_FINDINGS} more (every finding is in the CSV and JSON).</p>` : '';
  return `<h3 id="${id}">${h(title)} (<span data-list="${id}">${list.length}</span>)</h3>${list.length === 0 ? '<p class="muted">None.</p>' : table(['Severity', 'Check', 'Resource', 'Where', 'Detail'], rows, ' class="findings"', FINDING_COLUMNS) + more}`;
}

function waivers(id: string, title: string, list: ReportWaiver[]): string {
  const rows = list.map((w) => [td(w.owner), td(w.checkId), td(w.scope), td(w.resource), td(w.category), td(w.expiresAt.slice(0, 10)), td(w.ticket), tdn(w.matched)]);
  return `<h3 id="waivers-${id}">${h(title)} (${list.length})</h3>${list.length === 0 ? '<p class="muted">None.</p>' : table(['Owner', 'Check', 'Scope', 'Resource', 'Category', 'Expires', 'Ticket', 'Matched'], rows)}`;
}

/** Render the HTML document. */
export function renderReportHtml(doc: ReportDocument): string {
  const s = doc.summary;
  const c = s.changes;
  const cards = ([['open', s.open], ['waived', s.waived], ['new', c.new], ['resolved', c.resolved]] as const)
    .map(([k, v]) => `<div class="card"><b>${v}</b><span>${k}</span></div>`)
    .join('');
  const summaryRows = summaryCountRows(s).map(([k, v]) => [td(k), n(k, v)]);
  const sevRows = severityCountRows(s).map(([k, total, open, waived]) => [`<td>${sev(k)}</td>`, n(`${k}.total`, total), n(`${k}.open`, open), n(`${k}.waived`, waived)]);
  const quotaRows = doc.quotas.byUsage.map((q) => [td(q.checkId), td(`${q.resource.kind} ${q.resource.id}`), td(whereOf(q)), tdn(q.used), tdn(q.limit), td(percent(q.ratio))]);
  const exhaustion = !doc.quotas.forecast.available
    ? `<p class="muted">${h(doc.quotas.forecast.note)}</p>`
    : doc.quotas.byExhaustion.length === 0
      ? '<p class="muted">No quota is forecast to run out.</p>'
      : table(['Check', 'Resource', 'Where', 'Used', 'Limit', 'Exhausts (p10)'], doc.quotas.byExhaustion.map((q) => [td(q.checkId), td(`${q.resource.kind} ${q.resource.id}`), td(whereOf(q)), tdn(q.used), tdn(q.limit), td(q.exhaustsAtP10?.slice(0, 10) ?? '')]));
  const body = [
    `<header><h1>${h(doc.title)}</h1>`,
    `<p class="meta">Generated at ${h(doc.generatedAt)}</p>`,
    `<p class="meta">Period ${h(doc.period.start)} – ${h(doc.period.end)} · scope ${h(doc.scope.accounts === 'all' ? 'all accounts' : doc.scope.accounts.join(', '))} · waivers evaluated at ${h(doc.asOf)}</p>`,
    `<p class="meta">Scan ${h(doc.scan ? `${doc.scan.id} (${doc.scan.startedAt})` : 'none succeeded in the period')} · compared with ${h(doc.previousScan ? `${doc.previousScan.id} (${doc.previousScan.startedAt})` : 'no previous scan (every finding is new)')}</p></header>`,
    doc.coverage.complete ? '' : `<p class="warn" id="coverage-warning"><b>Coverage incomplete:</b> ${doc.coverage.datasets.failed} dataset(s) could not be read; what they hold is not reported as clean.</p>`,
    `<section id="summary-section"><h2>Summary</h2><div class="cards">${cards}</div><h3>Counts</h3>${table(['Count', 'Value'], summaryRows, ' id="summary"')}<h3>By severity</h3>${table(['Severity', 'Total', 'Open', 'Waived'], sevRows, ' id="by-severity"')}</section>`,
    `<section id="charts"><h2>Charts</h2><div class="chart" id="chart-trend">${trendChart(doc)}</div><div class="chart" id="chart-changes">${changesChart(doc)}</div><div class="chart" id="chart-checks">${checksChart(doc)}</div></section>`,
    `<section><h2>By check</h2>${table(['Check', 'Total', 'Open', 'Waived', 'Critical', 'Warning', 'Info'], s.byCheck.map((r) => [td(r.checkId), tdn(r.total), tdn(r.open), tdn(r.waived), tdn(r.critical), tdn(r.warning), tdn(r.info)]), ' id="by-check"')}</section>`,
    `<section><h2>By account</h2>${table(['Account', 'Total', 'Open', 'Waived'], s.byAccount.map((r) => [td(r.accountId), tdn(r.total), tdn(r.open), tdn(r.waived)]))}<h3>By cluster (top ${Math.min(LISTED_FINDINGS, s.byCluster.length)} of ${s.byCluster.length})</h3>${table(['Account', 'Cluster', 'Total', 'Open', 'Waived'], s.byCluster.slice(0, LISTED_FINDINGS).map((r) => [td(r.accountId), td(clusterLabel(r.clusterId, r.clusterName)), tdn(r.total), tdn(r.open), tdn(r.waived)]))}<h3>By owner (waived findings)</h3>${s.byOwner.length === 0 ? '<p class="muted">No waived findings.</p>' : table(['Owner', 'Waived', 'Waiver expired', 'Waivers'], s.byOwner.map((o) => [td(o.owner), tdn(o.waived), tdn(o.waiverExpired), tdn(o.waivers)]))}</section>`,
    `<section><h2>Changes since the previous week</h2>${findings('new', 'New', doc.new, (f) => (f.waiverExpired ? `waiver expired (owner ${f.waiver?.owner ?? ''})` : f.message))}${findings('resolved', 'Resolved', doc.resolved, () => 'no longer found')}${findings('severityChanged', 'Severity changed', doc.severityChanged, (f) => `${f.previousSeverity ?? ''} → ${f.severity}`)}${findings('persisting', 'Persisting', doc.persisting, (f) => (f.waiverExpired ? `waiver expired (owner ${f.waiver?.owner ?? ''})` : f.message))}${findings('waived', 'Waived', doc.waived, (f) => `owner ${f.waiver?.owner ?? ''}, ${f.waiver?.category ?? ''}, until ${f.waiver?.expiresAt.slice(0, 10) ?? ''}`)}</section>`,
    `<section><h2>Waivers</h2>${waivers('expiring', 'Expiring within 14 days', doc.waivers.expiring)}${waivers('expired', 'Expired', doc.waivers.expired)}${waivers('stale', 'Stale (matched nothing in the last 2 scans)', doc.waivers.stale)}${waivers('active', 'Active', doc.waivers.active)}</section>`,
    `<section><h2>Quotas</h2><h3>Highest usage</h3>${quotaRows.length === 0 ? '<p class="muted">No quota measurements.</p>' : table(['Check', 'Resource', 'Where', 'Used', 'Limit', 'Usage'], quotaRows)}<h3>Soonest exhaustion (forecast p10)</h3>${exhaustion}</section>`,
    doc.quotaApplications
      ? `<section id="quota-applications"><h2>Quota applications</h2>${
          doc.quotaApplications.length === 0
            ? '<p class="muted">None in review or filed in the period (<code>fleet-audit quota plan</code> says what to ask for).</p>'
            : table(
                ['Status', 'Account', 'Region', 'Quota', 'Asked', 'Approved', 'Reason', 'Requested by', 'Updated'],
                doc.quotaApplications.map((a) => [td(a.status), td(a.accountId), td(a.regionId), td(a.quotaActionCode), tdn(a.desireValue), a.approveValue === null ? td('') : tdn(a.approveValue), td(a.reason), td(a.requestedBy), td(a.updatedAt.slice(0, 10))]),
              )
        }</section>`
      : '',
    `<section><h2>Coverage</h2><p>Datasets read: <span data-count="coverage.ok">${doc.coverage.datasets.ok}</span> ok, <span data-count="coverage.absent">${doc.coverage.datasets.absent}</span> absent, <span data-count="coverage.failed">${doc.coverage.datasets.failed}</span> failed.</p>${doc.coverage.failed.length === 0 ? '' : table(['Account', 'Region', 'Cluster', 'Dataset', 'Error', 'Message'], doc.coverage.failed.map((f) => [td(f.accountId), td(f.regionId), td(f.clusterId), td(f.api), td(f.errorCode), td(f.message)]))}</section>`,
  ].join('\n');
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">\n<title>${h(doc.title)}</title>\n<style>${CSS}</style>\n</head>\n<body><main>\n${body}\n</main></body>\n</html>\n`;
}
