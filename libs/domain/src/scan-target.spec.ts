import { describe, expect, it } from 'vitest';
import { coverageKey, targetKey, targetLabel } from './scan-target';

describe('target and coverage keys', () => {
  it('keys targets by kind and ids, encoding separators so no id can forge another key', () => {
    expect(targetKey({ accountId: '1001' })).toBe('account/1001');
    expect(targetKey({ accountId: '1001', regionId: 'cn-hangzhou' })).toBe('region/1001/cn-hangzhou');
    expect(targetKey({ accountId: '1001', regionId: 'cn-hangzhou', clusterId: 'c/x:1' })).toBe(
      'cluster/1001/cn-hangzhou/c%2Fx%3A1',
    );
  });

  it('a coverage entry keys to the target that read it (its most specific place)', () => {
    const entry = { accountId: '1001', regionId: 'cn-hangzhou', clusterId: 'c1', api: 'kubernetes' };
    expect(targetKey(entry)).toBe(targetKey({ accountId: '1001', regionId: 'cn-hangzhou', clusterId: 'c1' }));
    expect(coverageKey(entry)).toBe('1001|cn-hangzhou|c1|kubernetes');
    expect(coverageKey({ accountId: '1001', api: 'ram' })).toBe('1001|||ram');
  });

  it('labels targets for messages as account[/region[/cluster]]', () => {
    expect(targetLabel({ accountId: '1001', regionId: 'cn-beijing', clusterId: 'c1' })).toBe('1001/cn-beijing/c1');
    expect(targetLabel({ accountId: '1001' })).toBe('1001');
  });
});
