import { describe, expect, it } from 'vitest';
import { matchesPattern, selectCluster } from './cluster-selection';
import { parseScanConfig, ScanConfigError } from './scan-config.loader';

const item = (name: string, region = 'cn-hangzhou', tags: { key: string; value: string }[] = []) => ({
  cluster_id: 'c0000000000000000000000000000000a',
  name,
  region_id: region,
  tags,
});
const configWith = (clusters: unknown) =>
  parseScanConfig(JSON.stringify({ accounts: [{ accountId: '1', regions: ['cn-hangzhou'] }], clusters }), 'scan.json');

describe('matchesPattern', () => {
  it('matches exactly, or by prefix before a trailing *', () => {
    expect(matchesPattern('prod', 'prod')).toBe(true);
    expect(matchesPattern('prod', 'prod-1')).toBe(false);
    expect(matchesPattern('prod-*', 'prod-1')).toBe(true);
    expect(matchesPattern('prod-*', 'dev-1')).toBe(false);
    expect(matchesPattern('*', '')).toBe(true);
    // No other wildcard: a * inside the pattern is a literal character.
    expect(matchesPattern('p*d', 'prod')).toBe(false);
  });
  it('is linear: a long adversarial value is judged at once', () => {
    expect(matchesPattern(`${'a'.repeat(10_000)}*`, `${'a'.repeat(9_999)}b${'a'.repeat(100_000)}`)).toBe(false);
  });
});

describe('selectCluster', () => {
  it('reads every cluster without include or exclude', () => {
    expect(selectCluster(configWith(undefined), { accountId: '1', item: item('x') })).toEqual({ selected: true });
  });
  it('exclude names its entry; include leaves out what it does not match', () => {
    const config = configWith({
      include: [{ tag: 'env=prod' }, { name: 'storefront' }],
      exclude: [{ region: 'cn-beijing' }, { name: 'legacy-*', accountId: 1 }],
    });
    expect(selectCluster(config, { accountId: '1', item: item('api', 'cn-hangzhou', [{ key: 'env', value: 'prod' }]) })).toEqual({ selected: true });
    expect(selectCluster(config, { accountId: '1', item: item('storefront') })).toEqual({ selected: true });
    expect(selectCluster(config, { accountId: '1', item: item('storefront', 'cn-beijing') })).toEqual({
      selected: false,
      reason: 'excluded by clusters.exclude[0] (region: cn-beijing)',
    });
    expect(selectCluster(config, { accountId: '1', item: item('legacy-a', 'cn-hangzhou', [{ key: 'env', value: 'prod' }]) })).toEqual({
      selected: false,
      reason: 'excluded by clusters.exclude[1] (accountId: 1, name: legacy-*)',
    });
    // the account must match too
    expect(selectCluster(config, { accountId: '2', item: item('legacy-a', 'cn-hangzhou', [{ key: 'env', value: 'prod' }]) }).selected).toBe(true);
    expect(selectCluster(config, { accountId: '1', item: item('dev', 'cn-hangzhou', [{ key: 'env', value: 'dev' }]) })).toEqual({
      selected: false,
      reason: 'matched by no entry of clusters.include ({tag: env=prod}, {name: storefront})',
    });
  });
  it('a tag without a value matches any value of that key', () => {
    const config = configWith({ exclude: [{ tag: 'sandbox' }] });
    expect(selectCluster(config, { accountId: '1', item: item('a', 'cn-hangzhou', [{ key: 'sandbox', value: '' }]) }).selected).toBe(false);
    expect(selectCluster(config, { accountId: '1', item: item('a', 'cn-hangzhou', [{ key: 'team', value: 'sandbox' }]) }).selected).toBe(true);
  });
  it('an empty matcher and an unknown key are refused with their path', () => {
    expect(() => configWith({ exclude: [{}] })).toThrow(ScanConfigError);
    expect(() => configWith({ exclude: [{}] })).toThrow(/clusters\.exclude\[0\].*at least one of accountId, region, id, name, tag/);
    expect(() => configWith({ include: [{ label: 'x' }] })).toThrow(/clusters\.include\[0\]/);
  });
});
