import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { AccountSnapshot, CoverageEntry, FleetSnapshot, RegionSnapshot } from '@app/domain';
import { loadFleetDirectory } from '@app/collectors';
import { gzipSnapshotLines, mergeSnapshotParts, parseStoredSnapshot } from './scan-snapshot.repository';

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

  it('stores the snapshot as JSON lines, one region at the most per line, and reads back the same snapshot, keys in order', async () => {
    const { gz, rawBytes } = await gzipSnapshotLines(sample);
    const text = gunzipSync(gz).toString('utf8');
    expect(Buffer.byteLength(text)).toBe(rawBytes);
    const lines = text.split('\n').filter((l) => l !== '');
    const regions = sample.accounts.reduce((n, a) => n + a.regions.length, 0);
    expect(lines).toHaveLength(2 + sample.accounts.length + regions);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(JSON.stringify(sample).length);
    expect(JSON.stringify(parseStoredSnapshot(gz))).toBe(JSON.stringify(sample));
  });

  it('reads a snapshot stored before as one JSON text', () => {
    expect(JSON.stringify(parseStoredSnapshot(gzipSync(Buffer.from(JSON.stringify(sample)))))).toBe(JSON.stringify(sample));
  });

  it('refuses bytes that are neither form', async () => {
    expect(() => parseStoredSnapshot(gzipSync(Buffer.from('{"format":"fleet-audit-snapshot-lines/1"}\n{"r":{}}\n')))).toThrow(SyntaxError);
    expect(() => parseStoredSnapshot(gzipSync(Buffer.from('not json')))).toThrow(SyntaxError);
  });
});
