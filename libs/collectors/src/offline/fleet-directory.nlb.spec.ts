/**
 * The `nlb/` files of the fleet format (docs/fleet-format.md; research/nlb.md 7): read and validated into
 * `WireRegion.nlb`, mapped to `RegionSnapshot.nlbs` / `nlbServerGroups`, required (a region without them is an
 * `nlb` coverage gap that leaves the CLB data alone), and written back by the fleet writer (dump -> offline scan
 * round-trips).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapWireFleet } from '@app/domain';
import { readFleetDirectory, FleetValidationError } from './fleet-directory.reader';
import { writeFleetDirectory } from './fleet-directory.writer';

const SAMPLE = join(__dirname, '..', '..', '..', '..', 'examples', 'fleets', 'sample');
const REGION = 'accounts/1987654321098765/regions/cn-hangzhou';

const NLB = {
  LoadBalancerId: 'nlb-wwhlwqzwrne2tmqfxl',
  LoadBalancerName: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
  LoadBalancerStatus: 'Active',
  AddressType: 'Internet',
  AddressIpVersion: 'ipv4',
  VpcId: 'vpc-bp1testnlb0000000000',
  DNSName: 'nlb-wwhlwqzwrne2tmqfxl.cn-hangzhou.nlb.aliyuncsslb.com',
  ZoneMappings: [
    { ZoneId: 'cn-hangzhou-i', VSwitchId: 'vsw-bp1i' },
    { ZoneId: 'cn-hangzhou-h', VSwitchId: 'vsw-bp1h' },
  ],
  Tags: [
    { Key: 'kubernetes.do.not.delete', Value: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' },
    { Key: 'ack.aliyun.com', Value: 'c75849719d4432e7378507410f099fa74' },
  ],
};
const GROUP_NAME = 'k8s.31080.TCP.web.default.c75849719d4432e7378507410f099fa74';
const LISTENERS = [
  {
    ListenerId: 'lsn-b',
    LoadBalancerId: NLB.LoadBalancerId,
    ListenerProtocol: 'TCP',
    ListenerPort: 80,
    ServerGroupId: 'sgp-used',
    ListenerDescription: 'k8s.80.TCP.web.default.c75849719d4432e7378507410f099fa74',
  },
  { ListenerId: 'lsn-a', LoadBalancerId: NLB.LoadBalancerId, ListenerProtocol: 'TCP', ListenerPort: 0, StartPort: '1000', EndPort: '2000', ServerGroupId: 'sgp-used' },
];
const GROUPS = [
  { ServerGroupId: 'sgp-used', ServerGroupName: GROUP_NAME, ServerGroupType: 'Instance', Protocol: 'TCP', RelatedLoadBalancerIds: [NLB.LoadBalancerId], ServerCount: 2, Tags: NLB.Tags },
  { ServerGroupId: 'sgp-leaked', ServerGroupName: 'k8s.31081.TCP.gone.default.c75849719d4432e7378507410f099fa74', ServerGroupType: 'Instance', RelatedLoadBalancerIds: [], ServerCount: 0 },
];
const SERVERS = [
  { ServerGroupId: 'sgp-used', ServerId: 'i-b', ServerType: 'Ecs', Port: 31080, Weight: 100, Description: GROUP_NAME },
  { ServerGroupId: 'sgp-used', ServerId: 'i-a', ServerIp: '', ServerType: 'Ecs', Port: '31080', Weight: 100, Description: GROUP_NAME },
];

describe('fleet directory nlb/ files', () => {
  let root: string;
  const copy = (name: string): string => {
    const dir = join(root, name);
    cpSync(SAMPLE, dir, { recursive: true });
    return dir;
  };
  const writeNlb = (dir: string, file: string, data: unknown): void => writeFileSync(join(dir, REGION, 'nlb', file), JSON.stringify(data));
  const withNlb = (name: string): string => {
    const dir = copy(name);
    writeNlb(dir, 'load-balancers.json', [NLB]);
    writeNlb(dir, 'listeners.json', LISTENERS);
    writeNlb(dir, 'server-groups.json', GROUPS);
    writeNlb(dir, 'servers.json', SERVERS);
    return dir;
  };
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'fleet-nlb-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads the four files into WireRegion.nlb and maps them, sorted, with every server group of the region', () => {
    const wire = readFleetDirectory(withNlb('read'));
    const region = wire.accounts.find((a) => a.account.accountId === '1987654321098765')!.regions.find((r) => r.regionId === 'cn-hangzhou')!;
    expect(region.nlb?.listeners[1].StartPort).toBe(1000); // ListListeners sends StartPort / EndPort as strings
    const snap = mapWireFleet(wire).accounts.find((a) => a.accountId === '1987654321098765')!.regions.find((r) => r.regionId === 'cn-hangzhou')!;
    expect(snap.nlbs).toHaveLength(1);
    const nlb = snap.nlbs![0];
    expect(nlb.tags).toEqual({ 'kubernetes.do.not.delete': 'a1b2c3d4e5f60718293a4b5c6d7e8f90', 'ack.aliyun.com': 'c75849719d4432e7378507410f099fa74' });
    expect(nlb.zoneMappings.map((z) => z.zoneId)).toEqual(['cn-hangzhou-h', 'cn-hangzhou-i']);
    expect(nlb.listeners.map((l) => [l.listenerId, l.port, l.startPort, l.endPort])).toEqual([
      ['lsn-a', 0, 1000, 2000],
      ['lsn-b', 80, undefined, undefined],
    ]);
    expect(nlb.serverGroupIds).toEqual(['sgp-used']);
    expect(snap.nlbServerGroups?.map((g) => [g.serverGroupId, g.relatedLoadBalancerIds, g.servers.map((s) => s.serverId)])).toEqual([
      ['sgp-leaked', [], []],
      ['sgp-used', [NLB.LoadBalancerId], ['i-a', 'i-b']],
    ]);
    expect(snap.nlbServerGroups![1].servers[0]).toEqual({ serverId: 'i-a', type: 'Ecs', port: 31080, weight: 100, description: GROUP_NAME });
    const coverage = wire.coverage.find((c) => c.accountId === '1987654321098765' && c.regionId === 'cn-hangzhou' && c.api === 'nlb');
    expect(coverage).toEqual({ accountId: '1987654321098765', regionId: 'cn-hangzhou', api: 'nlb', status: 'ok' });
  });

  it('a region with four empty files reads as "no NLB" (nlbs = []), not as a gap', () => {
    const dir = copy('empty');
    for (const region of ['1234567890123456/regions/cn-beijing', '1234567890123456/regions/cn-hangzhou', '1987654321098765/regions/cn-beijing', '1987654321098765/regions/cn-hangzhou'])
      for (const f of ['load-balancers', 'listeners', 'server-groups', 'servers']) writeFileSync(join(dir, 'accounts', region, 'nlb', `${f}.json`), '[]\n');
    const snap = mapWireFleet(readFleetDirectory(dir));
    for (const region of snap.accounts.flatMap((a) => a.regions)) {
      expect(region.nlbs).toEqual([]);
      expect(region.nlbServerGroups).toEqual([]);
    }
    expect(snap.coverage.filter((c) => c.api === 'nlb').map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('without one of the files the region is an nlb coverage gap (ENOENT, naming the file) and its CLB data is still read', () => {
    const dir = withNlb('missing');
    unlinkSync(join(dir, REGION, 'nlb', 'servers.json'));
    const wire = readFleetDirectory(dir);
    const snap = mapWireFleet(wire);
    const region = snap.accounts.find((a) => a.accountId === '1987654321098765')!.regions.find((r) => r.regionId === 'cn-hangzhou')!;
    expect(region.nlbs).toBeUndefined();
    expect(region.nlbServerGroups).toBeUndefined();
    expect(region.loadBalancers?.length).toBeGreaterThan(0);
    const gaps = snap.coverage.filter((c) => c.status === 'failed');
    expect(gaps).toEqual([
      {
        accountId: '1987654321098765',
        regionId: 'cn-hangzhou',
        api: 'nlb',
        status: 'failed',
        errorCode: 'ENOENT',
        message: `${REGION}/nlb/servers.json: missing, required by the fleet format (ENOENT)`,
      },
    ]);
  });

  it('refuses an invalid file with one error naming the file and the JSON path', () => {
    const dir = withNlb('invalid');
    writeNlb(dir, 'load-balancers.json', [{ ...NLB, LoadBalancerId: 'lb-notannlb' }]);
    expect(() => readFleetDirectory(dir)).toThrow(FleetValidationError);
    expect(() => readFleetDirectory(dir)).toThrow(`${REGION}/nlb/load-balancers.json: $[0].LoadBalancerId: an NLB id (nlb-...)`);
    writeNlb(dir, 'load-balancers.json', [NLB]);
    writeNlb(dir, 'servers.json', [{ ...SERVERS[0], ServerType: undefined }]);
    expect(() => readFleetDirectory(dir)).toThrow(`${REGION}/nlb/servers.json: $[0].ServerType: expected string, got missing`);
  });

  it('an invalid file is refused even when a sibling is missing (the gap does not hide it)', () => {
    const dir = withNlb('invalid-with-gap');
    unlinkSync(join(dir, REGION, 'nlb', 'listeners.json'));
    writeNlb(dir, 'server-groups.json', [{ ServerGroupId: 'rsp-clb-group' }]);
    expect(() => readFleetDirectory(dir)).toThrow(`${REGION}/nlb/server-groups.json: $[0].ServerGroupId: an NLB server group id (sgp-...)`);
  });

  it('refuses a listener of an unlisted NLB and a server of an unlisted server group', () => {
    const dir = withNlb('refs');
    writeNlb(dir, 'listeners.json', [{ ...LISTENERS[0], LoadBalancerId: 'nlb-elsewhere' }]);
    expect(() => readFleetDirectory(dir)).toThrow(`${REGION}/nlb/listeners.json: $[0].LoadBalancerId: an NLB listed in nlb/load-balancers.json, got "nlb-elsewhere"`);
    writeNlb(dir, 'listeners.json', LISTENERS);
    writeNlb(dir, 'servers.json', [{ ...SERVERS[0], ServerGroupId: 'sgp-unknown' }]);
    expect(() => readFleetDirectory(dir)).toThrow(`${REGION}/nlb/servers.json: $[0].ServerGroupId: a server group listed in nlb/server-groups.json, got "sgp-unknown"`);
  });

  it('the fleet writer writes the nlb/ files back: write -> read gives the same wire data', () => {
    const wire = readFleetDirectory(withNlb('roundtrip-src'));
    const out = join(root, 'roundtrip-out');
    writeFleetDirectory(wire, out);
    expect(JSON.parse(readFileSync(join(out, REGION, 'nlb', 'servers.json'), 'utf8'))).toHaveLength(2);
    const again = readFleetDirectory(out);
    expect(mapWireFleet(again)).toEqual(mapWireFleet(wire));
  });
});
