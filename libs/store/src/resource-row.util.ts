/**
 * The resource columns that findings, quota usage samples and scan diffs share, and their one mapping to a
 * `ResourceRef` (libs/domain).
 */
import type { QueryResultRow } from 'pg';
import type { ResourceKind, ResourceRef } from '@app/domain';

/** The resource columns of a row (`findings`, `quota_usage`, the scan diff); NULL where the resource has no such part. */
export interface ResourceRow extends QueryResultRow {
  account_id: string;
  region_id: string;
  cluster_id: string | null;
  /** The cluster's name (`findings.cluster_name`, migration 1798500000000); absent or NULL where not stored. */
  cluster_name?: string | null;
  /** The cluster's team (`findings.team`, `quota_usage.team`, migration 1799500000000); absent or NULL where not stored. */
  team?: string | null;
  resource_kind: ResourceKind;
  resource_id: string;
  /** Absent from rows of tables without the column (`quota_usage`). */
  namespace?: string | null;
  name?: string | null;
}

/** A row's resource: kind, id, account, region, then cluster id / cluster name / team / namespace / name only when not NULL (nor absent). */
export function resourceOfRow(r: ResourceRow): ResourceRef {
  return {
    kind: r.resource_kind,
    id: r.resource_id,
    accountId: r.account_id,
    regionId: r.region_id,
    ...(r.cluster_id !== null ? { clusterId: r.cluster_id } : {}),
    ...(r.cluster_name !== null && r.cluster_name !== undefined ? { clusterName: r.cluster_name } : {}),
    ...(r.team !== null && r.team !== undefined ? { team: r.team } : {}),
    ...(r.namespace !== null && r.namespace !== undefined ? { namespace: r.namespace } : {}),
    ...(r.name !== null && r.name !== undefined ? { name: r.name } : {}),
  };
}
