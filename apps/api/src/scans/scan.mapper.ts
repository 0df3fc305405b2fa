/** Response shapes of scans: REST ScanListItemDto / ScanDto (`/v1/scans`) and GraphQL `Scan` (the list item shape). */
import type { ScanTargetProgress, StoredScan, StoredScanListItem } from '@app/store';
import { toResourceDto } from '../findings/finding.mapper';
import type { ScanDto, ScanListItemDto } from './scan.dto';

/** A scan as listed (REST list item, GraphQL `Scan`): summary counts over the principal's accounts. */
export function toScanListItemDto(s: StoredScanListItem): ScanListItemDto {
  return {
    id: s.id,
    status: s.status,
    source: s.source,
    fleetName: s.fleetName,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    error: s.error,
    summary: s.summary,
  };
}

/** One scan with coverage, skipped results and settings, plus the progress of a distributed scan when given. */
export function toScanDto(s: StoredScan, progress?: ScanTargetProgress): ScanDto {
  return {
    ...toScanListItemDto(s),
    coverage: s.coverage,
    skipped: s.skipped?.map((k) => ({ checkId: k.checkId, resource: toResourceDto(k.resource), reason: k.reason })) ?? null,
    settings: s.settings,
    ...(progress ? { progress } : {}),
  };
}
