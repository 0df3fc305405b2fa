/**
 * The alert rules, their unit tests, the example scrape config and the /metrics exposition, checked by
 * Prometheus' own `promtool` (Debian package `prometheus`). `.ci/run` provides it and sets
 * REQUIRE_PROMTOOL=1, so in CI a missing promtool fails instead of skipping. Locally: put promtool on the
 * PATH or point PROMTOOL at it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProcessMetrics, renderFleetMetrics } from '@app/telemetry';

const DIR = join(__dirname, '..', '..', 'deploy', 'prometheus');

function findPromtool(): string | undefined {
  const candidates = [process.env.PROMTOOL, 'promtool'].filter((c): c is string => !!c);
  for (const c of candidates) {
    const r = spawnSync(c, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return undefined;
}

const promtool = findPromtool();

describe('promtool', () => {
  // Where promtool is absent and not required, this and every check below report themselves skipped, not passed.
  it.skipIf(promtool === undefined && process.env.REQUIRE_PROMTOOL !== '1')('is available (required in CI)', () => {
    expect(promtool, 'promtool not found (PROMTOOL or PATH)').toBeDefined();
  });

  describe.runIf(promtool !== undefined)('with promtool', () => {
    const run = (args: string[], input?: string) =>
      spawnSync(promtool as string, args, { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });

    it('accepts the alert rules', () => {
      const r = run(['check', 'rules', join(DIR, 'fleet-audit.rules.yml')]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
    });

    it('passes the rules unit tests (which alerts fire on which series, with which labels and texts)', () => {
      const r = run(['test', 'rules', join(DIR, 'fleet-audit.rules.test.yml')]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
    });

    it('accepts the example scrape config (with a token file in place)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'prom-'));
      writeFileSync(join(dir, 'fleet-audit.token'), 'x'.repeat(32));
      writeFileSync(join(dir, 'fleet-audit.rules.yml'), readFileSync(join(DIR, 'fleet-audit.rules.yml')));
      const cfg = readFileSync(join(DIR, 'prometheus.yml'), 'utf8').replace('/etc/prometheus/fleet-audit.token', join(dir, 'fleet-audit.token'));
      writeFileSync(join(dir, 'prometheus.yml'), cfg);
      const r = run(['check', 'config', join(dir, 'prometheus.yml')]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
    });

    it('lints the /metrics exposition clean (names, help, units)', async () => {
      const text = await renderFleetMetrics({
        latest: {
          startedAt: '2026-11-22T00:00:00Z',
          finishedAt: '2026-11-22T00:01:00Z',
          findings: [{ checkId: 'LB_ORPHANED', severity: 'warning', count: 2 }],
          byCheckStatus: { LB_ORPHANED: { pass: 1, fail: 2, skipped: 0 } },
          coverage: [{ accountId: '1', api: 'ram', status: 'failed', errorCode: 'Forbidden.RAM' }],
          quotaUsage: [
            { checkId: 'CLB_BACKEND_QUOTA', resource: { kind: 'LoadBalancer', id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou' }, used: 180, limit: 200, ratio: 0.9 },
          ],
        },
        lastFinished: { status: 'succeeded', startedAt: '2026-11-22T00:00:00Z', finishedAt: '2026-11-22T00:01:00Z' },
      });
      // The API appends its process/runtime metrics and the HTTP histogram (MetricsService.render).
      const proc = createProcessMetrics();
      proc.httpDuration.observe({ method: 'GET', route: '/v1/scans', status_code: '200' }, 0.012);
      const r = run(['check', 'metrics'], `${text.trimEnd()}\n${await proc.render()}`);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect((r.stdout + r.stderr).trim()).toBe('');
    });
  });
});

