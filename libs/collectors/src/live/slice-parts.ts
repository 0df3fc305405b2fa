/**
 * A target slice as stored in parts, so that reading one never needs its whole wire form at once.
 *
 * The region slice of an account-region with hundreds of clusters holds every CLB with its backend servers, every
 * NLB server and every ECS instance: over 200 MiB of JSON at 500 clusters. Held at once as the decompressed bytes,
 * the JSON text and the parsed objects, it took an analyze-shard worker past 2 GiB. Stored in parts instead, each
 * long list of the region (more than {@link SLICE_PART_ITEMS} items) is cut into consecutive runs, one per part,
 * and the reader maps the runs one at a time (libs/domain `RegionListsMapper`), dropping each part's wire form
 * before parsing the next.
 *
 * Format (JSON documents, in order): part 0 is the head, the TargetSlice itself with each long list of its region
 * replaced by an empty array (the list's key keeps its place); every further part is `{ region: <lists> }` with one
 * run of one list (`loadBalancers`, `vServerGroups`, `ecsInstances`, or a load-balancer kind's dataset key with
 * one of its lists: `nlb` with one of `loadBalancers`, `listeners`, `serverGroups`, `servers`; `KIND_DATA`). The runs of a list concatenated in part order are the list. A slice
 * without long lists (account and cluster slices, small regions) is one part: the slice as it is.
 */
import {
  KIND_DATA,
  RegionListsMapper,
  emptyKindWire,
  kindWireOf,
  setKindWire,
  targetKey,
  type MappedRegionLists,
  type WireRegionLists,
} from '@app/domain';
import type { TargetSlice } from './crawl-targets';

/**
 * Items of one list per part (count). At 1,000 CLBs with their backend servers a part is about 25 MiB of JSON
 * (the bench fleet's CLBs: 100 backends in 1.3 vServer groups), a small part of what the mapped region holds.
 */
export const SLICE_PART_ITEMS = 1000;

/** The long lists of a region slice, in the order their runs are stored. */
const REGION_LISTS = ['loadBalancers', 'vServerGroups', 'ecsInstances'] as const;

/**
 * Cut a slice into the parts it is stored as (see the file comment). The slice is not changed; the parts share
 * its items.
 * @param itemsPerPart longest run of a list in one part (count, at least 1; default {@link SLICE_PART_ITEMS})
 * @returns the head, then the runs of each long list in list order; `[slice]` when no list is longer
 * @throws RangeError when `itemsPerPart` is not a positive integer
 */
export function slicePartsOf(slice: TargetSlice, itemsPerPart: number = SLICE_PART_ITEMS): unknown[] {
  if (!Number.isInteger(itemsPerPart) || itemsPerPart < 1)
    throw new RangeError(`itemsPerPart must be a positive integer, got ${itemsPerPart}`);
  const region = slice.region;
  if (!region) return [slice];
  const long = (items: readonly unknown[] | undefined): items is unknown[] => items !== undefined && items.length > itemsPerPart;
  const runs = (items: readonly unknown[], wrap: (run: unknown[]) => unknown): unknown[] => {
    const out: unknown[] = [];
    for (let i = 0; i < items.length; i += itemsPerPart) out.push(wrap(items.slice(i, i + itemsPerPart)));
    return out;
  };
  const head: Record<string, unknown> = { ...region };
  const parts: unknown[] = [];
  for (const list of REGION_LISTS) {
    const items = region[list];
    if (!long(items)) continue;
    head[list] = [];
    parts.push(...runs(items, (run) => ({ region: { [list]: run } })));
  }
  // Then each kind's lists, in KIND_DATA order and its list order.
  for (const data of KIND_DATA) {
    const wire = kindWireOf(region, data);
    if (!wire) continue;
    const kept: Record<string, readonly unknown[]> = { ...wire };
    for (const list of data.lists) {
      const items = wire[list];
      if (!long(items)) continue;
      kept[list] = [];
      parts.push(...runs(items, (run) => ({ region: { [data.dataset]: { [list]: run } } })));
    }
    setKindWire(head, data, kept);
  }
  if (parts.length === 0) return [slice];
  return [{ ...slice, region: head }, ...parts];
}

/** The stored parts of a slice, parsed one at a time (structurally libs/store `StoredSliceParts`). */
export interface SlicePartsSource {
  /** Parts stored (count, at least 1). */
  readonly length: number;
  /** Part `i` (0 = the head), parsed anew on each call. */
  read(i: number): unknown;
}

/** A slice read from its parts: the head and, for a region stored in parts, its lists already mapped. */
export interface ReadSlice {
  /**
   * The slice; a region slice stored in parts has each list that `lists` holds emptied (the key stays, so the
   * snapshot mapped from the slice has the field in its place, for `lists` to fill).
   */
  slice: TargetSlice;
  /** The region's lists in snapshot form (set when the slice had more than one part). */
  lists?: MappedRegionLists;
}

/**
 * Read a stored slice part by part: the head as it is and, when there are more parts, every run of its region's
 * lists mapped into snapshot form (RegionListsMapper) as soon as it is parsed, so only one part's wire form and
 * the mapped region exist at once. The slice's snapshot (assembleWireFleet, mapWireFleet) then has the region's
 * lists empty; `lists` replaces them (they are the same as mapping the slice read whole).
 * @throws Error naming the target and the part when a part is not of the format (see the file comment)
 */
export function readSliceParts(parts: SlicePartsSource): ReadSlice {
  const slice = parts.read(0) as TargetSlice;
  if (parts.length === 1) return { slice };
  const where = (i: number) => `part ${i} of the stored slice of ${describe(slice)}`;
  const target = slice.target;
  if (target?.kind !== 'region' || !slice.region) throw new Error(`${where(0)}: a slice in parts must be a region slice with its region`);
  const lists = new RegionListsMapper(target.accountId, target.regionId);
  lists.add(slice.region);
  const region: Record<string, unknown> = slice.region;
  for (const list of REGION_LISTS) if (region[list] !== undefined) region[list] = [];
  for (const data of KIND_DATA) if (kindWireOf(region, data)) setKindWire(region, data, emptyKindWire(data));
  for (let i = 1; i < parts.length; i++) {
    const part = parts.read(i) as { region?: WireRegionLists } | null;
    const run = part?.region;
    if (typeof run !== 'object' || run === null) throw new Error(`${where(i)}: not a { region: <lists> } part`);
    if ((run.loadBalancers || run.vServerGroups) && !slice.region.loadBalancers)
      throw new Error(`${where(i)}: a run of CLBs or vServer groups, but the head has no loadBalancers`);
    if (run.ecsInstances && !slice.region.ecsInstances) throw new Error(`${where(i)}: a run of ECS instances, but the head has no ecsInstances`);
    for (const data of KIND_DATA)
      if (kindWireOf(run, data) && !kindWireOf(slice.region, data))
        throw new Error(`${where(i)}: a run of a ${data.dataset} list, but the head has no ${data.dataset}`);
    lists.add(run);
  }
  return { slice, lists: lists.result() };
}

/** The target of a slice head for an error message. */
function describe(slice: TargetSlice | null): string {
  try {
    return slice?.target ? targetKey(slice.target) : 'an unknown target';
  } catch {
    return 'an unknown target';
  }
}
