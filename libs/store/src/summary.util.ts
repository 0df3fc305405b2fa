import type { Finding, Severity } from '@app/domain';
import type { ScanSummary } from './store.types';

/**
 * Count findings by severity and by check id: the default `summary` of a completed scan.
 * `byCheck` keys are sorted so the stored JSON is deterministic.
 */
export function summarizeFindings(findings: readonly Finding[]): ScanSummary {
  const bySeverity: Record<Severity, number> = { info: 0, warning: 0, critical: 0 };
  const byCheck = new Map<string, number>();
  for (const f of findings) {
    bySeverity[f.severity] += 1;
    byCheck.set(f.checkId, (byCheck.get(f.checkId) ?? 0) + 1);
  }
  return {
    findings: findings.length,
    bySeverity,
    byCheck: Object.fromEntries([...byCheck].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}
