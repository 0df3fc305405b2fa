import { describe, expect, it } from 'vitest';
import type { CoverageEntry } from '@app/domain';
import { summarize, type ScanSummary } from './analyze-and-store';
import { sumShardSummaries } from './analyze-shard';

const part = (over: Partial<ScanSummary>): ScanSummary => ({ ...summarize({ name: '', accounts: [], coverage: [] }, new Map(), []), ...over });

describe(sumShardSummaries.name, () => {
  it('adds the parts, sorts the per-check maps by id, counts coverage over the merged entries and takes the accounts given', () => {
    const coverage: CoverageEntry[] = [
      { accountId: '1', regionId: 'r1', api: 'slb', status: 'ok' },
      { accountId: '1', regionId: 'r2', api: 'slb', status: 'failed', errorCode: 'ShardAnalysisFailed' },
      { accountId: '1', api: 'ram', status: 'absent' },
    ];
    const sum = sumShardSummaries(
      [
        part({ findings: 2, bySeverity: { info: 0, warning: 1, critical: 1 }, byCheck: { Z_CHECK: 1, A_CHECK: 1 }, results: { pass: 3, fail: 2, skipped: 1 }, byCheckStatus: { Z_CHECK: { pass: 1, fail: 1, skipped: 0 } }, clusters: 2, loadBalancers: 5, accounts: 1 }),
        part({ findings: 1, bySeverity: { info: 1, warning: 0, critical: 0 }, byCheck: { A_CHECK: 1 }, results: { pass: 1, fail: 1, skipped: 0 }, byCheckStatus: { A_CHECK: { pass: 0, fail: 1, skipped: 0 }, Z_CHECK: { pass: 1, fail: 0, skipped: 0 } }, clusters: 1, loadBalancers: 1, accounts: 0 }),
      ],
      coverage,
      3,
    );
    expect(sum).toEqual({
      findings: 3,
      bySeverity: { info: 1, warning: 1, critical: 1 },
      byCheck: { A_CHECK: 2, Z_CHECK: 1 },
      results: { pass: 4, fail: 3, skipped: 1 },
      byCheckStatus: { A_CHECK: { pass: 0, fail: 1, skipped: 0 }, Z_CHECK: { pass: 2, fail: 1, skipped: 0 } },
      coverage: { ok: 1, failed: 1, absent: 1 },
      accounts: 3,
      clusters: 3,
      loadBalancers: 6,
    });
    expect(Object.keys(sum.byCheck)).toEqual(['A_CHECK', 'Z_CHECK']);
    // Key order of the in-process summary (its JSON is compared byte for byte by some readers).
    expect(Object.keys(sum)).toEqual(Object.keys(summarize({ name: '', accounts: [], coverage: [] }, new Map(), [])));
  });
});
