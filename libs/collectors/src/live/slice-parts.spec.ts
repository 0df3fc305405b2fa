import { describe, expect, it } from 'vitest';
import { KIND_DATA, mapWireFleet, setKindWire, type WireFleet, type WireRegion } from '@app/domain';
import { generateFleet, generateSpecSchema } from '../generate/fleet.generator';
import type { TargetSlice } from './crawl-targets';
import { readSliceParts, slicePartsOf, type SlicePartsSource } from './slice-parts';

/** One account, one region: CLBs with vServer groups, NLBs with leaked server groups, ECS instances. */
function regionFleet(): WireFleet {
  return generateFleet(
    generateSpecSchema.parse({
      seed: 11,
      accounts: 1,
      regions: ['cn-hangzhou'],
      clusters: 3,
      nodesPerCluster: 7,
      servicesPerCluster: 9,
      nlbServicesPerCluster: 4,
      shares: { orphaned: 0.2, reused: 0.1, misconfigured: 0.2, nlbLeakedServerGroups: 0.3 },
    }),
  ).fleet;
}

/** The region slice a crawl job would store for the fleet's one region. */
function regionSlice(fleet: WireFleet): TargetSlice {
  const a = fleet.accounts[0]!;
  const { clusters, ...region } = a.regions[0]!;
  return {
    target: { kind: 'region', accountId: a.account.accountId, regionId: region.regionId },
    region,
    clusterIds: clusters.map((c) => c.detail.cluster_id),
    coverage: [],
  };
}

/** Stored parts as a reader sees them: each a JSON document of its own, parsed anew on each read. */
function stored(parts: readonly unknown[]): SlicePartsSource & { reads: number[] } {
  const json = parts.map((p) => JSON.stringify(p));
  const reads: number[] = [];
  return {
    length: json.length,
    reads,
    read(i: number): unknown {
      reads.push(i);
      return JSON.parse(json[i]!);
    },
  };
}

/** The region's snapshot from its slice (the clusters left out: a region slice does not carry them). */
function regionSnapshotOf(slice: TargetSlice) {
  const t = slice.target as { accountId: string; regionId: string };
  const region = { ...(slice.region as Omit<WireRegion, 'clusters'>), regionId: t.regionId, clusters: [] };
  return mapWireFleet({ name: 'f', accounts: [{ account: { accountId: t.accountId, name: '', regions: [t.regionId] }, regions: [region] }], coverage: [] }).accounts[0]!
    .regions[0]!;
}

describe('slicePartsOf / readSliceParts', () => {
  it('cuts every long list of a region into runs and maps them part by part to the snapshot of the whole slice', () => {
    const slice = regionSlice(regionFleet());
    const r = slice.region!;
    // Joins across parts: a vServer group and an NLB server whose CLB / group is in another run, a duplicate
    // CLB id, and items nothing joins to (dropped, as mapping the whole slice drops them).
    r.vServerGroups = [...r.vServerGroups!].reverse();
    r.vServerGroups.push({ ...r.vServerGroups[0]!, LoadBalancerId: 'lb-none', VServerGroupId: 'rsp-orphan' });
    r.loadBalancers!.push({ ...r.loadBalancers![0]!, LoadBalancerName: 'duplicate id' });
    r.nlb!.servers = [...r.nlb!.servers].reverse();
    r.nlb!.servers.push({ ...r.nlb!.servers[0]!, ServerGroupId: 'sgp-none' });
    r.nlb!.listeners.push({ ...r.nlb!.listeners[0]!, LoadBalancerId: 'nlb-none', ListenerId: 'lsn-orphan' });
    expect(r.loadBalancers!.length).toBeGreaterThan(6);
    expect(r.nlb!.servers.length).toBeGreaterThan(6);
    const whole = regionSnapshotOf(slice);
    const before = JSON.stringify(slice);

    const parts = slicePartsOf(slice, 3);
    expect(JSON.stringify(slice)).toBe(before); // the slice is not changed
    const runs = parts.slice(1) as { region: Record<string, unknown> }[];
    const total = (list: string, nlb = false) =>
      runs.reduce((n, p) => n + (((nlb ? (p.region.nlb as Record<string, unknown[]> | undefined) : p.region)?.[list] as unknown[] | undefined)?.length ?? 0), 0);
    expect(total('loadBalancers')).toBe(r.loadBalancers!.length);
    expect(total('vServerGroups')).toBe(r.vServerGroups.length);
    expect(total('ecsInstances')).toBe(r.ecsInstances!.length);
    expect(total('servers', true)).toBe(r.nlb!.servers.length);
    expect(runs.every((p) => JSON.stringify(p).length < before.length / 2)).toBe(true);

    const source = stored(parts);
    const read = readSliceParts(source);
    expect(source.reads).toEqual(parts.map((_, i) => i)); // each part once, in order
    expect(read.slice.clusterIds).toEqual(slice.clusterIds);
    const fromParts = Object.assign(regionSnapshotOf(read.slice), read.lists);
    // Equal to the whole slice's snapshot, field order included.
    expect(JSON.stringify(fromParts)).toBe(JSON.stringify(whole));
    expect(fromParts.loadBalancers!.length).toBe(r.loadBalancers!.length);
  });

  it('keeps a slice without long lists whole, and lists not read (undefined) not read', () => {
    const slice = regionSlice(regionFleet());
    for (const data of KIND_DATA) setKindWire(slice.region!, data, undefined);
    delete slice.region!.ecsInstances;
    expect(slicePartsOf(slice, 1_000_000)).toEqual([slice]);
    const account: TargetSlice = { target: { kind: 'account', accountId: '1' }, coverage: [] };
    expect(slicePartsOf(account, 1)).toEqual([account]);
    expect(readSliceParts(stored([account]))).toEqual({ slice: account });

    const read = readSliceParts(stored(slicePartsOf(slice, 2)));
    expect(Object.keys(read.lists!)).toEqual(['loadBalancers']);
    const fromParts = Object.assign(regionSnapshotOf(read.slice), read.lists);
    expect(fromParts.nlbs).toBeUndefined();
    expect(fromParts.ecsInstances).toBeUndefined();
    expect(JSON.stringify(fromParts)).toBe(JSON.stringify(regionSnapshotOf(slice)));
  });

  it('names the target and part of a slice not in the stored format, and refuses a run length below 1', () => {
    const slice = regionSlice(regionFleet());
    const parts = slicePartsOf(slice, 2);
    expect(() => readSliceParts(stored([parts[0], { clusters: [] }]))).toThrow(
      'part 1 of the stored slice of region/' + slice.target.accountId + '/cn-hangzhou: not a { region: <lists> } part',
    );
    const noEcs = { ...slice, region: { ...slice.region!, ecsInstances: undefined } };
    expect(() => readSliceParts(stored([noEcs, { region: { ecsInstances: [] } }]))).toThrow(/part 1 .*head has no ecsInstances/);
    const account: TargetSlice = { target: { kind: 'account', accountId: '1' }, coverage: [] };
    expect(() => readSliceParts(stored([account, { region: {} }]))).toThrow(
      'part 0 of the stored slice of account/1: a slice in parts must be a region slice with its region',
    );
    expect(() => slicePartsOf(slice, 0)).toThrow(RangeError);
  });
});
