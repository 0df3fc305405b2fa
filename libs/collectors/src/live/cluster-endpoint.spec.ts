import { describe, expect, it } from 'vitest';
import { chooseEndpoint, endpointFix, endpointModeOf, parseMasterUrl } from './cluster-endpoint';
import { parseScanConfig, ScanConfigError } from './scan-config.loader';

const MASTER_PRIVATE = JSON.stringify({ api_server_endpoint: '', intranet_api_server_endpoint: 'https://10.0.0.253:6443' });
const MASTER_BOTH = JSON.stringify({ api_server_endpoint: 'https://47.1.2.3:6443', intranet_api_server_endpoint: 'https://10.0.0.253:6443' });
const AUTO = { mode: 'auto' as const, from: 'clusters.kubernetesEndpoint' };

describe('parseMasterUrl', () => {
  it('reads both endpoints; an empty public endpoint is absent', () => {
    expect(parseMasterUrl({ master_url: MASTER_BOTH })).toEqual({ public: 'https://47.1.2.3:6443', intranet: 'https://10.0.0.253:6443' });
    expect(parseMasterUrl({ master_url: MASTER_PRIVATE })).toEqual({ intranet: 'https://10.0.0.253:6443' });
  });
  it('knows nothing from a missing, empty or malformed value', () => {
    expect(parseMasterUrl({})).toBeUndefined();
    expect(parseMasterUrl({ master_url: '' })).toBeUndefined();
    expect(parseMasterUrl({ master_url: '{not json' })).toBeUndefined();
    expect(parseMasterUrl({ master_url: '"a string"' })).toBeUndefined();
    expect(parseMasterUrl(undefined)).toBeUndefined();
  });
});

describe('chooseEndpoint', () => {
  it('auto: intranet without a public endpoint, public with one, public when unknown (the API default)', () => {
    expect(chooseEndpoint({ master_url: MASTER_PRIVATE, vpc_id: 'vpc-a' }, AUTO)).toMatchObject({ kind: 'intranet', address: 'https://10.0.0.253:6443', vpcId: 'vpc-a', hasPublic: false });
    expect(chooseEndpoint({ master_url: MASTER_BOTH, vpc_id: 'vpc-a' }, AUTO)).toMatchObject({ kind: 'public', address: 'https://47.1.2.3:6443', hasPublic: true });
    expect(chooseEndpoint({ vpc_id: 'vpc-a' }, AUTO)).toMatchObject({ kind: 'public' });
    expect(chooseEndpoint(undefined, AUTO).kind).toBe('public');
  });
  it('public and private are taken as configured', () => {
    expect(chooseEndpoint({ master_url: MASTER_PRIVATE }, { mode: 'public', from: 'x' }).kind).toBe('public');
    expect(chooseEndpoint({ master_url: MASTER_BOTH }, { mode: 'private', from: 'x' }).kind).toBe('intranet');
  });
  it('the fix names the VPC and the config key', () => {
    const intranet = chooseEndpoint({ master_url: MASTER_PRIVATE, vpc_id: 'vpc-a' }, AUTO);
    expect(endpointFix(intranet)).toMatch(/WORKER_REACH=vpc-a/);
    const noPublic = chooseEndpoint({ master_url: MASTER_PRIVATE, vpc_id: 'vpc-a' }, { mode: 'public', from: 'accounts[1].kubernetesEndpoint' });
    expect(endpointFix(noPublic)).toMatch(/no public endpoint .*accounts\[1\]\.kubernetesEndpoint: auto or private .*vpc-a/);
  });
});

describe('endpointModeOf', () => {
  const config = parseScanConfig(
    JSON.stringify({
      accounts: [
        { accountId: '1', regions: ['cn-hangzhou', 'cn-beijing'], kubernetesEndpoint: 'private', kubernetesEndpointByRegion: { 'cn-beijing': 'public' } },
        { accountId: '2', regions: ['cn-hangzhou'] },
      ],
      clusters: { kubernetesEndpointByCluster: { storefront: 'public', c00000000000000000000000000000001: 'auto' } },
    }),
    'scan.json',
  );
  const ref = (accountId: string, regionId: string, name: string, clusterId = 'c0000000000000000000000000000000f') => ({ accountId, regionId, clusterId, name });
  it('cluster id, then name, then the account region, the account, then the fleet default', () => {
    expect(endpointModeOf(config, ref('1', 'cn-hangzhou', 'storefront', 'c00000000000000000000000000000001'))).toEqual({ mode: 'auto', from: 'clusters.kubernetesEndpointByCluster.c00000000000000000000000000000001' });
    expect(endpointModeOf(config, ref('1', 'cn-hangzhou', 'storefront')).mode).toBe('public');
    expect(endpointModeOf(config, ref('1', 'cn-beijing', 'x'))).toEqual({ mode: 'public', from: 'accounts[1].kubernetesEndpointByRegion.cn-beijing' });
    expect(endpointModeOf(config, ref('1', 'cn-hangzhou', 'x'))).toEqual({ mode: 'private', from: 'accounts[1].kubernetesEndpoint' });
    expect(endpointModeOf(config, ref('2', 'cn-hangzhou', 'x'))).toEqual({ mode: 'auto', from: 'clusters.kubernetesEndpoint' });
  });
  it('a region override for a region the account does not scan is refused with its path', () => {
    expect(() =>
      parseScanConfig(JSON.stringify({ accounts: [{ accountId: '1', regions: ['cn-hangzhou'], kubernetesEndpointByRegion: { 'cn-beijing': 'public' } }] }), 'scan.json'),
    ).toThrow(ScanConfigError);
    expect(() =>
      parseScanConfig(JSON.stringify({ accounts: [{ accountId: '1', regions: ['cn-hangzhou'], kubernetesEndpointByRegion: { 'cn-beijing': 'public' } }] }), 'scan.json'),
    ).toThrow(/accounts\[0\]\.kubernetesEndpointByRegion\["cn-beijing"\]: region cn-beijing is not in this account.s regions/);
    expect(() => parseScanConfig(JSON.stringify({ accounts: [{ accountId: '1', regions: ['cn-hangzhou'] }], clusters: { kubernetesEndpoint: 'intranet' } }), 'scan.json')).toThrow(
      /clusters\.kubernetesEndpoint/,
    );
  });
});
