/**
 * Machine and document formats of a scan outcome for `fleet-audit scan --format ...`:
 *
 * - `sarif`: SARIF 2.1.0 (OASIS, https://docs.oasis-open.org/sarif/sarif/v2.1.0/) as GitHub code
 *   scanning accepts it: one rule per catalogue check (metadata from `checkCatalogue()`), one result
 *   per finding, the finding's stable fingerprint in `partialFingerprints`, a location pointing at the
 *   scanned input (fleet directory or scan config) plus a logical location naming the cloud resource.
 * - `junit`: JUnit XML (the Ant JUnit schema, test/fixtures/schemas/JUnit.xsd): one test suite per
 *   check, one test case per evaluated (check, resource) result; failures are findings, skipped
 *   results are `<skipped/>`.
 * - `csv` (RFC 4180), `markdown` (GitHub tables) and `html` (one self-contained page, no scripts).
 *
 * Pure functions returning strings; the caller writes them.
 */
import { hostname } from 'node:os';
import type { ScanOutcome } from '@app/audit';
import { checkCatalogue, type CheckSummary } from '@app/checks';
import { clusterLabel, csvField, escapeMarkdownText, terminalText, type CheckResult, type Finding, type ResourceRef, type Severity } from '@app/domain';

/** Version written into SARIF `tool.driver.version` (the package version). */
export const FLEET_AUDIT_VERSION = '0.1.0';

/** Where the scanned input lives, for SARIF's physical location (a path relative to the repository). */
export interface ReportContext {
  /** The fleet directory or scan config as given on the command line; default `fleet-audit-scan`. */
  inputUri?: string;
}

/** SARIF `level` of a severity: critical -> error, warning -> warning, info -> note. */
export function sarifLevel(severity: Severity): 'error' | 'warning' | 'note' {
  return severity === 'critical' ? 'error' : severity === 'warning' ? 'warning' : 'note';
}

/** GitHub's `security-severity` (0.0-10.0) for the severity: critical 9.0, warning 5.0, info 2.0. */
function securitySeverity(severity: Severity): string {
  return severity === 'critical' ? '9.0' : severity === 'warning' ? '5.0' : '2.0';
}

/** `account/region/cluster/Kind/id` of a resource: its fully qualified logical name. */
export function resourcePath(r: ResourceRef): string {
  return [r.accountId, r.regionId, r.clusterId, r.kind, r.id].filter(Boolean).join('/');
}

/**
 * `resourcePath` for people (Markdown and HTML pages): the cluster as `name (c81faa03…)` when its name is known
 * (libs/domain clusterLabel). SARIF and JUnit keep `resourcePath`, an identity.
 */
export function resourceDisplayPath(r: ResourceRef): string {
  return [r.accountId, r.regionId, r.clusterId ? clusterLabel(r.clusterId, r.clusterName) : undefined, r.kind, r.id].filter(Boolean).join('/');
}

function ruleName(id: string): string {
  return id
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

function sarifRule(c: CheckSummary): Record<string, unknown> {
  return {
    id: c.id,
    name: ruleName(c.id),
    shortDescription: { text: c.title },
    fullDescription: { text: c.description },
    help: { text: `${c.remediation}\n\nSource: ${c.source}`, markdown: `${c.remediation}\n\n*Source:* ${c.source}` },
    defaultConfiguration: { level: sarifLevel(c.severity) },
    properties: {
      tags: ['alibaba-cloud', 'ack', c.category],
      precision: 'high',
      'problem.severity': sarifLevel(c.severity) === 'note' ? 'recommendation' : sarifLevel(c.severity),
      'security-severity': securitySeverity(c.severity),
    },
  };
}

/**
 * The SARIF 2.1.0 log of a scan (one run). Rules: every catalogue check; results: every finding with
 * `ruleId`/`ruleIndex`, level, message (plus the remediation), `partialFingerprints["fleetAudit/v1"]`
 * = the finding's fingerprint (stable across scans: check id + resource key).
 */
export function renderSarif(outcome: ScanOutcome, ctx: ReportContext = {}): string {
  const catalogue = checkCatalogue();
  const index = new Map(catalogue.map((c, i) => [c.id, i] as const));
  const uri = (ctx.inputUri ?? 'fleet-audit-scan').replace(/\\/g, '/').replace(/^\.\//, '');
  const results = outcome.findings.map((f) => ({
    ruleId: f.checkId,
    ...(index.has(f.checkId) ? { ruleIndex: index.get(f.checkId) } : {}),
    level: sarifLevel(f.severity),
    message: { text: `${f.message} Remediation: ${f.remediation}` },
    locations: [
      {
        physicalLocation: { artifactLocation: { uri }, region: { startLine: 1 } },
        logicalLocations: [{ name: f.resource.id, fullyQualifiedName: resourcePath(f.resource), kind: 'resource' }],
      },
    ],
    partialFingerprints: { 'fleetAudit/v1': f.fingerprint },
    properties: {
      resource: f.resource,
      ...(f.used !== undefined ? { used: f.used } : {}),
      ...(f.limit !== undefined ? { limit: f.limit } : {}),
      ...(f.ratio !== undefined ? { ratio: f.ratio } : {}),
    },
  }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'fleet-audit',
            version: FLEET_AUDIT_VERSION,
            semanticVersion: FLEET_AUDIT_VERSION,
            informationUri: 'https://github.com/ack-fleet-audit/ack-fleet-audit',
            rules: catalogue.map(sarifRule),
          },
        },
        automationDetails: { id: `fleet-audit/${outcome.scan.fleetName}/${outcome.scan.id}` },
        invocations: [
          {
            executionSuccessful: outcome.scan.status === 'succeeded',
            startTimeUtc: outcome.scan.startedAt,
            endTimeUtc: outcome.scan.finishedAt,
          },
        ],
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** Escape text for XML/HTML content and attribute values; drops characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  // Whole escape sequences first (libs/domain terminalText), so no parameters are left behind as text.
  return terminalText(text)
  // eslint-disable-next-line no-control-regex -- XML 1.0 allows tab, LF and CR only among the controls
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** `2026-11-23T10:00:00` (UTC, no zone: the Ant schema's timestamp pattern). */
function junitTimestamp(iso: string): string {
  const d = new Date(iso);
  return (Number.isNaN(d.getTime()) ? new Date(0) : d).toISOString().slice(0, 19);
}

/**
 * JUnit XML of a scan: `<testsuites>` with one `<testsuite>` per check that produced a result (package
 * `fleet-audit`), one `<testcase classname=CHECK name=RESOURCE>` per evaluated result. A failed result is
 * a `<failure type=SEVERITY>` with the message and remediation; a skipped one `<skipped message=REASON/>`.
 */
export function renderJunit(outcome: ScanOutcome): string {
  const byCheck = new Map<string, CheckResult[]>();
  for (const r of outcome.results) {
    const list = byCheck.get(r.checkId) ?? [];
    list.push(r);
    byCheck.set(r.checkId, list);
  }
  const remediation = new Map(checkCatalogue().map((c) => [c.id, c.remediation] as const));
  const ts = junitTimestamp(outcome.scan.startedAt);
  const seconds = Math.max(0, (Date.parse(outcome.scan.finishedAt) - Date.parse(outcome.scan.startedAt)) / 1000 || 0);
  const host = escapeXml(hostname() || 'localhost');
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>'];
  let id = 0;
  for (const [checkId, results] of [...byCheck.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const failures = results.filter((r) => r.status === 'fail').length;
    const skipped = results.filter((r) => r.status === 'skipped').length;
    out.push(
      `  <testsuite package="fleet-audit" id="${id++}" name="${escapeXml(checkId)}" timestamp="${ts}" hostname="${host}" ` +
        `tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds.toFixed(3)}">`,
      '    <properties>',
      `      <property name="fleet" value="${escapeXml(outcome.scan.fleetName)}"/>`,
      `      <property name="scanId" value="${escapeXml(outcome.scan.id)}"/>`,
      '    </properties>',
    );
    for (const r of results) {
      const open = `    <testcase classname="${escapeXml(checkId)}" name="${escapeXml(resourcePath(r.resource))}" time="0"`;
      if (r.status === 'pass') out.push(`${open}/>`);
      else if (r.status === 'skipped')
        out.push(`${open}>`, `      <skipped message="${escapeXml(r.reason ?? r.message)}"/>`, '    </testcase>');
      else
        out.push(
          `${open}>`,
          `      <failure type="${r.severity}" message="${escapeXml(r.message)}">${escapeXml(`${r.message}\nRemediation: ${remediation.get(checkId) ?? ''}`)}</failure>`,
          '    </testcase>',
        );
    }
    out.push('    <system-out/>', '    <system-err/>', '  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** Columns of `--format csv`, in order. */
export const CSV_COLUMNS = [
  'severity',
  'checkId',
  'kind',
  'id',
  'accountId',
  'regionId',
  'clusterId',
  'namespace',
  'name',
  'message',
  'remediation',
  'used',
  'limit',
  'ratio',
  'fingerprint',
  // Appended, so that readers by column position keep working.
  'clusterName',
] as const;

/** The findings as CSV (header line, then one line per finding, CRLF line ends per RFC 4180; cells through libs/domain csvField, the formula guard). */
export function renderCsv(findings: readonly Finding[]): string {
  const rows = [CSV_COLUMNS.join(',')];
  for (const f of findings) {
    const r = f.resource;
    rows.push(
      [f.severity, f.checkId, r.kind, r.id, r.accountId, r.regionId, r.clusterId, r.namespace, r.name, f.message, f.remediation, f.used, f.limit, f.ratio, f.fingerprint, r.clusterName]
        .map(csvField)
        .join(','),
    );
  }
  return `${rows.join('\r\n')}\r\n`;
}

/** A Markdown table cell or list text: cluster-sourced text made inert (libs/domain escapeMarkdownText). */
function mdCell(s: string): string {
  return escapeMarkdownText(s);
}

/** Summary sentence shared by the Markdown and HTML reports. */
function summarySentence(outcome: ScanOutcome): string {
  const s = outcome.scan.summary;
  return (
    `${s.findings} findings (critical ${s.bySeverity.critical}, warning ${s.bySeverity.warning}, info ${s.bySeverity.info}); ` +
    `checks evaluated: ${s.results.pass} pass, ${s.results.fail} fail, ${s.results.skipped} skipped; ` +
    `coverage: ${s.coverage.ok} read, ${s.coverage.failed} failed, ${s.coverage.absent} absent.`
  );
}

/** A Markdown report: title, summary, findings table, coverage gaps (for PR comments and wikis). */
export function renderMarkdown(outcome: ScanOutcome, findings: readonly Finding[] = outcome.findings): string {
  const sc = outcome.scan;
  const lines = [
    `# fleet-audit scan of ${mdCell(sc.fleetName)}`,
    '',
    `Scan \`${sc.id}\` (${sc.source}), ${sc.startedAt} to ${sc.finishedAt}: ${sc.summary.accounts} accounts, ${sc.summary.clusters} clusters, ${sc.summary.loadBalancers} CLB instances.`,
    '',
    summarySentence(outcome),
    '',
  ];
  if (findings.length > 0) {
    lines.push('| Severity | Check | Resource | Message | Remediation |', '| --- | --- | --- | --- | --- |');
    for (const f of findings)
      lines.push(`| ${f.severity} | \`${f.checkId}\` | ${mdCell(resourceDisplayPath(f.resource))} | ${mdCell(f.message)} | ${mdCell(f.remediation)} |`);
    lines.push('');
  }
  const gaps = sc.coverage.filter((c) => c.status === 'failed');
  if (gaps.length > 0) {
    lines.push('## Coverage gaps', '', 'Not read; the scan makes no claim about them.', '');
    for (const g of gaps) lines.push(`- ${mdCell([g.accountId, g.regionId, g.clusterId].filter(Boolean).join('/'))} ${g.api}: ${mdCell(`${g.errorCode ?? 'error'} ${g.message ?? ''}`.trim())}`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

/** A self-contained HTML page (inline CSS, no scripts, every text escaped) of the scan. */
export function renderHtml(outcome: ScanOutcome, findings: readonly Finding[] = outcome.findings): string {
  const sc = outcome.scan;
  const e = escapeXml;
  const rows = findings
    .map(
      (f) =>
        `<tr class="${f.severity}"><td>${f.severity}</td><td><code>${e(f.checkId)}</code></td><td>${e(resourceDisplayPath(f.resource))}</td><td>${e(f.message)}</td><td>${e(f.remediation)}</td></tr>`,
    )
    .join('\n');
  const gaps = sc.coverage
    .filter((c) => c.status === 'failed')
    .map((g) => `<li>${e([g.accountId, g.regionId, g.clusterId].filter(Boolean).join('/'))} ${e(g.api)}: ${e(`${g.errorCode ?? 'error'} ${g.message ?? ''}`.trim())}</li>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>fleet-audit scan of ${e(sc.fleetName)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;width:100%;table-layout:fixed}th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
col.sev{width:6.5em}col.check{width:17%}col.res{width:22%}col.msg{width:34%}
tr.critical td:first-child{background:#fdd}tr.warning td:first-child{background:#ffd}tr.info td:first-child{background:#def}
</style>
</head>
<body>
<h1>fleet-audit scan of ${e(sc.fleetName)}</h1>
<p>Scan <code>${e(sc.id)}</code> (${e(sc.source)}), ${e(sc.startedAt)} to ${e(sc.finishedAt)}: ${sc.summary.accounts} accounts, ${sc.summary.clusters} clusters, ${sc.summary.loadBalancers} CLB instances.</p>
<p>${e(summarySentence(outcome))}</p>
${findings.length > 0 ? `<table>\n<colgroup><col class="sev"><col class="check"><col class="res"><col class="msg"><col></colgroup>\n<thead><tr><th>Severity</th><th>Check</th><th>Resource</th><th>Message</th><th>Remediation</th></tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>` : '<p>No findings.</p>'}
${gaps ? `<h2>Coverage gaps</h2>\n<p>Not read; the scan makes no claim about them.</p>\n<ul>\n${gaps}\n</ul>` : ''}
</body>
</html>
`;
}
