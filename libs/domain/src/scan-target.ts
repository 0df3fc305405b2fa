/**
 * The places a scan reads (crawl targets) and the one key of each: the target key (a target, e.g. a
 * crawl job and its `scan_targets` row) and the coverage key (one dataset of a target, e.g. a coverage
 * entry). Every layer (collectors, queue, store, worker, checks) keys targets and coverage with these.
 */

/** One unit of crawl work: an account (RAM), one region of it (CLB, ECS, VPC, quotas, clusters), or one cluster. */
export type CrawlTarget =
  | { kind: 'account'; accountId: string }
  | { kind: 'region'; accountId: string; regionId: string }
  | { kind: 'cluster'; accountId: string; regionId: string; clusterId: string };

/** Where a target or a coverage entry sits: account, optional region, optional cluster. */
export interface TargetPlace {
  /** The target kind when known (a CrawlTarget); keys derive it from the most specific place given. */
  kind?: CrawlTarget['kind'];
  accountId: string;
  regionId?: string;
  clusterId?: string;
}

/**
 * The stable key of a target (also `scan_targets.target_key` and part of crawl job ids):
 * `account/<uid>`, `region/<uid>/<region>`, `cluster/<uid>/<region>/<cluster>`. The kind is the most
 * specific place given (a coverage entry's place gives its target). Segments are URI-encoded, so no id
 * can forge a separator.
 */
export function targetKey(t: TargetPlace): string {
  const e = encodeURIComponent;
  if (t.clusterId !== undefined) return `cluster/${e(t.accountId)}/${e(t.regionId ?? '')}/${e(t.clusterId)}`;
  if (t.regionId !== undefined) return `region/${e(t.accountId)}/${e(t.regionId)}`;
  return `account/${e(t.accountId)}`;
}

/** Human label of a target for messages and progress: `account[/region[/cluster]]` (not a key: not encoded). */
export function targetLabel(t: TargetPlace): string {
  if (t.clusterId !== undefined) return `${t.accountId}/${t.regionId ?? ''}/${t.clusterId}`;
  if (t.regionId !== undefined) return `${t.accountId}/${t.regionId}`;
  return t.accountId;
}

/**
 * The key of one dataset of a target (`account|region|cluster|api`, empty segments for absent places):
 * the sort order of `FleetSnapshot.coverage` and the lookup key of coverage entries.
 */
export function coverageKey(c: TargetPlace & { api: string }): string {
  return `${c.accountId}|${c.regionId ?? ''}|${c.clusterId ?? ''}|${c.api}`;
}
