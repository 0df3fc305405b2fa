/**
 * Owners: the team a cluster belongs to, so findings, quota samples, the fleet graph, metrics, tokens and report
 * deliveries can be cut by team. A team comes from the audit settings' `owners.clusters` (by cluster id, then by
 * cluster name), else from the cluster's ACK tag `owners.tagKey` (DescribeClustersV1 / DescribeClusterDetail
 * `tags: [{key, value}]`, research/alibaba-cloud-api.md "DescribeClustersV1"; offline fleets: cluster.json `tags`,
 * fleet-format.md).
 *
 * Team names are bounded (TEAM_NAME: 1-63 characters of a DNS-label-like alphabet), so a team is safe as a metric
 * label value, a URL query value and a path segment; a tag value outside it gives no team (the cluster is
 * unowned), never a label of arbitrary text.
 */

/** Default tag key of the owning team (the key the sample fleets use). */
export const DEFAULT_OWNER_TAG_KEY = 'team';

/** A team name: a letter or digit, then up to 62 letters, digits, `.`, `_` or `-`. */
export const TEAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Where a cluster's team comes from (audit settings `owners`). */
export interface OwnerSettings {
  /** The ACK cluster tag whose value names the team (default `team`). */
  tagKey?: string;
  /** Teams by cluster id or cluster name; wins over the tag. */
  clusters?: Readonly<Record<string, string>>;
}

/**
 * The team owning a cluster: `owners.clusters[clusterId]`, else `owners.clusters[name]`, else the value of the tag
 * `owners.tagKey` (default `team`); undefined when none names a valid team (TEAM_NAME).
 * @param cluster the cluster (its id, name and tags)
 * @param owners the audit settings' `owners` (all optional)
 */
export function teamOf(
  cluster: { clusterId: string; name: string; tags?: Readonly<Record<string, string>> },
  owners: OwnerSettings | undefined,
): string | undefined {
  const configured = owners?.clusters?.[cluster.clusterId] ?? owners?.clusters?.[cluster.name];
  const team = configured ?? cluster.tags?.[owners?.tagKey ?? DEFAULT_OWNER_TAG_KEY];
  return team !== undefined && TEAM_NAME.test(team) ? team : undefined;
}
