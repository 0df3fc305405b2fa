/**
 * Renderers of a scan outcome for the CLI: JSON (the contract of `scan --format json`) and a
 * human table. Pure functions returning strings; the caller writes them.
 */
import Table from 'cli-table3';
import type { ScanOutcome } from '@app/audit';
import type { Finding, SkippedResult } from '@app/domain';

/**
 * The JSON document printed by `scan --format json`: `{"scan": {...}, "findings": [...]}` where each
 * finding has checkId, severity, resource {kind,id,accountId,regionId,clusterId,namespace,name},
 * message, remediation, source, fingerprint and the figures (used, limit, ratio, ...). `scan` carries
 * the summary (counts per severity, per check and per result status), the coverage and `skipped`: the
 * (check, resource) pairs not evaluated, with the reason.
 */
export function renderJson(outcome: ScanOutcome): string {
  return `${JSON.stringify({ scan: outcome.scan, findings: outcome.findings }, null, 2)}\n`;
}

function resourceLabel(f: Finding): string {
  const r = f.resource;
  const where = [r.accountId, r.regionId, r.clusterId].filter(Boolean).join('/');
  return `${r.kind} ${r.id}\n${where}`;
}

/**
 * A table of findings (severity, check, resource, message) followed by a summary line per
 * severity and the coverage gaps (targets that could not be read).
 * @param width terminal width in columns (message column wraps to fit)
 */
export function renderTable(outcome: ScanOutcome, width = process.stdout.columns ?? 160): string {
  const msgWidth = Math.max(40, Math.min(100, width - 80));
  const table = new Table({
    head: ['severity', 'check', 'resource', 'message'],
    colWidths: [10, 30, 38, msgWidth],
    wordWrap: true,
    wrapOnWordBoundary: false,
    style: { head: [], border: [] },
  });
  for (const f of outcome.findings) table.push([f.severity, f.checkId, resourceLabel(f), f.message]);
  const s = outcome.scan.summary;
  const lines: string[] = [];
  lines.push(`Scan ${outcome.scan.id} of fleet "${outcome.scan.fleetName}" (${outcome.scan.source}): ${s.accounts} accounts, ${s.clusters} clusters, ${s.loadBalancers} CLB instances.`);
  if (outcome.findings.length > 0) lines.push(table.toString());
  lines.push(
    `Findings: ${s.findings} (critical ${s.bySeverity.critical}, warning ${s.bySeverity.warning}, info ${s.bySeverity.info}); ` +
      `checks evaluated: ${s.results.pass} pass, ${s.results.fail} fail, ${s.results.skipped} skipped.`,
  );
  const byCheck = Object.entries(s.byCheck)
    .map(([id, n]) => `${id} ${n}`)
    .join(', ');
  if (byCheck) lines.push(`By check: ${byCheck}.`);
  const gaps = outcome.scan.coverage.filter((c) => c.status === 'failed');
  if (gaps.length > 0) {
    lines.push(`Coverage gaps (not read, no claim made about them): ${gaps.length}`);
    for (const g of gaps.slice(0, 20))
      lines.push(`  - ${[g.accountId, g.regionId, g.clusterId].filter(Boolean).join('/')} ${g.api}: ${g.errorCode ?? 'error'} ${g.message ?? ''}`.trimEnd());
    if (gaps.length > 20) lines.push(`  ... and ${gaps.length - 20} more`);
  } else {
    lines.push(`Coverage: ${s.coverage.ok} datasets read, ${s.coverage.absent} absent, none failed.`);
  }
  lines.push(...skippedLines(outcome.scan.skipped));
  return `${lines.join('\n')}\n`;
}

/** The skipped results grouped by reason (one line per reason, naming its checks), at most 20 lines. */
function skippedLines(skipped: readonly SkippedResult[]): string[] {
  if (skipped.length === 0) return [];
  const byReason = new Map<string, Set<string>>();
  for (const k of skipped) {
    const checks = byReason.get(k.reason) ?? new Set<string>();
    checks.add(k.checkId);
    byReason.set(k.reason, checks);
  }
  const out = [`Not evaluated (skipped, no claim made): ${skipped.length} results, ${byReason.size} reasons`];
  for (const [reason, checks] of [...byReason.entries()].slice(0, 20))
    out.push(`  - ${[...checks].sort().join(', ')}: ${reason}`);
  if (byReason.size > 20) out.push(`  ... and ${byReason.size - 20} more reasons (see --format json: scan.skipped)`);
  return out;
}
