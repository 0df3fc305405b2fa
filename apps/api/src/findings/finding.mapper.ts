/**
 * Response shapes of findings and resource references, shared by REST (FindingDto, `/v1/findings`, scan diffs,
 * skipped results) and GraphQL (`Finding`, `ResourceRef`): absent optional domain fields become null, so clients
 * see one stable shape.
 */
import type { ResourceRef, WaivedFinding } from '@app/domain';
import type { StoredFinding } from '@app/store';
import type { FindingDto, FindingResourceDto } from './finding.dto';

/**
 * The response shape of a resource reference (REST FindingResourceDto, GraphQL ResourceRef): absent optional fields
 * become null (the defaults). An object literal, not `withNulls` (common/response-shape.util.ts): it runs for every
 * finding, quota sample and diff item of a page, where a literal of known keys is about twice as fast.
 */
export function toResourceDto(r: ResourceRef): FindingResourceDto {
  const { kind, id, accountId, regionId, clusterId = null, clusterName = null, team = null, namespace = null, name = null } = r;
  return { kind, id, accountId, regionId, clusterId, clusterName, team, namespace, name };
}

/** The response shape of a stored finding: absent optional fields become null; no waiver data: `open`. */
export function toFindingDto(f: StoredFinding | WaivedFinding<StoredFinding>): FindingDto {
  const w = 'waiver' in f ? f.waiver : undefined;
  return {
    checkId: f.checkId,
    severity: f.severity,
    resource: toResourceDto(f.resource),
    message: f.message,
    remediation: f.remediation,
    source: f.source,
    fingerprint: f.fingerprint,
    used: f.used ?? null,
    limit: f.limit ?? null,
    ratio: f.ratio ?? null,
    figures: f.figures ?? null,
    firstSeenAt: f.firstSeenAt,
    lastSeenAt: f.lastSeenAt,
    status: 'status' in f ? f.status : 'open',
    waiver: w ? { id: w.id, owner: w.owner, reason: w.reason, category: w.category, ticket: w.ticket ?? null, expiresAt: w.expiresAt } : null,
  };
}

/** A finding as GraphQL `Finding` serves it: the REST shape plus `waiverId` (the applied waiver's id, or null). */
export type FindingNode = FindingDto & { waiverId: string | null };

/** The GraphQL node of a finding with its waiver state applied (see `toFindingDto`). */
export function toFindingNode(f: StoredFinding | WaivedFinding<StoredFinding>): FindingNode {
  const dto = toFindingDto(f);
  return { ...dto, waiverId: dto.waiver ? dto.waiver.id || null : null };
}
