import { describe, expect, it } from 'vitest';
import { GRAPH_NLB_SERVER_GROUP, type GraphNlbServerGroup } from '@app/domain';
import { unpackedRowsOf } from './fleet-graph.columns';
import { NlbServerGroupsJson } from './fleet-graph.repository';

const pack = (groups: readonly GraphNlbServerGroup[]): string => new NlbServerGroupsJson().of(groups);
const unpack = unpackedRowsOf(GRAPH_NLB_SERVER_GROUP);

const group = (over: Partial<GraphNlbServerGroup> = {}): GraphNlbServerGroup => ({
  serverGroupId: 'sgp-1',
  name: 'k8s.443.TCP.web.default.c0123',
  type: 'Instance',
  protocol: 'TCP',
  status: 'Available',
  ownerTag: 'a5e4dbfc9c2ae4642b0335607860aef6',
  serverCount: 2,
  servers: [
    { serverId: 'i-bp1a', serverIp: '10.0.0.1', type: 'Ecs', port: 31443, weight: 100, status: 'Available', zoneId: 'cn-hangzhou-h' },
    { serverId: 'i-bp1b', serverIp: null, type: 'Ecs', port: null, weight: null, status: null, zoneId: null },
  ],
  ...over,
});

describe('packed fleet-graph rows (NlbServerGroupsJson / unpackedRowsOf)', () => {
  it('writes each row as an array of its declared fields in declaration order, lists packed in turn', () => {
    const text = pack([group()]);
    expect(JSON.parse(text)).toEqual([
      [
        'sgp-1',
        'k8s.443.TCP.web.default.c0123',
        'Instance',
        'TCP',
        'Available',
        'a5e4dbfc9c2ae4642b0335607860aef6',
        2,
        [
          ['i-bp1a', '10.0.0.1', 'Ecs', 31443, 100, 'Available', 'cn-hangzhou-h'],
          ['i-bp1b', null, 'Ecs', null, null, null, null],
        ],
      ],
    ]);
    expect(text).not.toContain('serverId');
    expect(pack([])).toBe('[]');
  });

  it('reads back what it wrote; absent fields (a snapshot entry without them) as null', () => {
    const rows = [group(), group({ serverGroupId: 'sgp-2', ownerTag: null, protocol: null, servers: [] })];
    expect(unpack(JSON.parse(pack(rows)))).toEqual(rows);
    const sparse = { serverGroupId: 'sgp-3', name: 'n', type: 'Ip', serverCount: 1, servers: [{ serverId: '10.1.1.1', type: 'Ip' }] };
    expect(unpack(JSON.parse(pack([sparse as unknown as GraphNlbServerGroup])))).toEqual([
      {
        serverGroupId: 'sgp-3',
        name: 'n',
        type: 'Ip',
        protocol: null,
        status: null,
        ownerTag: null,
        serverCount: 1,
        servers: [{ serverId: '10.1.1.1', serverIp: null, type: 'Ip', port: null, weight: null, status: null, zoneId: null }],
      },
    ]);
  });

  it('escapes what JSON escapes: quotes, backslashes, control characters, lone surrogates', () => {
    const odd = group({ name: 'a"b\\c\nd\te\u0001f\uD800g' });
    const text = pack([odd]);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(unpack(JSON.parse(text))[0]!.name).toBe(JSON.parse(JSON.stringify(odd.name)));
    for (const raw of ['\n', '\t', '\u0001']) expect(text).not.toContain(raw);
  });

  it('reads rows stored as objects (jsonb text of the form before packing) in declaration order, and nothing else as rows', () => {
    const g = group();
    const legacy = JSON.parse(JSON.stringify([{ ...g, servers: g.servers.map((s) => ({ zoneId: s.zoneId, serverId: s.serverId, port: s.port, type: s.type, status: s.status, weight: s.weight, serverIp: s.serverIp })) }]));
    const read = unpack(legacy);
    expect(read).toEqual([g]);
    expect(Object.keys(read[0]!)).toEqual(Object.keys(GRAPH_NLB_SERVER_GROUP.fields));
    expect(Object.keys(read[0]!.servers[0]!)).toEqual(['serverId', 'serverIp', 'type', 'port', 'weight', 'status', 'zoneId']);
    expect(unpack(null)).toEqual([]);
    expect(unpack({})).toEqual([]);
  });
});
