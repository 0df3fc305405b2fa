import { Injectable } from '@nestjs/common';
import { FindingRepository, type StoredFinding } from '@app/store';
import type { ResourceRef } from '@app/domain';
import type { FindingDto, FindingPageDto, FindingResourceDto } from './finding.dto';
import type { ListFindingsQuery } from './findings.schemas';

/** Findings of a scan, filtered and paged. */
@Injectable()
export class FindingsService {
  constructor(private readonly findings: FindingRepository) {}

  /**
   * A page of findings (default scan: the latest succeeded one).
   * @throws StoreError NOT_FOUND when `scanId` names no scan
   */
  async list(query: ListFindingsQuery): Promise<FindingPageDto> {
    const page = await this.findings.list(query);
    return { items: page.items.map(toFindingDto), total: page.total, limit: query.limit, offset: query.offset, scanId: page.scanId };
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

/** The response shape of a stored finding: absent optional fields become null. */
export function toFindingDto(f: StoredFinding): FindingDto {
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
  };
}
