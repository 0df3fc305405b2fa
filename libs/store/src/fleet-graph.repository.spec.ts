import { describe, expect, it } from 'vitest';
import type { BuiltNlbServerGroup, BuiltServerGroup, FleetGraph, GraphBackend, GraphBackendEntry, GraphEcsInstance, NlbServer } from '@app/domain';
import type { BuiltNlb } from '@app/domain';
import { BackendsJson, backendsJson, ecsAttachmentRows, nlbRows, NlbServerGroupsJson, ServerLists, serverGroupRows, storedFleetGraph, storedNlbServerGroup } from './fleet-graph.repository';

describe(backendsJson.name, () => {
  it('writes the text JSON.stringify gives for the backend tuples, escapes and nulls included', () => {
    const backends = [
      { serverId: 'i-bp1node01', serverIp: '192.168.0.21', port: 31443, weight: 100, type: 'ecs' },
      { serverId: 'eni-"quoted"\\back', serverIp: null, port: null, weight: 0, type: 'eni' },
      { serverId: 'ctl\u0000\n\t', serverIp: 'lone \ud800 pair 😀 é', port: Number.NaN, weight: -0, type: 'eci' },
      { serverId: '\u2028', serverIp: undefined, port: 1.5, weight: 1e21, type: '' },
    ] as unknown as GraphBackend[];
    const expected = JSON.stringify(backends.map((b) => [b.serverId, b.serverIp, b.port, b.weight, b.type]));
    expect(backendsJson(backends)).toBe(expected);
    expect(backendsJson([])).toBe('[]');
  });

  it('writes every list of one memo as JSON.stringify does: repeated lists at other ports, changed, shorter and longer ones', () => {
    const b = (serverId: string, serverIp: string | null, port: number | null, weight = 100, type = 'ecs'): GraphBackend => ({ serverId, serverIp, port, weight, type });
    const nodes = ['i-1', 'i-2', 'i-3', 'i-"4"'];
    const lists: GraphBackend[][] = [
      nodes.map((n, i) => b(n, `10.0.0.${i}`, 30001)),
      nodes.map((n, i) => b(n, `10.0.0.${i}`, 30002)),
      // Another IP at one position, then fewer and more backends starting with the same server.
      nodes.map((n, i) => b(n, i === 2 ? '10.0.9.9' : `10.0.0.${i}`, 30003)),
      nodes.slice(0, 2).map((n, i) => b(n, `10.0.0.${i}`, 30004)),
      [...nodes, 'i-5'].map((n, i) => b(n, `10.0.0.${i}`, 30005)),
      nodes.map((n, i) => b(n, `10.0.0.${i}`, 30001)),
      // Not one port, weight and type for all.
      nodes.map((n, i) => b(n, `10.0.0.${i}`, 30006 + (i % 2), i === 3 ? 0 : 100, i === 1 ? 'eni' : 'ecs')),
      [b('i-2', null, null, 0, 'eni\n'), b('i-1', '10.0.0.0', 1)],
    ];
    const memo = new BackendsJson();
    for (const list of lists) expect(memo.of(list)).toBe(JSON.stringify(list.map((x) => [x.serverId, x.serverIp, x.port, x.weight, x.type])));
  });
});

describe('BackendsJson on the snapshot\'s own entries (a built graph\'s backends)', () => {
  it('writes an absent IP or port as null, ignores what else an entry holds, and gives the same text as for the stored shape', () => {
    // As the snapshot holds them (libs/domain BackendServer): optional IP and port, CCM's description beside them.
    const snapshotEntries: GraphBackendEntry[] = [
      { serverId: 'i-1', serverIp: '10.0.0.1', port: 30001, weight: 100, type: 'ecs', description: 'k8s/30001/svc/ns/c1' } as GraphBackendEntry,
      { serverId: 'i-2', weight: 100, type: 'ecs', port: 30001 },
      { serverId: 'eni-3', serverIp: '10.0.0.3', weight: 50, type: 'eni' },
    ];
    const stored: GraphBackend[] = snapshotEntries.map((b) => ({ serverId: b.serverId, serverIp: b.serverIp ?? null, port: b.port ?? null, weight: b.weight, type: b.type }));
    const expected = JSON.stringify(stored.map((b) => [b.serverId, b.serverIp, b.port, b.weight, b.type]));
    expect(backendsJson(snapshotEntries)).toBe(expected);
    // One memo seeing both shapes of the same lists (an absent IP and a null one are the same text), uniform lists too.
    const memo = new BackendsJson();
    const uniform: GraphBackendEntry[] = [{ serverId: 'i-7', weight: 100, type: 'ecs' }, { serverId: 'i-8', serverIp: '10.0.0.8', weight: 100, type: 'ecs' }];
    const uniformStored: GraphBackend[] = [{ serverId: 'i-7', serverIp: null, port: null, weight: 100, type: 'ecs' }, { serverId: 'i-8', serverIp: '10.0.0.8', port: null, weight: 100, type: 'ecs' }];
    for (const list of [snapshotEntries, stored, snapshotEntries, uniform, uniformStored, uniform]) {
      const plain = list.map((b) => [b.serverId, b.serverIp ?? null, b.port ?? null, b.weight, b.type]);
      expect(memo.of(list)).toBe(JSON.stringify(plain));
    }
  });
});

describe('the stored form of a built graph (storedNlbServerGroup, storedFleetGraph)', () => {
  // As the snapshot holds NLB servers (libs/domain NlbServer): optional fields, CCM's description beside them.
  const servers: NlbServer[] = [
    { serverId: 'i-1', serverIp: '10.0.0.1', type: 'Ecs', port: 30001, weight: 100, status: 'Available', zoneId: 'cn-hangzhou-h', description: 'k8s.80.TCP.svc.ns.c1' },
    { serverId: '10.0.0.2', type: 'Ip' },
  ];
  const group: BuiltNlbServerGroup = { serverGroupId: 'sgp-1', name: 'k8s.80.TCP.svc.ns.c1', type: 'Instance', protocol: 'TCP', status: 'Available', ownerTag: null, serverCount: 2, servers };

  it('writes each NLB server with its declared fields only, an absent one null, the group as it is', () => {
    expect(storedNlbServerGroup(group)).toEqual({
      ...group,
      servers: [
        { serverId: 'i-1', serverIp: '10.0.0.1', type: 'Ecs', port: 30001, weight: 100, status: 'Available', zoneId: 'cn-hangzhou-h' },
        { serverId: '10.0.0.2', serverIp: null, type: 'Ip', port: null, weight: null, status: null, zoneId: null },
      ],
    });
    // The snapshot's entries are read, never changed.
    expect(servers[1]).toEqual({ serverId: '10.0.0.2', type: 'Ip' });
    expect(Object.keys(storedNlbServerGroup(group).servers[0]!)).toEqual(['serverId', 'serverIp', 'type', 'port', 'weight', 'status', 'zoneId']);
  });

  it('gives the whole graph in its stored form: CLB backends, NLB servers and regions\' unused groups; the rest as built', () => {
    const graph = {
      regions: [{ accountId: 'a1', regionId: 'r1', accountName: 'a', clusterCount: 0, loadBalancerCount: 1, ecsInstanceCount: 0, nlbServerGroupCount: 1, unusedNlbServerGroups: [group] }],
      clusters: [],
      services: [],
      loadBalancers: [],
      serverGroups: [{ loadBalancerId: 'lb-1', vServerGroupId: 'rsp-1', isDefault: false, name: 'g', accountId: 'a1', regionId: 'r1', backends: [{ serverId: 'i-1', weight: 100, type: 'ecs', description: 'k8s/30001/svc/ns/c1' } as GraphBackendEntry] }],
      ecsInstances: [],
      nlbs: [],
    } as unknown as FleetGraph;
    const stored = storedFleetGraph(graph);
    expect(stored.serverGroups[0]!.backends).toEqual([{ serverId: 'i-1', serverIp: null, port: null, weight: 100, type: 'ecs' }]);
    expect(stored.regions[0]!.unusedNlbServerGroups[0]).toEqual(storedNlbServerGroup(group));
    expect({ ...stored.regions[0], unusedNlbServerGroups: [] }).toEqual({ ...graph.regions[0], unusedNlbServerGroups: [] });
  });
});

describe(ecsAttachmentRows.name, () => {
  const ecs = (instanceId: string, regionId: string, loadBalancerIds: string[], nlbIds: string[] = []): GraphEcsInstance =>
    ({ instanceId, accountId: 'a1', regionId, loadBalancerIds, nlbServerGroupIds: nlbIds.map((n) => `sgp-${n}`), nlbIds }) as unknown as GraphEcsInstance;

  it('numbers each distinct set of lists within its account and region, in order of first appearance; none without any', () => {
    const instances = [
      ecs('i-1', 'r1', ['lb-a', 'lb-b']),
      ecs('i-2', 'r1', ['lb-a', 'lb-b']),
      ecs('i-3', 'r1', ['lb-a']),
      ecs('i-4', 'r2', ['lb-a', 'lb-b']),
      ecs('i-5', 'r1', []),
      ecs('i-6', 'r1', ['lb-a', 'lb-b'], ['nlb-1']),
      ecs('i-7', 'r1', ['lb-a']),
    ];
    const { instances: rows, sets } = ecsAttachmentRows(instances);
    expect(rows.map((r) => [r.instance.instanceId, r.attachmentSet])).toEqual([
      ['i-1', 1],
      ['i-2', 1],
      ['i-3', 2],
      ['i-4', 1],
      ['i-5', null],
      ['i-6', 3],
      ['i-7', 2],
    ]);
    expect(sets.map((s) => [s.instance.regionId, s.attachmentSet, s.instance.loadBalancerIds, s.instance.nlbIds])).toEqual([
      ['r1', 1, ['lb-a', 'lb-b'], []],
      ['r1', 2, ['lb-a'], []],
      ['r2', 1, ['lb-a', 'lb-b'], []],
      ['r1', 3, ['lb-a', 'lb-b'], ['nlb-1']],
    ]);
  });

  it('numbers lists by their ids whether instances share the list objects or not', () => {
    const shared = ['lb-a', 'lb-b'];
    const instances = [ecs('i-1', 'r1', shared), ecs('i-2', 'r1', ['lb-a', 'lb-b']), ecs('i-3', 'r1', shared), ecs('i-4', 'r1', ['lb-b'])];
    instances[2] = { ...instances[2]!, nlbServerGroupIds: instances[0]!.nlbServerGroupIds, nlbIds: instances[0]!.nlbIds };
    expect(ecsAttachmentRows(instances).instances.map((r) => r.attachmentSet)).toEqual([1, 1, 1, 2]);
  });

  it("numbers one region's sets as the whole fleet's graph does (a shard of a sharded scan)", () => {
    const r1 = [ecs('i-1', 'r1', ['lb-x']), ecs('i-2', 'r1', ['lb-y']), ecs('i-3', 'r1', ['lb-x'])];
    const whole = ecsAttachmentRows([ecs('i-0', 'r0', ['lb-y']), ...r1]);
    const shard = ecsAttachmentRows(r1);
    expect(whole.instances.slice(1).map((r) => r.attachmentSet)).toEqual(shard.instances.map((r) => r.attachmentSet));
  });
});

describe(serverGroupRows.name, () => {
  const b = (serverId: string, serverIp: string | null, port: number | null, weight = 100, type = 'ecs'): GraphBackendEntry => ({ serverId, serverIp, port, weight, type });
  const group = (id: string, regionId: string, backends: GraphBackendEntry[]): BuiltServerGroup =>
    ({ loadBalancerId: `lb-${id}`, vServerGroupId: `rsp-${id}`, isDefault: false, name: id, accountId: 'a1', regionId, backends }) as BuiltServerGroup;
  const nodes = (port: number, ids = ['i-1', 'i-2', 'i-3']): GraphBackendEntry[] => ids.map((id, i) => b(id, `10.0.0.${i}`, port));

  it('numbers each distinct server list within its account and region, at any port; inline without one port, weight and type', () => {
    const groups = [
      group('g1', 'r1', nodes(30001)),
      group('g2', 'r1', nodes(30002)),
      // The same servers but one IP, then fewer, then the first list again after them (not the last one of its server).
      group('g3', 'r1', nodes(30003).map((x, i) => (i === 1 ? { ...x, serverIp: '10.9.9.9' } : x))),
      group('g4', 'r1', nodes(30004, ['i-1', 'i-2'])),
      group('g5', 'r1', nodes(30005)),
      // Another region starts its own numbers.
      group('g6', 'r2', nodes(30001)),
      // No backend; differing weights; differing ports; a weight the integer column cannot hold.
      group('g7', 'r1', []),
      group('g8', 'r1', nodes(30006).map((x, i) => ({ ...x, weight: i === 0 ? 0 : 100 }))),
      group('g9', 'r1', nodes(30007).map((x, i) => ({ ...x, port: 30007 + i }))),
      group('g10', 'r1', nodes(30008).map((x) => ({ ...x, weight: 1.5 }))),
      // An absent IP and port, shared by every backend: by reference, absent values as null.
      group('g11', 'r1', [{ serverId: 'eni-1', weight: 100, type: 'eni' }, { serverId: 'eni-2', serverIp: null, port: null, weight: 100, type: 'eni' } as GraphBackendEntry]),
    ];
    const { groups: rows, lists } = serverGroupRows(groups);
    expect(rows.map((r) => [r.group.name, r.serverList])).toEqual([
      ['g1', 1],
      ['g2', 1],
      ['g3', 2],
      ['g4', 3],
      ['g5', 1],
      ['g6', 1],
      ['g7', null],
      ['g8', null],
      ['g9', null],
      ['g10', null],
      ['g11', 4],
    ]);
    // Each list holds the servers of the first group that listed them.
    expect(lists.map((l) => [l.regionId, l.serverList, groups.find((g) => g.backends === l.servers)?.name])).toEqual([
      ['r1', 1, 'g1'],
      ['r1', 2, 'g3'],
      ['r1', 3, 'g4'],
      ['r2', 1, 'g6'],
      ['r1', 4, 'g11'],
    ]);
  });

  it("numbers one region's lists as the whole fleet's graph does (a shard of a sharded scan)", () => {
    const r1 = [group('g1', 'r1', nodes(1, ['i-9'])), group('g2', 'r1', nodes(2)), group('g3', 'r1', nodes(3, ['i-9']))];
    const whole = serverGroupRows([group('g0', 'r0', nodes(1)), ...r1]);
    const shard = serverGroupRows(r1);
    expect(whole.groups.slice(1).map((r) => r.serverList)).toEqual(shard.groups.map((r) => r.serverList));
    expect(shard.groups.map((r) => r.serverList)).toEqual([1, 2, 1]);
  });
});

describe(NlbServerGroupsJson.name, () => {
  // Each group and server as the array of its declared fields, absent ones null, written by JSON.stringify.
  const packed = (groups: readonly BuiltNlbServerGroup[]): string =>
    JSON.stringify(
      groups.map((g) => [
        g.serverGroupId,
        g.name,
        g.type,
        g.protocol ?? null,
        g.status ?? null,
        g.ownerTag ?? null,
        g.serverCount,
        g.servers.map((sv) => [sv.serverId, sv.serverIp ?? null, sv.type, sv.port ?? null, sv.weight ?? null, sv.status ?? null, sv.zoneId ?? null]),
      ]),
    );
  const server = (serverId: string, port: number | null, over: Record<string, unknown> = {}): NlbServer =>
    ({ serverId, serverIp: `10.0.0.${serverId.length}`, type: 'Ecs', port, weight: 100, status: 'Available', zoneId: 'cn-hangzhou-h', ...over }) as NlbServer;
  const group = (id: string, servers: NlbServer[], over: Record<string, unknown> = {}): BuiltNlbServerGroup =>
    ({ serverGroupId: id, name: `k8s.${id}`, type: 'Instance', protocol: 'TCP', status: 'Available', ownerTag: 'tag', serverCount: servers.length, servers, ...over }) as BuiltNlbServerGroup;

  it('writes the text JSON.stringify gives for the packed arrays, byte for byte, through one memo', () => {
    const nodes = ['i-1', 'i-2', 'i-3', 'i-"4"'];
    const json = new NlbServerGroupsJson();
    const cases: BuiltNlbServerGroup[][] = [
      [],
      [group('sgp-a', nodes.map((n) => server(n, 30001))), group('sgp-b', nodes.map((n) => server(n, 30002)))],
      // The same nodes again, one changed, one with another IP, then a shorter and a longer list.
      [group('sgp-c', [server('i-1', 30003), server('i-9', 30003), server('i-3', 30003, { serverIp: '172.16.0.1' })])],
      [group('sgp-d', nodes.slice(0, 2).map((n) => server(n, 30004)))],
      [group('sgp-e', [...nodes, 'i-5'].map((n) => server(n, 30005)))],
      // Servers that differ in port, weight, status or zone; absent fields; ENI and IP servers; escapes.
      [
        group('sgp-f', [server('i-1', 1), server('i-2', 2), server('i-3', 2, { weight: 0 }), server('i-"4"', 2, { status: 'Adding' }), server('i-5', 2, { zoneId: null })]),
        group('sgp-g', [{ serverId: '10.1.1.1', type: 'Ip' } as NlbServer, server('eni-\u0000\n', null, { type: 'Eni', serverIp: undefined })], { ownerTag: null, protocol: null }),
        group('sgp-h', [server('i-1', 0, { weight: null, status: null })], { name: 'quote " back \\ \ud800' }),
      ],
    ];
    for (const groups of cases) expect(json.of(groups)).toBe(packed(groups));
  });

  it('writes a group given a list number as the reference to that list, its shared fields off its first server', () => {
    const groups = [group('sgp-a', [server('i-1', 30001), server('i-2', 30001)]), group('sgp-b', [server('i-1', 1), server('i-2', 2)])];
    const text = new NlbServerGroupsJson().of(groups, [3, null]);
    const parsed = JSON.parse(text) as unknown[][];
    expect(parsed[0]![7]).toEqual({ serverList: 3, type: 'Ecs', port: 30001, weight: 100, status: 'Available' });
    expect(parsed[1]).toEqual(JSON.parse(packed([groups[1]!]))[0]);
    expect(new NlbServerGroupsJson().of([group('sgp-c', [{ serverId: '10.1.1.1', type: 'Ip' } as NlbServer])], [1])).toBe(
      '[["sgp-c","k8s.sgp-c","Instance","TCP","Available","tag",1,{"serverList":1,"type":"Ip","port":null,"weight":null,"status":null}]]',
    );
  });
});

describe(nlbRows.name, () => {
  const server = (serverId: string, port: number, over: Record<string, unknown> = {}): NlbServer =>
    ({ serverId, type: 'Ecs', port, weight: 100, status: 'Available', zoneId: 'z1', ...over }) as NlbServer;
  const group = (id: string, servers: NlbServer[]): BuiltNlbServerGroup =>
    ({ serverGroupId: id, name: id, type: 'Instance', protocol: 'TCP', status: 'Available', ownerTag: null, serverCount: servers.length, servers }) as BuiltNlbServerGroup;
  const nlb = (id: string, regionId: string, groups: BuiltNlbServerGroup[]): BuiltNlb => ({ nlbId: id, accountId: 'a1', regionId, serverGroups: groups }) as unknown as BuiltNlb;
  const nodes = (port: number, ids = ['i-1', 'i-2', 'i-3']): NlbServer[] => ids.map((i) => server(i, port));

  it("numbers its groups' server lists (zones included) after the CLB groups' of the same graph; inline without one type, port, weight and status", () => {
    const lists = new ServerLists();
    // A CLB group listing the same nodes (id, no IP, no zone) numbers list 1 first; an NLB server's zone is part of its list.
    const clb = serverGroupRows([{ loadBalancerId: 'lb-1', vServerGroupId: 'rsp-1', accountId: 'a1', regionId: 'r1', backends: ['i-1', 'i-2', 'i-3'].map((serverId) => ({ serverId, port: 30000, weight: 100, type: 'ecs' })) } as unknown as BuiltServerGroup], lists);
    expect(clb.groups[0]!.serverList).toBe(1);
    const rows = nlbRows(
      [
        nlb('nlb-1', 'r1', [group('g1', nodes(30001)), group('g2', nodes(30002, ['i-1', 'i-2']))]),
        nlb('nlb-2', 'r1', [group('g3', nodes(30003, ['i-1', 'i-2'])), group('g4', nodes(30004)), group('g5', [])]),
        // Differing ports, weights, statuses, types: inline.
        nlb('nlb-3', 'r1', [
          group('g6', [server('i-1', 1), server('i-2', 2)]),
          group('g7', [server('i-1', 1), server('i-2', 1, { weight: 0 })]),
          group('g8', [server('i-1', 1), server('i-2', 1, { status: 'Adding' })]),
          group('g10', [server('i-1', 1), server('i-2', 1, { type: 'Eni' })]),
        ]),
        // Servers in zones of their own: by reference, the zones in the list.
        nlb('nlb-5', 'r1', [group('g9', [server('i-1', 1), server('i-2', 1, { zoneId: 'z2' })]), group('g12', [server('i-1', 2), server('i-2', 2, { zoneId: 'z2' })])]),
        // Another region numbers its own.
        nlb('nlb-4', 'r2', [group('g11', nodes(30001))]),
      ],
      lists,
    );
    expect(rows.map((r) => [r.nlb.nlbId, r.lists, r.listNumbers])).toEqual([
      ['nlb-1', [2, 3], [2, 3]],
      ['nlb-2', [3, 2, null], [2, 3]],
      ['nlb-3', [null, null, null, null], null],
      ['nlb-5', [4, 4], [4]],
      ['nlb-4', [1], [1]],
    ]);
    expect(lists.rows.map((l) => [l.regionId, l.serverList, l.servers.map((sv) => `${sv.serverId}@${sv.zoneId ?? '-'}`)])).toEqual([
      ['r1', 1, ['i-1@-', 'i-2@-', 'i-3@-']],
      ['r1', 2, ['i-1@z1', 'i-2@z1', 'i-3@z1']],
      ['r1', 3, ['i-1@z1', 'i-2@z1']],
      ['r1', 4, ['i-1@z1', 'i-2@z2']],
      ['r2', 1, ['i-1@z1', 'i-2@z1', 'i-3@z1']],
    ]);
  });
});
