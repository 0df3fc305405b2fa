import { Injectable } from '@nestjs/common';
import { FindingRepository, type StoredFinding } from '@app/store';
import type { FindingDto, FindingPageDto } from './finding.dto';
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

/** The response shape of a stored finding: absent optional fields become null. */
export function toFindingDto(f: StoredFinding): FindingDto {
  return {
    checkId: f.checkId,
    severity: f.severity,
    resource: {
      kind: f.resource.kind,
      id: f.resource.id,
      accountId: f.resource.accountId,
      regionId: f.resource.regionId,
      clusterId: f.resource.clusterId ?? null,
      namespace: f.resource.namespace ?? null,
      name: f.resource.name ?? null,
    },
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
