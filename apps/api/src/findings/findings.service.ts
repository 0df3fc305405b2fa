import { Injectable } from '@nestjs/common';
import { FindingRepository, Store, type Principal, type StoredFinding } from '@app/store';
import type { ResourceRef, WaivedFinding } from '@app/domain';
import type { FindingDto, FindingPageDto, FindingResourceDto } from './finding.dto';
import type { ListFindingsQuery } from './findings.schemas';

/** Findings of a scan, filtered and paged. */
@Injectable()
export class FindingsService {
  constructor(
    private readonly findings: FindingRepository,
    private readonly store: Store,
  ) {}

  /**
   * A page of findings (default scan: the latest succeeded one), with the waivers in force now applied:
   * each finding shows `status` (open, waived, waiver-expired) and its waiver.
   * Only findings of the principal's accounts are listed and counted (in SQL). Two statements
   * per page: the page itself (FindingRepository.list: scan, rows and, without a cursor, the
   * count) and the waivers in force.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a bad cursor
   */
  async list(query: ListFindingsQuery, principal: Principal): Promise<FindingPageDto> {
    const page = await this.findings.list(query, principal);
    const matcher = await this.store.waiverService.matcher(new Date(), principal);
    return {
      items: page.items.map((f) => toFindingDto(matcher.apply(f))),
      total: page.total,
      limit: query.limit,
      offset: query.offset,
      scanId: page.scanId,
      nextCursor: page.nextCursor,
    };
  }
}

/** The response shape of a resource reference: absent optional fields become null. */
export function toResourceDto(r: ResourceRef): FindingResourceDto {
  return {
    kind: r.kind,
    id: r.id,
    accountId: r.accountId,
    regionId: r.regionId,
    clusterId: r.clusterId ?? null,
    namespace: r.namespace ?? null,
    name: r.name ?? null,
  };
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
