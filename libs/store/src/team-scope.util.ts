import type { Scoped } from './principal';

/**
 * What a team-scoped principal (`Scoped.teamScope`) sees of rows that are not findings, decided once here and applied
 * in SQL by every reader (the fleet graph, quota samples, scan coverage, waivers):
 *  - a row of a cluster (it names one) is visible when that cluster belongs to one of its teams: the row's own
 *    `team` column where it has one, else the cluster's team in the scan's fleet graph (`graph_clusters.team`);
 *  - a row of an account or region (a shared quota such as an account's CLB instances in a region, a region's
 *    coverage, a waiver over a whole account) is visible when one of its teams owns a cluster in that account (and
 *    region, when the row has one) in that scan: those clusters draw on it. Its figures stay the account's or
 *    region's (the quota is shared; the team's own share is what its cluster rows and headroom's "of which" say);
 *  - any other row outside a cluster (a CLB no cluster claims, an ECS instance that is no node) is outside every
 *    team.
 * Without a fleet graph for the scan (scans stored before the graph, or before teams were recorded in it) nothing
 * but rows with their own `team` column is visible to a team-scoped principal: fail closed.
 *
 * Column and scan expressions come from code, never from input; the teams are a bind parameter. Qualify them (an
 * alias or the table name): the rule's subqueries read `graph_clusters` (alias `tc`), whose columns `scan_id`,
 * `account_id`, `region_id` and `cluster_id` would otherwise capture unqualified names.
 */

/** The columns of a row the team rule reads (SQL expressions from code). */
export interface TeamRowColumns {
  /** The row's scan id (uuid) expression. */
  scan: string;
  /** The row's account id. */
  account: string;
  /** The row's region id; '' or NULL means the row is of the whole account. Absent: an account-level table. */
  region?: string;
  /** The row's cluster id; NULL or '' means the row is not of a cluster. Absent: the table holds no cluster rows. */
  cluster?: string;
  /** The row's own team column, when the table has one (used for its cluster rows). */
  team?: string;
  /**
   * A condition true for rows of an account or region (shared by its clusters) among those without a cluster, e.g.
   * `resource_kind IN ('Account', 'Region')`; absent: every row without a cluster is of its account / region.
   */
  shared?: string;
}

/** `ANY(...)` over the principal's teams, registering them as one bind parameter. */
function teamsParam(scoped: Scoped, add: (value: unknown) => string): string {
  return `${add([...(scoped.teamScope ?? [])])}::text[]`;
}

/**
 * The SQL condition restricting rows to the principal's teams (`TRUE` without a team scope). See the file comment for
 * the rule; the lookups use `graph_clusters` (primary key and `graph_clusters_scan_team_idx`).
 * @param cols the row's columns
 * @param scoped the principal
 * @param add registers a bind parameter and returns its placeholder
 */
export function teamRowCondition(cols: TeamRowColumns, scoped: Scoped, add: (value: unknown) => string): string {
  if (scoped.teamScope === undefined) return 'TRUE';
  const teams = teamsParam(scoped, add);
  const owns = (cond: string) => `EXISTS (SELECT 1 FROM graph_clusters tc WHERE tc.scan_id = ${cols.scan} AND tc.team = ANY(${teams}) AND ${cond})`;
  const region = cols.region === undefined ? '' : ` AND (COALESCE(${cols.region}, '') = '' OR tc.region_id = ${cols.region})`;
  const area = owns(`tc.account_id = ${cols.account}${region}`);
  const sharedArea = cols.shared === undefined ? area : `(${cols.shared} AND ${area})`;
  if (cols.cluster === undefined) return sharedArea;
  const ofCluster = cols.team !== undefined ? `${cols.team} = ANY(${teams})` : owns(`tc.cluster_id = ${cols.cluster}`);
  return `(CASE WHEN COALESCE(${cols.cluster}, '') <> '' THEN ${ofCluster} ELSE ${sharedArea} END)`;
}

/**
 * The SQL condition for a row that serves SEVERAL clusters (`column`: a `text[]` of cluster ids, e.g. the clusters
 * whose Services use a CLB): visible to a team-scoped principal only when it serves at least one cluster and every
 * one of them is of its teams, so a load balancer shared with another team's cluster never names that cluster.
 * `TRUE` without a team scope.
 */
export function teamClustersCoverCondition(column: string, scan: string, scoped: Scoped, add: (value: unknown) => string): string {
  if (scoped.teamScope === undefined) return 'TRUE';
  const teams = teamsParam(scoped, add);
  return `(cardinality(${column}) > 0 AND ${column} <@ ARRAY(SELECT tc.cluster_id::text FROM graph_clusters tc WHERE tc.scan_id = ${scan} AND tc.team = ANY(${teams})))`;
}

/** A cache key part for the principal's team scope ('' for every team), beside `scopeCacheKey` of its accounts. */
export function teamCacheKey(scoped: Scoped): string {
  return scoped.teamScope === undefined ? '' : `teams:${[...scoped.teamScope].sort().join(',')}`;
}
