import { deepStrictEqual } from 'node:assert';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { mapWireFleet, type AccountSnapshot, type CoverageEntry, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { generateFleet, generateSpecSchema, loadFleetDirectory } from '@app/collectors';
import { encodeSnapshotLines, encodeSnapshotParts, mergeSnapshotParts, parseSnapshotPart, parseStoredSnapshot } from './scan-snapshot.repository';
import { compressedPartsBuffer } from './gzip-json.util';
import { ColumnLine } from './snapshot-columns.util';

/** A snapshot as the store keeps it (`gzip+json`): the bytes and the size of their text. */
async function gzipSnapshotLines(snapshot: FleetSnapshot): Promise<{ gz: Buffer; rawBytes: number }> {
  const { bytes, encoding, rawBytes } = await encodeSnapshotLines(snapshot);
  expect(encoding).toBe('gzip+json');
  return { gz: bytes, rawBytes };
}

const region = (regionId: string): RegionSnapshot => ({ regionId, clusters: [] }) as unknown as RegionSnapshot;
const part = (account: Omit<AccountSnapshot, 'regions'>, regionId: string): FleetSnapshot => ({
  name: 'fleet',
  accounts: [{ ...account, regions: [region(regionId)] }],
  coverage: [],
});
const ram = { roles: [], policies: [], rolePolicies: {} };
const cov = (accountId: string, regionId: string | undefined, api: CoverageEntry['api']): CoverageEntry => ({
  accountId,
  ...(regionId ? { regionId } : {}),
  api,
  status: 'ok',
});

describe(mergeSnapshotParts.name, () => {
  it("merges shard parts in the in-process snapshot's order whatever their order, the account's fields from its lead part", () => {
    const merged = mergeSnapshotParts(
      [
        part({ accountId: '2002', name: 'b' }, 'cn-shanghai'),
        part({ accountId: '1001', name: 'a' }, 'cn-shanghai'),
        part({ accountId: '2002', name: 'b', ram }, 'cn-beijing'),
        part({ accountId: '1001', name: 'a', ram }, 'cn-beijing'),
      ],
      [cov('2002', 'cn-beijing', 'slb'), cov('1001', undefined, 'ram'), cov('1001', 'cn-shanghai', 'slb'), cov('1001', 'cn-beijing', 'slb')],
    );
    expect(merged.name).toBe('fleet');
    expect(merged.accounts.map((a) => [a.accountId, a.ram !== undefined, a.regions.map((r) => r.regionId)])).toEqual([
      ['1001', true, ['cn-beijing', 'cn-shanghai']],
      ['2002', true, ['cn-beijing', 'cn-shanghai']],
    ]);
    // By coverageKey (`account|region|cluster|api`), as mapWireFleet sorts: '|' sorts after the region ids.
    expect(merged.coverage.map((c) => `${c.accountId}/${c.regionId ?? ''}/${c.api}`)).toEqual([
      '1001/cn-beijing/slb',
      '1001/cn-shanghai/slb',
      '1001//ram',
      '2002/cn-beijing/slb',
    ]);
  });

  it('an empty scan merges to an empty snapshot', () => {
    expect(mergeSnapshotParts([], [])).toEqual({ name: '', accounts: [], coverage: [] });
  });
});

describe('stored snapshot form (gzipSnapshotLines / parseStoredSnapshot)', () => {
  const sample = loadFleetDirectory(join(__dirname, '..', '..', '..', 'examples', 'fleets', 'sample'));

  it('stores the snapshot as JSON lines, a region as its head then its long lists in bounded lines, and reads back the same snapshot, keys in order', async () => {
    const { gz, rawBytes } = await gzipSnapshotLines(sample);
    const text = gunzipSync(gz).toString('utf8');
    expect(Buffer.byteLength(text)).toBe(rawBytes);
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines[0]).toBe('{"format":"fleet-audit-snapshot-lines/3"}');
    const regions = sample.accounts.flatMap((a) => a.regions);
    const clusters = regions.reduce((n, r) => n + r.clusters.length, 0);
    expect(lines.filter((l) => l.startsWith('{"r":'))).toHaveLength(regions.length);
    // One cluster per line; the region heads carry no cluster.
    expect(lines.filter((l) => l.startsWith('{"l":"clusters"'))).toHaveLength(clusters);
    for (const l of lines.filter((x) => x.startsWith('{"r":'))) expect((JSON.parse(l) as { r: RegionSnapshot }).r.clusters).toEqual([]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(Math.max(...regions.map((r) => JSON.stringify(r).length)));
    expect(JSON.stringify(parseStoredSnapshot(gz))).toBe(JSON.stringify(sample));
  });

  it('keeps the compressed bytes in latin1 parts that are exactly the bytes gzipSnapshotLines gives', async () => {
    const parts = await encodeSnapshotParts(sample);
    const { gz, rawBytes } = await gzipSnapshotLines(sample);
    expect(parts.encoding).toBe('gzip+json');
    expect(parts.rawBytes).toBe(rawBytes);
    expect(parts.bytes).toBe(gz.length);
    expect(compressedPartsBuffer(parts).equals(gz)).toBe(true);
    expect(JSON.stringify(parseStoredSnapshot(compressedPartsBuffer(parts)))).toBe(JSON.stringify(sample));
  });

  it('bounds every line by a slice of a region, however large the region (600 clusters, 1,000 CLBs in one region)', async () => {
    const base = sample.accounts[0]!.regions.find((r) => r.clusters.length > 0 && (r.loadBalancers?.length ?? 0) > 0)!;
    const big: RegionSnapshot = {
      ...base,
      loadBalancers: Array.from({ length: 1_000 }, (_, i) => ({ ...base.loadBalancers![0]!, loadBalancerId: `lb-big-${i}` })),
      clusters: Array.from({ length: 600 }, (_, i) => ({ ...base.clusters[0]!, clusterId: `c-big-${i}` })),
    };
    const fleet: FleetSnapshot = { ...sample, accounts: [{ ...sample.accounts[0]!, regions: [big] }] };
    const { gz } = await gzipSnapshotLines(fleet);
    const lines = gunzipSync(gz).toString('utf8').split('\n').filter((l) => l !== '');
    const longest = Math.max(...lines.map((l) => l.length));
    // The longest line is one cluster, or 256 CLBs: a bounded part of the region, not the region.
    // (plus the line's own wrapping and the commas between items)
    expect(longest).toBeLessThanOrEqual(Math.max(JSON.stringify(big.clusters[0]).length, 256 * (Math.max(...big.loadBalancers!.map((lb) => JSON.stringify(lb).length)) + 1)) + 64);
    expect(longest * 2).toBeLessThan(JSON.stringify(big).length);
    expect(JSON.stringify(parseStoredSnapshot(gz))).toBe(JSON.stringify(fleet));
  });

  it('writes each list line item by item as the bytes of the line stringified whole, its lists in the column form', async () => {
    const base = sample.accounts[0]!.regions.find((r) => (r.loadBalancers?.length ?? 0) > 0)!;
    const region: RegionSnapshot = { ...base, loadBalancers: Array.from({ length: 600 }, (_, i) => ({ ...base.loadBalancers![0]!, loadBalancerId: `lb-${i}` })) };
    const fleet: FleetSnapshot = { ...sample, accounts: [{ ...sample.accounts[0]!, regions: [region] }] };
    const lines = gunzipSync((await gzipSnapshotLines(fleet)).gz).toString('utf8').split('\n');
    const lbs = region.loadBalancers!;
    const expected = [0, 256, 512].map((i) => {
      const columns = new ColumnLine();
      const v = columns.compactLine(lbs.slice(i, i + 256)) ?? lbs.slice(i, i + 256).map((lb, j) => columns.compact(lb, j));
      return JSON.stringify(columns.paths.length > 0 ? { l: 'loadBalancers', v, c: columns.paths, t: columns.table } : { l: 'loadBalancers', v });
    });
    expect(lines.filter((l) => l.startsWith('{"l":"loadBalancers"'))).toEqual(expected);
  });

  it('writes backend lists in the column form on a generated fleet (one id column per line for every Service of a cluster) and reads back the same snapshot', async () => {
    const wire = generateFleet(
      generateSpecSchema.parse({
        seed: 7,
        accounts: 2,
        regions: ['cn-hangzhou'],
        clusters: 6,
        nodesPerCluster: 30,
        servicesPerCluster: 6,
        nlbServicesPerCluster: 3,
        podsPerService: 3,
        trafficPolicy: { cluster: 0.8, local: 0.2, eni: 0 },
        ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
        shares: { orphaned: 0.1, reused: 0.1, misconfigured: 0.1, consoleReused: 0.1, nlbLeakedServerGroups: 0.2 },
      }),
      'columns',
    ).fleet;
    const fleet = mapWireFleet(wire);
    const backends = fleet.accounts.flatMap((a) => a.regions.flatMap((r) => (r.loadBalancers ?? []).flatMap((lb) => (lb.vServerGroups ?? []).map((g) => g.backendServers))));
    expect(backends.filter((b) => b.length >= 30).length).toBeGreaterThan(5);
    expect(fleet.accounts.some((a) => a.regions.some((r) => (r.nlbServerGroups ?? []).some((g) => g.servers.length >= 30)))).toBe(true);
    const { gz, rawBytes } = await gzipSnapshotLines(fleet);
    const text = gunzipSync(gz).toString('utf8');
    const listLines = text.split('\n').filter((l) => l.startsWith('{"l":"loadBalancers"') || l.startsWith('{"l":"nlbServerGroups"'));
    expect(listLines.length).toBeGreaterThan(0);
    for (const l of listLines) {
      const line = JSON.parse(l) as { c?: unknown[][]; t?: unknown[] };
      expect(line.c?.some((p) => p.at(-1) === 'backendServers' || p.at(-1) === 'servers')).toBe(true);
    }
    // Clusters are written as objects (their many short lists cost more as blocks than they save).
    for (const l of text.split('\n').filter((x) => x.startsWith('{"l":"clusters"'))) expect(l).not.toMatch(/\],"c":\[/);
    // Less text than the objects: the lists' keys, ports, weights and descriptions once, ids once per line (this small
    // fleet's Kubernetes objects are a larger share of it than of a large fleet).
    expect(rawBytes).toBeLessThan(0.6 * Buffer.byteLength(JSON.stringify(fleet)));
    const back = parseStoredSnapshot(gz, 'gzip+json', rawBytes);
    deepStrictEqual(back, JSON.parse(JSON.stringify(fleet)));
    expect(JSON.stringify(back)).toBe(JSON.stringify(fleet));
  });

  it('reads the real fixture fleet back deepStrictEqual to its JSON', async () => {
    const { gz, rawBytes } = await gzipSnapshotLines(sample);
    deepStrictEqual(parseStoredSnapshot(gz, 'gzip+json', rawBytes), JSON.parse(JSON.stringify(sample)));
  });

  it('reads a shard part in the lines form and one stored before as one JSON text', async () => {
    const { gz, rawBytes } = await gzipSnapshotLines(sample);
    expect(JSON.stringify(parseSnapshotPart(gz, rawBytes))).toBe(JSON.stringify(sample));
    const old = Buffer.from(JSON.stringify(sample));
    expect(JSON.stringify(parseSnapshotPart(gzipSync(old), old.length))).toBe(JSON.stringify(sample));
    expect(() => parseSnapshotPart(gzipSync(old), old.length + 1)).toThrow(/the row says/);
  });

  it('keeps a list that was not read absent, and an empty one empty', async () => {
    const fleet: FleetSnapshot = {
      name: 'f',
      coverage: [],
      accounts: [{ accountId: '1', name: 'a', regions: [{ accountId: '1', regionId: 'r1', clusters: [], loadBalancers: [] } as RegionSnapshot] }],
    };
    const back = parseStoredSnapshot((await gzipSnapshotLines(fleet)).gz);
    expect(JSON.stringify(back)).toBe(JSON.stringify(fleet));
    expect('nlbs' in back.accounts[0]!.regions[0]!).toBe(false);
  });

  it('reads the version 1 form (a whole region per line)', () => {
    const lines = ['{"format":"fleet-audit-snapshot-lines/1"}', JSON.stringify({ ...sample, accounts: [] })];
    for (const a of sample.accounts) {
      lines.push(JSON.stringify({ a: { ...a, regions: [] } }));
      for (const r of a.regions) lines.push(JSON.stringify({ r }));
    }
    expect(JSON.stringify(parseStoredSnapshot(gzipSync(Buffer.from(`${lines.join('\n')}\n`))))).toBe(JSON.stringify(sample));
  });

  it('reads the version 2 form (list lines without columns), and does not look for columns in it', () => {
    const lines = ['{"format":"fleet-audit-snapshot-lines/2"}', JSON.stringify({ ...sample, accounts: [] })];
    for (const a of sample.accounts) {
      lines.push(JSON.stringify({ a: { ...a, regions: [] } }));
      for (const r of a.regions) {
        const head: Record<string, unknown> = { ...r };
        for (const name of ['loadBalancers', 'nlbs', 'nlbServerGroups', 'ecsInstances', 'vSwitches', 'clusters'] as const) if (Array.isArray(r[name])) head[name] = [];
        lines.push(JSON.stringify({ r: head }));
        for (const name of ['loadBalancers', 'nlbs', 'nlbServerGroups', 'ecsInstances', 'vSwitches', 'clusters'] as const) {
          const items = r[name] as unknown[] | undefined;
          if (items?.length) lines.push(JSON.stringify({ l: name, v: items }));
        }
      }
    }
    expect(JSON.stringify(parseStoredSnapshot(gzipSync(Buffer.from(`${lines.join('\n')}\n`))))).toBe(JSON.stringify(sample));
    // `c` and `t` mean nothing in version 2: a list line carrying them is read as its items.
    const v2 = '{"format":"fleet-audit-snapshot-lines/2"}\n{"name":"f","accounts":[],"coverage":[]}\n{"a":{"accountId":"1","regions":[]}}\n{"r":{"regionId":"r","clusters":[]}}\n{"l":"clusters","v":[{"x":{"n":1}}],"c":[[0,"x"]],"t":[]}\n';
    expect(parseStoredSnapshot(gzipSync(Buffer.from(v2))).accounts[0]!.regions[0]!.clusters).toEqual([{ x: { n: 1 } }]);
  });

  it('reads a snapshot stored before as one JSON text', () => {
    expect(JSON.stringify(parseStoredSnapshot(gzipSync(Buffer.from(JSON.stringify(sample)))))).toBe(JSON.stringify(sample));
  });

  it('refuses bytes that are neither form', async () => {
    expect(() => parseStoredSnapshot(gzipSync(Buffer.from('{"format":"fleet-audit-snapshot-lines/1"}\n{"r":{}}\n')))).toThrow(SyntaxError);
    expect(() => parseStoredSnapshot(gzipSync(Buffer.from('not json')))).toThrow(SyntaxError);
    // A list line with no region before it.
    const orphan = '{"format":"fleet-audit-snapshot-lines/2"}\n{"name":"f","accounts":[],"coverage":[]}\n{"a":{"accountId":"1","regions":[]}}\n{"l":"clusters","v":[]}\n';
    expect(() => parseStoredSnapshot(gzipSync(Buffer.from(orphan)))).toThrow(SyntaxError);
    // Version 3 list lines whose columns are not what the writer writes.
    const head = '{"format":"fleet-audit-snapshot-lines/3"}\n{"name":"f","accounts":[],"coverage":[]}\n{"a":{"accountId":"1","regions":[]}}\n{"r":{"regionId":"r","clusters":[]}}\n';
    const block = '{"n":2,"k":["id","port"],"v":[0,[80]]}';
    for (const [line, why] of [
      [`{"l":"clusters","v":[{"x":${block}}],"c":[[0,"y"]],"t":[["a","b"]]}`, /column path \[0,"y"\] leads to no value/],
      [`{"l":"clusters","v":[{"x":${block}}],"c":[[0,"x"]],"t":[["a"]]}`, /not 2 values/],
      [`{"l":"clusters","v":[{"x":${block}}],"c":[[0,"x"]]}`, /not an array/],
      [`{"l":"clusters","v":[{"x":${block}}],"c":[[0,"x"]],"t":[["a","b"]]`, /JSON/],
    ] as const) {
      expect(() => parseStoredSnapshot(gzipSync(Buffer.from(`${head}${line}\n`)))).toThrow(SyntaxError);
      expect(() => parseStoredSnapshot(gzipSync(Buffer.from(`${head}${line}\n`)))).toThrow(why);
    }
    const ok = `{"l":"clusters","v":[{"x":${block}}],"c":[[0,"x"]],"t":[["a","b"]]}`;
    expect(parseStoredSnapshot(gzipSync(Buffer.from(`${head}${ok}\n`))).accounts[0]!.regions[0]!.clusters).toEqual([{ x: [{ id: 'a', port: 80 }, { id: 'b', port: 80 }] }]);
  });
});

describe('gzip-encoded snapshot of several members (encodeSnapshotParts / parseStoredSnapshot)', () => {
  const sample = loadFleetDirectory(join(__dirname, '..', '..', '..', 'examples', 'fleets', 'sample'));
  /** A fleet of more than two 8 MiB slabs: one region of 2,000 CLBs and 600 clusters, so lines run across members. */
  const large = (): FleetSnapshot => {
    const base = sample.accounts[0]!.regions.find((r) => r.clusters.length > 0 && (r.loadBalancers?.length ?? 0) > 0)!;
    const big: RegionSnapshot = {
      ...base,
      // Names of their own: one name for all would be written once (a line of CLBs of the same keys is a column list).
      loadBalancers: Array.from({ length: 2_000 }, (_, i) => ({ ...base.loadBalancers![0]!, loadBalancerId: `lb-big-${i}`, name: `监听 ${i} ${'x'.repeat(4_000)}` })),
      clusters: Array.from({ length: 600 }, (_, i) => ({ ...base.clusters[0]!, clusterId: `c-big-${i}` })),
    };
    return { ...sample, accounts: [{ ...sample.accounts[0]!, regions: [big] }, ...sample.accounts.slice(1)] };
  };

  it('writes one gzip member per slab, its parts exactly the bytes encodeSnapshotLines gives, and reads back the same snapshot', async () => {
    const fleet = large();
    const parts = await encodeSnapshotParts(fleet);
    const { gz, rawBytes } = await gzipSnapshotLines(fleet);
    expect(parts.encoding).toBe('gzip+json');
    expect(parts.parts.length).toBeGreaterThan(2);
    for (const p of parts.parts) expect(p.slice(0, 2)).toBe('\x1f\x8b');
    expect(compressedPartsBuffer(parts).equals(gz)).toBe(true);
    expect(rawBytes).toBeGreaterThan(2 * 8 * 1024 * 1024);
    expect(gunzipSync(gz).length).toBe(rawBytes);
    expect(JSON.stringify(parseStoredSnapshot(gz, 'gzip+json', rawBytes))).toBe(JSON.stringify(fleet));
  });

  it('refuses corrupt or truncated bytes, a text not the size its row says (cut at a member boundary), and an unknown encoding', async () => {
    const parts = await encodeSnapshotParts(large());
    const gz = compressedPartsBuffer(parts);
    const { rawBytes } = parts;
    const firstMember = parts.parts[0]!.length;
    // A byte of the first member's CRC-32 changed (a byte of its deflate data may decode to the same text: a match's
    // distance inside a run of one character).
    const flipped = Buffer.from(gz);
    flipped[firstMember - 8] ^= 0x40;
    expect(() => parseStoredSnapshot(flipped, 'gzip+json', rawBytes)).toThrow(/incorrect data check/);
    expect(() => parseStoredSnapshot(gz.subarray(0, gz.length >> 1), 'gzip+json', rawBytes)).toThrow(/unexpected end of file/);
    // Whole members decompress without error: only the size the row records tells the text is short.
    expect(() => parseStoredSnapshot(gz.subarray(0, firstMember), 'gzip+json', rawBytes)).toThrow(/the row says/);
    expect(() => parseStoredSnapshot(gz, 'gzip+json', rawBytes + 1)).toThrow(/the row says/);
    expect(() => parseStoredSnapshot(gz, 'gzip+json', rawBytes - 1)).toThrow(/the row says/);
    expect(() => parseStoredSnapshot(Buffer.from('not gzip'), 'gzip+json', rawBytes)).toThrow(/header/);
    expect(() => parseStoredSnapshot(gz, 'zstd+json' as never, rawBytes)).toThrow(/unknown encoding "zstd\+json"/);
    expect(JSON.stringify(parseStoredSnapshot(gz, 'gzip+json', rawBytes))).toBe(JSON.stringify(large()));
  });
});
