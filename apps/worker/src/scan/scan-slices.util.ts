/**
 * From stored crawl slices to the snapshot an analysis runs on: shared by the whole-scan analysis
 * (analyze-scan, ANALYZE_SHARDS=false) and each shard of a sharded one (analyze-shard), so both see the
 * same coverage wording and the same data.
 */
import { assembleWireFleet, NOT_CRAWLED, readSliceParts, type ScanConfig, type TargetSlice } from '@app/collectors';
import { mapWireFleet, targetKey, type CoverageEntry, type FleetSnapshot, type MappedRegionLists } from '@app/domain';
import type { ShardRef } from '@app/queue';
import type { ScanShardPlace, StoredScanTarget } from '@app/store';
import { shardKey } from '@app/queue';

/** Error code of the coverage entries of a target whose crawl job never delivered a slice. */
export const CRAWL_FAILED_CODE = 'CrawlJobFailed';

/** Target rows split into the slices read and the targets that failed, with why. */
export interface SplitTargets {
  slices: TargetSlice[];
  /**
   * The mapped lists of the region slices stored in parts (their slice in `slices` has those lists empty), by
   * account and region (libs/collectors `readSliceParts`).
   */
  regionLists: { accountId: string; regionId: string; lists: MappedRegionLists }[];
  failed: { row: StoredScanTarget; reason: string }[];
}

/**
 * Split a scan's target rows into slices (`ok` rows; none for rows read without their slice) and failed targets
 * (every other row). A slice stored in parts is read one part at a time, its region's lists mapped as they come
 * (`readSliceParts`), so the wire form of a whole large region never exists at once.
 * @param reasonOf why a non-`ok` row has no slice (one line)
 * @throws Error naming the target when a slice's parts are not of the stored format
 */
export function splitTargets(rows: readonly StoredScanTarget[], reasonOf: (row: StoredScanTarget) => string): SplitTargets {
  const out: SplitTargets = { slices: [], regionLists: [], failed: [] };
  for (const row of rows) {
    if (row.status !== 'ok') {
      out.failed.push({ row, reason: reasonOf(row) });
      continue;
    }
    if (!row.parts) continue; // read without its slice (`listStates`): only the failed targets matter
    // Written by CrawlTargetService from a TargetSlice (trusted JSON, see there).
    const { slice, lists } = readSliceParts(row.parts);
    out.slices.push(slice);
    if (lists && slice.target.kind === 'region')
      out.regionLists.push({ accountId: slice.target.accountId, regionId: slice.target.regionId, lists });
  }
  return out;
}

/**
 * The snapshot of `config`'s fleet from slices (`assembleWireFleet`, `mapWireFleet`). A target without a slice
 * is `failed` coverage (assembleWireFleet's `NotCrawled`, renamed `CrawlJobFailed` with the reason where the
 * crawl job told it), so it is never reported as healthy.
 */
export function snapshotOfTargets(config: ScanConfig, { slices, regionLists, failed }: SplitTargets): FleetSnapshot {
  const wire = assembleWireFleet(config, slices);
  const reasons = new Map(failed.map((f) => [f.row.targetKey, `crawl of ${f.row.targetKey} failed: ${f.reason}`]));
  const coverage = wire.coverage.map((c): CoverageEntry => {
    const reason = c.status === 'failed' && c.errorCode === NOT_CRAWLED ? reasons.get(targetKey(c)) : undefined;
    return reason === undefined ? c : { ...c, errorCode: CRAWL_FAILED_CODE, message: reason };
  });
  const snapshot = mapWireFleet({ ...wire, coverage });
  // A region slice read in parts mapped to empty lists in their place; its mapped lists fill them (the same
  // snapshot as mapping the slice read whole, field order included). A region outside the config has no snapshot.
  for (const { accountId, regionId, lists } of regionLists) {
    const region = snapshot.accounts.find((a) => a.accountId === accountId)?.regions.find((r) => r.regionId === regionId);
    if (region) Object.assign(region, lists);
  }
  return snapshot;
}

/**
 * The shards of a scan's analysis: one per (account, region) of the config and one per account without
 * regions, as assembleWireFleet reads the config (an account listed twice counts once, with its first entry's
 * regions, sorted and unique).
 */
export function shardsOf(config: ScanConfig): ShardRef[] {
  const out: ShardRef[] = [];
  for (const a of firstEntries(config)) {
    const regions = [...new Set(a.regions)].sort();
    if (regions.length === 0) out.push({ accountId: a.accountId, regionId: null });
    for (const regionId of regions) out.push({ accountId: a.accountId, regionId });
  }
  return out;
}

/** Accounts of the config, each once (its first entry). */
export function firstEntries(config: ScanConfig): ScanConfig['accounts'] {
  const seen = new Map<string, ScanConfig['accounts'][number]>();
  for (const a of config.accounts) if (!seen.has(a.accountId)) seen.set(a.accountId, a);
  return [...seen.values()];
}

/**
 * Where a shard stands in its account: its key, and whether it is the account's lead shard (its lowest region,
 * or the account-only shard), which alone reports the account's own results and coverage.
 * @throws Error when the config does not list the shard's account (commands check this first)
 */
export function shardPlace(config: ScanConfig, shard: ShardRef): ScanShardPlace {
  const account = firstEntries(config).find((a) => a.accountId === shard.accountId);
  if (!account) throw new Error(`the config does not list account ${shard.accountId}`);
  const lowest = [...new Set(account.regions)].sort()[0];
  return {
    shardKey: shardKey(shard),
    accountId: shard.accountId,
    regionId: shard.regionId ?? '',
    lead: shard.regionId === null || shard.regionId === lowest,
  };
}

/** The config reduced to one shard: its account with its one region (or none). */
export function configOfShard(config: ScanConfig, shard: ShardRef): ScanConfig {
  const account = firstEntries(config).find((a) => a.accountId === shard.accountId);
  return { ...config, accounts: account ? [{ ...account, regions: shard.regionId === null ? [] : [shard.regionId] }] : [] };
}
