/**
 * How people read a cluster: by its name beside its opaque id ("Findings, tables, headroom, the
 * report's 'by cluster' and what-if scenarios show the opaque cluster id"). ACK cluster ids are 33 characters
 * (`c` + 32 hex, DescribeClusterDetail `cluster_id`); the name is the one given at creation (`name`).
 */

/** Characters of a cluster id kept in a label beside the name (enough to tell ids apart, short enough for a table). */
export const CLUSTER_ID_PREFIX_LENGTH = 8;

/**
 * The label of a cluster for tables and reports: `storefront (c81faa03…)` when the name is known (the id cut to
 * {@link CLUSTER_ID_PREFIX_LENGTH} characters and an ellipsis when longer), the bare id otherwise.
 * @param clusterId the cluster id (`c81faa03ae9366a2df0093610b2aca766`)
 * @param clusterName the cluster's name, when known (empty or absent: the id alone)
 */
export function clusterLabel(clusterId: string, clusterName?: string | null): string {
  if (!clusterName) return clusterId;
  const id = clusterId.length > CLUSTER_ID_PREFIX_LENGTH + 1 ? `${clusterId.slice(0, CLUSTER_ID_PREFIX_LENGTH)}…` : clusterId;
  return `${clusterName} (${id})`;
}

/** A cluster a scenario, flag or filter can name: its id and name. */
export interface NamedCluster {
  clusterId: string;
  name: string;
}

/**
 * Resolves a cluster named by id or by name (an id wins: ids are unique, names need not be).
 * @param given what the user wrote (a cluster id, or a cluster name)
 * @param clusters every cluster it may name
 * @returns the cluster, or `{ error }`: one line, `unknown cluster 'x'; clusters: storefront (c81faa03…), ...`, or
 *   `ambiguous cluster name 'x': ...` listing the clusters of that name by id
 */
export function resolveClusterRef<C extends NamedCluster>(given: string, clusters: readonly C[]): C | { error: string } {
  const byId = clusters.find((c) => c.clusterId === given);
  if (byId) return byId;
  const named = clusters.filter((c) => c.name === given);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) return { error: `ambiguous cluster name '${given}': ${named.length} clusters have it (${named.map((c) => c.clusterId).join(', ')}); name one by id` };
  const list = [...clusters]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.clusterId < b.clusterId ? -1 : 1))
    .map((c) => clusterLabel(c.clusterId, c.name));
  return { error: `unknown cluster '${given}'; clusters: ${list.length ? list.join(', ') : '(none)'}` };
}
