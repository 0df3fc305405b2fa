/**
 * deploy/grafana/fleet-audit.dashboard.json and the alert runbooks against what `/metrics` exports:
 * every panel query names only exported metrics (fleet metrics of libs/telemetry, the process/runtime
 * metrics and the HTTP histogram of the API), and every alert rule links a section of docs/runbooks.md
 * that exists and cites its source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { FLEET_METRIC_NAMES, createProcessMetrics } from '@app/telemetry';

const ROOT = join(__dirname, '..', '..');

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Metric names in a PromQL expression: identifiers followed by `{`, `[`, `)` or the end that are not functions, keywords or labels. */
function metricNames(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '{}').replace(/\b(by|without)\s*\([^)]*\)/g, '');
  const FUNCTIONS = new Set(['sum', 'rate', 'histogram_quantile', 'topk', 'time', 'max', 'min', 'avg', 'count', 'increase', 'le']);
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)].map((m) => m[1]).filter((n) => !FUNCTIONS.has(n) && n.includes('_'));
}

/** The exported name a series belongs to (`_bucket`/`_count`/`_sum` of a histogram map to the histogram). */
function family(name: string, exported: Set<string>): string {
  for (const suffix of ['_bucket', '_count', '_sum']) if (name.endsWith(suffix) && exported.has(name.slice(0, -suffix.length))) return name.slice(0, -suffix.length);
  return name;
}

describe('Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'fleet-audit.dashboard.json'), 'utf8')) as { panels: Panel[]; uid: string };
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
  const exported = new Set<string>([...FLEET_METRIC_NAMES, ...createProcessMetrics().registry.getMetricsAsArray().map((m) => (m as unknown as { name: string }).name)]);

  it('covers quota usage (heat map, top-N), findings by severity and check, scan duration, coverage gaps and API latency', () => {
    const types = panels.map((p) => p.type);
    expect(types).toContain('heatmap');
    const exprs = panels.flatMap((p) => p.targets ?? []).map((t) => t.expr).join('\n');
    for (const needle of ['topk(10, fleet_audit_quota_usage_ratio)', 'sum by (severity) (fleet_audit_findings)', 'sum by (check_id) (fleet_audit_findings)', 'fleet_audit_last_scan_duration_seconds', 'fleet_audit_coverage_datasets', 'http_request_duration_seconds_bucket'])
      expect(exprs).toContain(needle);
  });

  it.each(panels.map((p) => [p.title, p] as const))('panel "%s" queries exported metrics only', (_title, p) => {
    expect(p.targets?.length ?? 0).toBeGreaterThan(0);
    for (const t of p.targets ?? []) {
      const names = metricNames(t.expr);
      expect(names.length, t.expr).toBeGreaterThan(0);
      for (const n of names) expect(exported.has(family(n, exported)), `${n} in "${t.expr}" is not exported by /metrics`).toBe(true);
    }
  });

  it('has account, team and cluster variables from fleet_audit_cluster_findings, used by the team panels', () => {
    const full = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'fleet-audit.dashboard.json'), 'utf8')) as { templating: { list: { name: string; definition?: string }[] } };
    const vars = new Map(full.templating.list.map((v) => [v.name, v.definition ?? '']));
    expect(vars.get('account')).toBe('label_values(fleet_audit_cluster_findings, account_id)');
    expect(vars.get('team')).toContain('team)');
    expect(vars.get('cluster')).toContain('cluster_name)');
    const exprs = panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    expect(exprs.filter((e) => e.includes('team=~"$team"') && e.includes('account_id=~"$account"')).length).toBeGreaterThanOrEqual(3);
  });

  it('the name check really catches a wrong name', () => {
    expect(metricNames('sum by (check_id) (fleet_audit_finding{severity="critical"})')).toEqual(['fleet_audit_finding']);
    expect(exported.has(family('fleet_audit_finding', exported))).toBe(false);
  });
});

describe('alert runbooks', () => {
  const rules = (parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'fleet-audit.rules.yml'), 'utf8')) as { groups: { rules: { alert: string; annotations: Record<string, string> }[] }[] }).groups.flatMap((g) => g.rules);
  const runbooks = readFileSync(join(ROOT, 'docs', 'runbooks.md'), 'utf8');
  const sections = new Map(
    runbooks
      .split(/^## /m)
      .slice(1)
      .map((s) => [s.split('\n')[0].trim(), s] as const),
  );

  it.each(rules.map((r) => [r.alert, r] as const))('%s links its docs/runbooks.md section, which says what to do and cites a source', (alert, r) => {
    expect(r.annotations.runbook_url).toMatch(new RegExp(`/docs/runbooks\\.md#${alert.toLowerCase()}$`));
    const section = sections.get(alert);
    expect(section, `docs/runbooks.md has no "## ${alert}"`).toBeDefined();
    expect(section).toMatch(/\*\*Meaning\.\*\*/);
    expect(section).toMatch(/\*\*Do\.\*\*/);
    expect(section).toMatch(/seed 00\d|docs\/checks\.md|iam-policy|SCAN_SCHEDULE/);
  });
});

describe('Alertmanager example (deploy/prometheus/alertmanager.yml)', () => {
  const am = parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'alertmanager.yml'), 'utf8')) as {
    route: { receiver: string; group_by: string[]; routes: { matchers: string[]; receiver: string }[] };
    receivers: { name: string }[];
  };
  const rules = (parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'fleet-audit.rules.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules);

  it('routes by team to receivers it defines, and the team alert keeps the label it routes on', () => {
    const names = new Set(am.receivers.map((r) => r.name));
    expect(names.has(am.route.receiver)).toBe(true);
    expect(am.route.group_by).toContain('team');
    const teamRoutes = am.route.routes.filter((r) => r.matchers.some((m) => m.startsWith('team=')));
    expect(teamRoutes.length).toBeGreaterThanOrEqual(3);
    for (const r of am.route.routes) expect(names.has(r.receiver), r.receiver).toBe(true);
    const teamAlert = rules.find((r) => r.alert === 'FleetAuditTeamCriticalFindings');
    expect(teamAlert?.expr).toMatch(/sum by \(team, account_id, cluster_id, cluster_name\) \(fleet_audit_cluster_findings/);
  });
});
