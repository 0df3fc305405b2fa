/**
 * Which listed ACK clusters a scan reads: the scan config's `clusters.include` and `clusters.exclude`
 * matched against each DescribeClustersV1 item (`cluster_id`, `name`, `region_id`, `tags[]` of
 * `{key, value}`: research/alibaba-cloud-api.md section 2, research/sdk-model-shapes.txt).
 *
 * A value is matched exactly, or by prefix when it ends with `*` (`prod-*`; `*` alone matches any
 * value). The matcher is a single `startsWith`, linear in the value, so a config cannot make a scan
 * slow however its patterns look.
 */
import type { WireClusterDetail } from '@app/domain';
import type { ClusterMatcher, ScanConfig } from './scan-config';

/** Whether `value` matches `pattern`: equal, or starting with the part before a trailing `*`. */
export function matchesPattern(pattern: string, value: string): boolean {
  return pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : pattern === value;
}

/** The tags of a cluster list item (`tags: [{key, value}]`), malformed entries left out. */
export function clusterTags(item: Readonly<Record<string, unknown>>): { key: string; value: string }[] {
  const tags = item['tags'];
  if (!Array.isArray(tags)) return [];
  const out: { key: string; value: string }[] = [];
  for (const t of tags as unknown[]) {
    if (typeof t !== 'object' || t === null) continue;
    const { key, value } = t as { key?: unknown; value?: unknown };
    if (typeof key === 'string') out.push({ key, value: typeof value === 'string' ? value : '' });
  }
  return out;
}

/** Whether a tag matcher (`key` or `key=value`, either side may end with `*`) matches one of the tags. */
function matchesTag(matcher: string, tags: readonly { key: string; value: string }[]): boolean {
  const eq = matcher.indexOf('=');
  const key = eq < 0 ? matcher : matcher.slice(0, eq);
  const value = eq < 0 ? undefined : matcher.slice(eq + 1);
  return tags.some((t) => matchesPattern(key, t.key) && (value === undefined || matchesPattern(value, t.value)));
}

/** The cluster a matcher is judged on. */
export interface SelectableCluster {
  accountId: string;
  /** The DescribeClustersV1 item (or DescribeClusterDetail body). */
  item: Pick<WireClusterDetail, 'cluster_id' | 'name' | 'region_id'> & Readonly<Record<string, unknown>>;
}

/** Whether every field a matcher gives matches the cluster. */
export function matchesCluster(m: ClusterMatcher, c: SelectableCluster): boolean {
  return (
    (m.accountId === undefined || m.accountId === c.accountId) &&
    (m.region === undefined || matchesPattern(m.region, c.item.region_id)) &&
    (m.id === undefined || matchesPattern(m.id, c.item.cluster_id)) &&
    (m.name === undefined || matchesPattern(m.name, c.item.name)) &&
    (m.tag === undefined || matchesTag(m.tag, clusterTags(c.item)))
  );
}

/** A matcher as the config wrote it, for messages: `name: prod-*, tag: env=prod`. */
export function describeMatcher(m: ClusterMatcher): string {
  return (['accountId', 'region', 'id', 'name', 'tag'] as const)
    .filter((k) => m[k] !== undefined)
    .map((k) => `${k}: ${m[k]}`)
    .join(', ');
}

/** Whether a cluster is read, and if not, why (naming the config entry). */
export type ClusterSelection = { selected: true } | { selected: false; reason: string };

/**
 * Judge one listed cluster: excluded when an `exclude` entry matches it, or when `include` is given and
 * no entry of it matches; read otherwise.
 */
export function selectCluster(config: Pick<ScanConfig, 'clusters'>, c: SelectableCluster): ClusterSelection {
  const { include, exclude } = config.clusters ?? {};
  const ex = (exclude ?? []).findIndex((m) => matchesCluster(m, c));
  if (ex >= 0)
    return { selected: false, reason: `excluded by clusters.exclude[${ex}] (${describeMatcher((exclude ?? [])[ex] as ClusterMatcher)})` };
  if (include && !include.some((m) => matchesCluster(m, c)))
    return { selected: false, reason: `matched by no entry of clusters.include (${include.map((m) => `{${describeMatcher(m)}}`).join(', ')})` };
  return { selected: true };
}
