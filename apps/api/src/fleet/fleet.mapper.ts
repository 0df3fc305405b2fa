/** Response shapes of the stored fleet graph that differ from its domain rows (libs/domain fleet-graph.types.ts). */
import type { GraphServerGroup } from '@app/domain';
import type { ServerGroupDto } from './fleet.dto';

/** A server group as REST shows it inside its CLB (no CLB id, account or region: the CLB has them). */
export function toServerGroupDto(g: GraphServerGroup): ServerGroupDto {
  return { vServerGroupId: g.vServerGroupId, isDefault: g.isDefault, name: g.name, backends: g.backends };
}

/** A row of a scan's graph as a GraphQL node: the row plus the scan it belongs to (nested fields read that scan). */
export function withScan<T>(scanId: string): (row: T) => T & { scanId: string } {
  return (row) => ({ ...row, scanId });
}
