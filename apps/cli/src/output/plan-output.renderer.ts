/**
 * The formats of `fleet-audit plan` (a `PlanResult`, libs/forecast manifest-plan.ts) for people and CI tools:
 * - `table`: the Services changed, each quota before and after, the first breach, the findings the change adds;
 * - `json`: the PlanResult with its verdict;
 * - `markdown`: a pull-request comment (GitHub tables);
 * - `sarif`: SARIF 2.1.0 as GitHub code scanning reads it, one result per added finding and per breached quota,
 *   located in the manifest file of the Service it concerns;
 * - `junit`: JUnit XML (the Ant JUnit schema), one test case per quota the change touches and per added finding.
 * The verdict (`planVerdict`) is the `--fail-on` rule: a quota breach counts as critical.
 */
import { hostname } from 'node:os';
import { escapeMarkdownText, severityRank, terminalText, type Severity } from '@app/domain';
import type { FindingRef, PlanResult, QuotaChange } from '@app/forecast';
import { escapeXml, FLEET_AUDIT_VERSION, resourcePath, sarifLevel } from './report-formats.renderer';
import { renderTable, type TableStyle } from './table.util';

/** Whether a plan fails `--fail-on`, and why (each reason one line). */
export interface PlanVerdict {
  failed: boolean;
  reasons: string[];
}

/**
 * The `--fail-on` verdict: fails on a quota the change takes over its limit (a breach counts as critical, so every
 * threshold fails on it) and on an added finding, or a finding raised, at or above `failOn`; `none` never fails.
 */
export function planVerdict(plan: PlanResult, failOn: Severity | 'none'): PlanVerdict {
  if (failOn === 'none') return { failed: false, reasons: [] };
  const min = severityRank(failOn);
  const reasons: string[] = [];
  for (const q of plan.step.quotas)
    if (q.after.used > q.after.limit && q.after.used > q.before.used) reasons.push(`breach: ${q.checkId} ${q.resource.id} ${q.before.used} -> ${q.after.used} of ${q.after.limit}`);
  for (const f of plan.step.findings.appeared) if (severityRank(f.severity) >= min) reasons.push(`${f.severity}: ${f.checkId} ${f.message}`);
  for (const c of plan.step.findings.severityChanged)
    if (severityRank(c.after) >= min && severityRank(c.after) > severityRank(c.before)) reasons.push(`${c.after}: ${c.checkId} ${c.resource.id} raised from ${c.before}`);
  return { failed: reasons.length > 0, reasons };
}

const pct = (r: number) => `${Math.round(r * 100)}%`;

function quotaRow(q: QuotaChange): string[] {
  const breach = q.after.used > q.after.limit ? ' BREACH' : '';
  return [q.checkId, q.resource.id, `${q.before.used}/${q.before.limit} (${pct(q.before.ratio)})`, `${q.after.used}/${q.after.limit} (${pct(q.after.ratio)})${breach}`];
}

/** The table view (the default on a terminal). */
export function renderPlanTable(plan: PlanResult, verdict: PlanVerdict, style: TableStyle): string {
  const t = (s: string) => terminalText(s);
  const parts: string[] = [];
  parts.push(`Plan for cluster ${t(plan.cluster.name)} (${t(plan.cluster.id)})`);
  parts.push(
    renderTable(
      ['Service', 'Action', 'Pods', 'Selected by'],
      plan.services.map((s) => [t(s.service), s.action, s.pods === undefined ? (s.action === 'delete' ? '-' : 'as in cluster') : String(s.pods), t(s.workloads.join(', ') || '-')]),
      style,
    ),
  );
  const quotas = plan.step.quotas;
  parts.push(quotas.length === 0 ? 'Quotas: no quota use changes.' : `Quotas (${quotas.length} changed):\n${renderTable(['Quota', 'Resource', 'Before', 'After'], quotas.map((q) => quotaRow(q).map(t)), style)}`);
  const b = plan.step.firstBreach;
  parts.push(b ? `First breach: ${b.checkId} on ${t(b.resource.id)}: ${b.after.used} of ${b.after.limit}` : 'First breach: none');
  const f = plan.step.findings;
  if (f.appeared.length > 0)
    parts.push(`Findings the change adds (${f.appeared.length}):\n${renderTable(['Severity', 'Check', 'Message'], f.appeared.map((x) => [x.severity, x.checkId, t(x.message)]), style)}`);
  else parts.push('Findings the change adds: none');
  if (f.resolved.length > 0) parts.push(`Findings it resolves: ${f.resolved.length} (${[...new Set(f.resolved.map((x) => x.checkId))].join(', ')})`);
  const c = plan.convergence;
  parts.push(`CCM convergence: ${c.services} Service(s), ${c.calls} OpenAPI call(s), about ${Math.ceil(c.wallSeconds.p95)} s (p95)`);
  const ignored = Object.entries(plan.ignored);
  if (ignored.length > 0) parts.push(`Not judged: ${ignored.map(([k, n]) => `${n} ${t(k)}`).join(', ')}`);
  parts.push(verdict.failed ? `Verdict: FAIL\n${verdict.reasons.map((r) => `  - ${t(r)}`).join('\n')}` : 'Verdict: pass');
  return `${parts.join('\n\n')}\n`;
}

/** The JSON view: the plan and its verdict. */
export function renderPlanJson(plan: PlanResult, verdict: PlanVerdict): string {
  return `${JSON.stringify({ ...plan, verdict }, null, 2)}\n`;
}

const md = (s: string) => escapeMarkdownText(s).replace(/\|/g, '\\|');

/** The Markdown view: a pull-request comment. */
export function renderPlanMarkdown(plan: PlanResult, verdict: PlanVerdict): string {
  const lines: string[] = [];
  lines.push(`### fleet-audit plan: ${verdict.failed ? 'fails' : 'passes'} on cluster ${md(plan.cluster.name)} (\`${plan.cluster.id}\`)`, '');
  lines.push('| Service | Action | Pods |', '|---|---|---|');
  for (const s of plan.services) lines.push(`| ${md(s.service)} | ${s.action} | ${s.pods ?? (s.action === 'delete' ? '-' : 'as in cluster')} |`);
  lines.push('');
  if (plan.step.quotas.length > 0) {
    lines.push('| Quota | Resource | Before | After |', '|---|---|---|---|');
    for (const q of plan.step.quotas) lines.push(`| ${quotaRow(q).map(md).join(' | ')} |`);
    lines.push('');
  } else lines.push('No quota use changes.', '');
  if (plan.step.firstBreach) lines.push(`**First breach:** ${plan.step.firstBreach.checkId} on \`${plan.step.firstBreach.resource.id}\` (${plan.step.firstBreach.after.used} of ${plan.step.firstBreach.after.limit})`, '');
  if (plan.step.findings.appeared.length > 0) {
    lines.push('Findings the change adds:', '');
    for (const f of plan.step.findings.appeared) lines.push(`- **${f.severity}** ${f.checkId}: ${md(f.message)}`);
    lines.push('');
  }
  if (verdict.failed) lines.push('Why it fails:', '', ...verdict.reasons.map((r) => `- ${md(r)}`), '');
  return `${lines.join('\n')}\n`;
}

/** The manifest file a finding or quota of the plan concerns: the Service's source when the resource names it. */
function sourceOf(plan: PlanResult, text: string): string {
  const hit = plan.services.find((s) => s.source && text.includes(s.service.split('/')[1]!));
  return (hit?.source ?? plan.services.find((s) => s.source)?.source ?? 'manifests').replace(/ (document|items)\b.*$/, '');
}

/** The SARIF 2.1.0 log of a plan (one run; results: added findings and breached quotas). */
export function renderPlanSarif(plan: PlanResult): string {
  const result = (ruleId: string, level: string, text: string, where: string, fingerprint: string) => ({
    ruleId,
    level,
    message: { text },
    locations: [{ physicalLocation: { artifactLocation: { uri: sourceOf(plan, where).replace(/\\/g, '/').replace(/^\.\//, '') }, region: { startLine: 1 } }, logicalLocations: [{ name: where, kind: 'resource' }] }],
    partialFingerprints: { 'fleetAudit/v1': fingerprint },
  });
  const results = [
    ...plan.step.quotas
      .filter((q) => q.after.used > q.after.limit)
      .map((q) => result(q.checkId, 'error', `${q.checkId}: ${q.resource.id} goes from ${q.before.used} to ${q.after.used} of ${q.after.limit}`, resourcePath(q.resource), `${q.checkId}/${resourcePath(q.resource)}/breach`)),
    ...plan.step.findings.appeared.map((f: FindingRef) => result(f.checkId, sarifLevel(f.severity), f.message, resourcePath(f.resource), f.fingerprint)),
  ];
  const rules = [...new Set(results.map((r) => r.ruleId))].sort().map((id) => ({ id, shortDescription: { text: id } }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'fleet-audit', version: FLEET_AUDIT_VERSION, informationUri: 'https://github.com/ack-fleet-audit/ack-fleet-audit', rules } }, automationDetails: { id: `fleet-audit-plan/${plan.cluster.id}` }, results }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/**
 * The JUnit XML of a plan (the Ant JUnit schema, as `scan --format junit`): one `<testsuite>` (package
 * `fleet-audit`), one test case per quota the change touches (a failure when the change takes it over its limit) and
 * per finding the change adds (a failure at or above `failOn`).
 * @param now the plan's clock (the suite's timestamp)
 */
export function renderPlanJunit(plan: PlanResult, failOn: Severity | 'none', now: Date): string {
  const min = failOn === 'none' ? Infinity : severityRank(failOn);
  const cases: string[] = [];
  let failures = 0;
  const testcase = (classname: string, name: string, failure?: { type: string; message: string }) => {
    const open = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(name)}" time="0"`;
    if (!failure) return cases.push(`${open}/>`);
    failures++;
    return cases.push(`${open}>`, `      <failure type="${escapeXml(failure.type)}" message="${escapeXml(failure.message)}">${escapeXml(failure.message)}</failure>`, '    </testcase>');
  };
  for (const q of plan.step.quotas) {
    const breach = q.after.used > q.after.limit && q.after.used > q.before.used;
    testcase(q.checkId, resourcePath(q.resource), breach ? { type: 'breach', message: `${q.before.used} -> ${q.after.used} of ${q.after.limit}` } : undefined);
  }
  for (const f of plan.step.findings.appeared)
    testcase(f.checkId, resourcePath(f.resource), severityRank(f.severity) >= min ? { type: f.severity, message: f.message } : undefined);
  const tests = plan.step.quotas.length + plan.step.findings.appeared.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites>',
    `  <testsuite package="fleet-audit" id="0" name="${escapeXml(`plan ${plan.cluster.name}`)}" timestamp="${now.toISOString().slice(0, 19)}" hostname="${escapeXml(hostname() || 'localhost')}" tests="${tests}" failures="${failures}" errors="0" skipped="0" time="0.000">`,
    '    <properties>',
    `      <property name="cluster" value="${escapeXml(plan.cluster.id)}"/>`,
    '    </properties>',
    ...cases,
    '    <system-out/>',
    '    <system-err/>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
