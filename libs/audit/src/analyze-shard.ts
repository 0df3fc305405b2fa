/**
 * Sharded analysis of a distributed scan: the analyze step split into one job per shard
 * (an account and one of its regions; an account without regions is a shard alone) and a final job that sums
 * the shards. The checks run unchanged on the shard's snapshot (the account, its RAM data and that one region
 * with its clusters), so a shard's memory is bounded by its own size.
 *
 * Why the shard's results equal the in-process analysis's: every check scope (libs/checks check-scope.ts) is a
 * region's resource (`region`, `clb`, `ecs`, `cluster`, `service`, `reusedClb`, `sharedClb`) or an account
 * (`account`), and the lookups a check makes go through FleetIndex by the resource's own account and region
 * (`clbOf`, `reusedClb`, `clbsByName`, `findOwner` without a cluster tag, the region's NLB view) or through the
 * account's RAM data, which every shard of the account carries. Account-level results (resource region '') and
 * the account's own coverage entries are kept by the account's lead shard only, so they count once.
 *
 * Lookups by a globally unique id that the index answers fleet-wide, and that cross shards only when a
 * resource of one region names a resource of another account or region, which CCM itself never finds (it
 * calls the APIs of the Service's own account and region):
 * - LB_REUSE_OF_APISERVER, LB_REUSE_OF_CCM_CREATED, LB_NO_BACKENDS, LB_CONFIG_DRIFT, LB_ORPHANED and the graph's
 *   `apiServerClusterId`: `FleetIndex.apiServerClusters` (a CLB id named as a cluster's API server CLB);
 * - LB_ORPHANED and NLB_SERVER_GROUP_ORPHANED: the cluster named by a load balancer's `ack.aliyun.com` tag or CCM
 *   name (`FleetIndex.clusterById`);
 * - LB_LISTENER_PORT_CONFLICT and LB_REUSE_NAME_COLLISION: the `skipped` result of a CLB id reused by Services of
 *   several regions whose CLBs were not read (`FleetIndex.reusersByLbId`: grouped per region in a shard), and the
 *   graph's `reused` origin of a CLB reused from another region.
 * In a fleet where such a reference crosses regions the sharded result differs from the in-process one for that
 * resource (e.g. a Service reusing another region's API server CLB: LB_REUSE_OF_APISERVER passes in its shard);
 * README "Sharded analysis" names this. None of them needs more than one shard on real fleets, so no check runs
 * in the final job.
 */
import { buildFleetGraph, FleetIndex, QUOTA_USAGE_CHECK_IDS, runAudit, type PartialAuditSettings } from '@app/checks';
import { assignTeams, clustersOf, skippedResultsOf, withSampleTeams, type CoverageEntry, type FleetSnapshot, type ResourceRef } from '@app/domain';
import type { ScanShardPart, ScanShardPlace, ShardStoreOutcome, Store } from '@app/store';
import { KEEP_SKIPPED_ONLY, summarize, type ScanSummary } from './analyze-and-store';

/** Inputs of {@link analyzeAndStoreShard}. */
export interface AnalyzeShardRequest {
  scanId: string;
  /** Analysis clock (the scan's; the same for every shard). */
  now: Date;
  settings?: PartialAuditSettings;
  /** Which shard this is (its account, region and whether it is the account's lead shard). */
  place: ScanShardPlace;
  store: Store;
}

/** What one shard produced and whether it was stored now. */
export interface ShardAnalysis {
  outcome: ShardStoreOutcome;
  /** Findings of the shard (count). */
  findings: number;
  summary: ScanSummary;
}

/** Whether a result or coverage entry is the account's own (no region): the lead shard's alone. */
export function isAccountLevel(regionId: string | undefined): boolean {
  return regionId === undefined || regionId === '';
}

/** `RunAuditOptions.resultsAbout` of a shard that is not its account's lead: every resource but the account's own. */
export function notAccountLevel(resource: ResourceRef): boolean {
  return !isAccountLevel(resource.regionId);
}

/**
 * Analyze one shard's snapshot (every enabled check, as `analyzeAndStore`) and store its part of the scan in
 * one transaction (ScanShardRepository.storeDone): findings, quota samples, fleet graph, summary part, coverage,
 * skipped results and the snapshot part (RAM data in the lead shard's only).
 * Never fails for a shard that read nothing: whether the scan read anything at all is complete-scan's question.
 * @param snapshot the shard's snapshot: its account with the one region (or none), and their coverage
 * @throws AuditSettingsError for invalid settings; StoreError from the store (NOT_FOUND, INVALID_ARGUMENT when a
 *   row lies outside the shard's account, UNAVAILABLE)
 */
export async function analyzeAndStoreShard(snapshot: FleetSnapshot, req: AnalyzeShardRequest): Promise<ShardAnalysis> {
  const { part, summary } = shardPartOf(snapshot, req);
  const outcome = await req.store.scanShards.storeDone(req.scanId, req.place, part);
  return { outcome, findings: part.findings.length, summary };
}

/**
 * What a shard stores, computed synchronously so that the index is garbage before the store step starts. As a whole
 * scan's analysis (`analyzeSnapshot`), the audit keeps the skipped results and the quota checks' samples, not the pass
 * and fail results they come from (most of the analysis's memory after the snapshot); a shard that is not its
 * account's lead drops the account's own results as they are pushed (`resultsAbout`), so its counts, findings,
 * samples and skipped results are its regions' alone.
 */
function shardPartOf(snapshot: FleetSnapshot, req: Omit<AnalyzeShardRequest, 'store'>): { part: ScanShardPart; summary: ScanSummary } {
  const { lead } = req.place;
  // Each cluster's team on the snapshot (as a whole scan's analysis does), so the shard's graph and stored snapshot carry it.
  assignTeams(snapshot, req.settings?.owners);
  const index = FleetIndex.build(snapshot);
  const audit = runAudit(snapshot, {
    now: req.now,
    ...(req.settings ? { settings: req.settings } : {}),
    index,
    keepResultsOf: KEEP_SKIPPED_ONLY,
    quotaSamplesOf: QUOTA_USAGE_CHECK_IDS,
    ...(lead ? {} : { resultsAbout: notAccountLevel }),
  });
  const findings = audit.findings;
  const coverage: CoverageEntry[] = lead ? snapshot.coverage : snapshot.coverage.filter((c) => !isAccountLevel(c.regionId));
  const summary: ScanSummary = { ...summarize({ ...snapshot, coverage }, audit.counts, findings), accounts: lead ? snapshot.accounts.length : 0 };
  const part: ScanShardPart = {
    findings,
    quotaUsage: withSampleTeams(audit.quotaUsage ?? [], clustersOf(snapshot), req.settings?.owners),
    graph: buildFleetGraph(snapshot, index),
    snapshot: {
      name: snapshot.name,
      accounts: lead ? snapshot.accounts : snapshot.accounts.map((a) => ({ accountId: a.accountId, name: a.name, regions: a.regions })),
      coverage: [],
    },
    summary,
    coverage,
    skipped: skippedResultsOf(audit.results),
  };
  return { part, summary };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function addCounts<K extends string>(into: Record<K, number>, from: Record<K, number>): void {
  for (const k of Object.keys(from) as K[]) into[k] = (into[k] ?? 0) + from[k];
}

/**
 * The scan's summary from its shards' summary parts: counts added, `byCheck` and `byCheckStatus` sorted by check
 * id (as `summarize`), coverage counted over the scan's merged coverage (failed shards' entries included),
 * `accounts` the scan's (every account of the config, as the in-process snapshot counts them).
 * @param parts the summary parts of the shards that stored one
 * @param coverage the scan's coverage (every shard's entries)
 * @param accounts accounts of the scan (count)
 */
export function sumShardSummaries(parts: readonly ScanSummary[], coverage: readonly CoverageEntry[], accounts: number): ScanSummary {
  const out = summarize({ name: '', accounts: [], coverage: [...coverage] }, new Map(), []);
  const byCheck: Record<string, number> = {};
  const byCheckStatus: Record<string, { pass: number; fail: number; skipped: number }> = {};
  for (const p of parts) {
    out.findings += p.findings;
    addCounts(out.bySeverity, p.bySeverity);
    addCounts(out.results, p.results);
    addCounts(byCheck, p.byCheck);
    for (const [id, c] of Object.entries(p.byCheckStatus)) addCounts((byCheckStatus[id] ??= { pass: 0, fail: 0, skipped: 0 }), c);
    out.clusters += p.clusters;
    out.loadBalancers += p.loadBalancers;
  }
  out.byCheck = Object.fromEntries(Object.entries(byCheck).sort(([a], [b]) => compareText(a, b)));
  out.byCheckStatus = Object.fromEntries(Object.entries(byCheckStatus).sort(([a], [b]) => compareText(a, b)));
  out.accounts = accounts;
  return out;
}
