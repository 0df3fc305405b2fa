/**
 * deploy/prometheus/fleet-audit.rules.yml against what /metrics exports: every expression names exported
 * metrics only, every rule has a severity of the audit's scale and a summary, and the quota thresholds are
 * the audit's defaults (checks.md "Severity": 80 % / 95 %).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { DEFAULT_AUDIT_SETTINGS } from '@app/checks';
import { SEVERITIES } from '@app/domain';
import { FLEET_METRIC_NAMES } from '@app/telemetry';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description?: string };
}

const DIR = join(__dirname, '..', '..', 'deploy', 'prometheus');
const rules = (parse(readFileSync(join(DIR, 'fleet-audit.rules.yml'), 'utf8')) as { groups: { name: string; rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);

describe('Prometheus alert rules', () => {
  it('has the quota, findings and scan-health alerts, each named once', () => {
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const n of ['FleetAuditQuotaNearlyExhausted', 'FleetAuditQuotaExhausted', 'FleetAuditCriticalFindings', 'FleetAuditScanFailed', 'FleetAuditScanStale'])
      expect(names).toContain(n);
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s names exported metrics only and has a severity and summary', (_name, r) => {
    const metrics = r.expr.match(/\bfleet_audit_[a-z_]+/g) ?? [];
    expect(metrics.length).toBeGreaterThan(0);
    for (const m of metrics) expect(FLEET_METRIC_NAMES as readonly string[]).toContain(m);
    expect(SEVERITIES as readonly string[]).toContain(r.labels.severity);
    expect(r.annotations.summary.length).toBeGreaterThan(10);
  });

  it('quota alerts fire at the audit default thresholds, so alerts and findings agree', () => {
    const { warningRatio, criticalRatio } = DEFAULT_AUDIT_SETTINGS.quota;
    const near = rules.find((r) => r.alert === 'FleetAuditQuotaNearlyExhausted');
    const full = rules.find((r) => r.alert === 'FleetAuditQuotaExhausted');
    expect(near?.expr).toBe(`fleet_audit_quota_usage_ratio >= ${warningRatio} < ${criticalRatio}`);
    expect(near?.labels.severity).toBe('warning');
    expect(full?.expr).toBe(`fleet_audit_quota_usage_ratio >= ${criticalRatio}`);
    expect(full?.labels.severity).toBe('critical');
  });

  it('the example scrape config sends the bearer token and loads the rules', () => {
    const cfg = parse(readFileSync(join(DIR, 'prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: { metrics_path: string; authorization: { type: string } }[];
    };
    expect(cfg.rule_files).toContain('fleet-audit.rules.yml');
    expect(cfg.scrape_configs[0]).toMatchObject({ metrics_path: '/metrics', authorization: { type: 'Bearer' } });
  });
});
