/**
 * The weekly report lists NLB quota measurements like CLB ones: `buildReport` ranks every quota
 * sample of the scan by usage, whatever its check (the NLB quota checks of libs/checks QUOTA_USAGE_CHECK_IDS
 * included), keeps their forecasts, and the renderers print them. Pure: a hand-made `ReportInput`, no store.
 */
import { describe, expect, it } from 'vitest';
import type { QuotaUsageSample } from '@app/domain';
import { buildReport, renderReport, type ReportInput } from '@app/reports';

const ACCOUNT = '1234567890123456';
const now = new Date('2026-11-23T00:00:00Z');

function sample(checkId: string, kind: QuotaUsageSample['resource']['kind'], id: string, used: number, limit: number): QuotaUsageSample {
  return { checkId, resource: { kind, id, accountId: ACCOUNT, regionId: 'cn-hangzhou' }, used, limit, ratio: used / limit };
}

function input(quotaUsage: QuotaUsageSample[]): ReportInput {
  return {
    period: { start: new Date('2026-11-16T00:00:00Z'), end: now },
    current: { scan: { id: '00000000-0000-4000-8000-000000000001', startedAt: now.toISOString(), fleetName: 'sample' }, findings: [], coverage: [], quotaUsage },
    previous: null,
    waivers: [],
    trend: [],
    forecasts: [
      {
        checkId: 'NLB_SERVER_GROUP_QUOTA',
        resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT, regionId: 'cn-hangzhou' },
        used: 2910,
        limit: 3000,
        status: 'ok',
        exhaustsAtP10: '2026-12-01T00:00:00.000Z',
      },
    ],
    forecastNote: '',
    asOf: now,
    generatedAt: now,
  };
}

describe('weekly report: NLB quotas', () => {
  const samples = [
    sample('CLB_BACKEND_QUOTA', 'LoadBalancer', 'lb-warm', 100, 200),
    // 3,000 server groups per account and region, fixed (research/nlb.md 5).
    sample('NLB_SERVER_GROUP_QUOTA', 'Region', 'cn-hangzhou', 2910, 3000),
    sample('NLB_BACKEND_QUOTA', 'NetworkLoadBalancer', 'nlb-bp1hot', 240, 400),
    sample('NLB_SERVER_ADDED_QUOTA', 'EcsInstance', 'i-bp1node', 90, 200),
  ];
  const doc = buildReport(input(samples));

  it('ranks NLB quota samples with the CLB ones by usage, with their forecasts', () => {
    expect(doc.quotas.byUsage.map((q) => [q.checkId, q.resource.kind, q.resource.id, q.ratio])).toEqual([
      ['NLB_SERVER_GROUP_QUOTA', 'Region', 'cn-hangzhou', 0.97],
      ['NLB_BACKEND_QUOTA', 'NetworkLoadBalancer', 'nlb-bp1hot', 0.6],
      ['CLB_BACKEND_QUOTA', 'LoadBalancer', 'lb-warm', 0.5],
      ['NLB_SERVER_ADDED_QUOTA', 'EcsInstance', 'i-bp1node', 0.45],
    ]);
    expect(doc.quotas.byUsage[0]).toMatchObject({ used: 2910, limit: 3000, exhaustsAtP10: '2026-12-01T00:00:00.000Z' });
    expect(doc.quotas.byExhaustion.map((q) => q.checkId)).toEqual(['NLB_SERVER_GROUP_QUOTA']);
  });

  it('prints them in Markdown and HTML', () => {
    const md = renderReport(doc, 'md');
    expect(md).toContain('| NLB_SERVER_GROUP_QUOTA | Region cn-hangzhou |');
    expect(md).toContain('| NLB_BACKEND_QUOTA | NetworkLoadBalancer nlb-bp1hot |');
    const html = renderReport(doc, 'html');
    expect(html).toContain('NetworkLoadBalancer nlb-bp1hot');
  });
});
