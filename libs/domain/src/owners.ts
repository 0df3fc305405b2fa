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
import type { QuotaUsageSample } from './finding.types';
import type { FleetSnapshot } from './snapshot.types';

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
 * The team owning a cluster: `owners.clusters[clusterId]`, else `owners.clusters[name]`, else the team the scan that
 * stored the snapshot resolved (`cluster.team`, assignTeams) unless `owners.tagKey` is given, else the value of the
 * tag `owners.tagKey` (default `team`); undefined when none names a valid team (TEAM_NAME).
 * @param cluster the cluster (its id, name, tags and stored team)
 * @param owners the audit settings' `owners` (all optional)
 */
export function teamOf(
  cluster: { clusterId: string; name: string; tags?: Readonly<Record<string, string>>; team?: string },
  owners: OwnerSettings | undefined,
): string | undefined {
  const configured = owners?.clusters?.[cluster.clusterId] ?? owners?.clusters?.[cluster.name];
  const stored = owners?.tagKey === undefined ? cluster.team : undefined;
  const team = configured ?? stored ?? cluster.tags?.[owners?.tagKey ?? DEFAULT_OWNER_TAG_KEY];
  return team !== undefined && TEAM_NAME.test(team) ? team : undefined;
}

/**
 * Quota samples with `resource.team` set from their cluster's team (teamOf), for the store and metrics; samples
 * outside a cluster, or of an unowned cluster, are returned as they are.
 * @param samples the samples (`quotaUsageOf(results)`); not modified
 * @param clusters the snapshot's clusters (id, name, tags)
 */
export function withSampleTeams(
  samples: readonly QuotaUsageSample[],
  clusters: Iterable<{ clusterId: string; name: string; tags?: Readonly<Record<string, string>> }>,
  owners: OwnerSettings | undefined,
): QuotaUsageSample[] {
  const teams = new Map<string, string>();
  for (const c of clusters) {
    const team = teamOf(c, owners);
    if (team !== undefined) teams.set(c.clusterId, team);
  }
  if (teams.size === 0) return [...samples];
  return samples.map((s) => {
    const team = s.resource.clusterId === undefined ? undefined : teams.get(s.resource.clusterId);
    return team === undefined ? s : { ...s, resource: { ...s.resource, team } };
  });
}

/** Every cluster of a snapshot (for withSampleTeams). */
export function* clustersOf(snapshot: FleetSnapshot): Iterable<FleetSnapshot['accounts'][number]['regions'][number]['clusters'][number]> {
  for (const a of snapshot.accounts) for (const r of a.regions) yield* r.clusters;
}

/**
 * Records each cluster's team on the snapshot (`ClusterSnapshot.team`, teamOf with the scan's owners), so that
 * readers of the stored snapshot (headroom and what-if in the API, which has no audit settings) see the teams the
 * scan's findings and quota samples carry. Mutates the snapshot's clusters (a cluster without team loses the field).
 */
export function assignTeams(snapshot: FleetSnapshot, owners: OwnerSettings | undefined): void {
  for (const c of clustersOf(snapshot)) {
    const team = teamOf({ clusterId: c.clusterId, name: c.name, ...(c.tags ? { tags: c.tags } : {}) }, owners);
    if (team === undefined) delete c.team;
    else c.team = team;
  }
}
