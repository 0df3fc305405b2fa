import { Inject, Injectable } from '@nestjs/common';
import { ScanRepository, ScanTargetRepository, type Principal, type ScanTargetProgress, type StoredScan, type StoredScanListItem } from '@app/store';
import { SCAN_LAUNCHER } from '../api.constants';
import { ApiError } from '../common/api.exception';
import type { ScanLauncher } from '../scan-launcher.port';
import type { LaunchScanResponseDto, ScanDto, ScanListItemDto, ScanPageDto } from './scan.dto';
import type { LaunchScanBody, ListScansQuery } from './scans.schemas';
import { toResourceDto } from '../findings/findings.service';

/** Scans: list, read one, launch (through the ScanLauncher port). */
@Injectable()
export class ScansService {
  constructor(
    private readonly scans: ScanRepository,
    private readonly targets: ScanTargetRepository,
    @Inject(SCAN_LAUNCHER) private readonly launcher: ScanLauncher,
  ) {}

  /** A page of scans, newest first; summaries count only the principal's accounts. */
  async list(query: ListScansQuery, principal: Principal): Promise<ScanPageDto> {
    const page = await this.scans.list(query, principal);
    return { items: page.items.map(toScanListItemDto), total: page.total, limit: query.limit, offset: query.offset };
  }

  /**
   * One scan with coverage, as the principal sees it (its accounts only).
   * @throws ApiError NOT_FOUND when no scan has this id
   */
  async get(id: string, principal: Principal): Promise<ScanDto> {
    const scan = await this.scans.getScoped(id, principal);
    if (!scan) throw new ApiError('NOT_FOUND', `scan ${id} not found`);
    return toScanDto(scan, scan.source === 'distributed' ? await this.targets.progress(scan.id) : undefined);
  }

  /**
   * Start a scan of a configured source.
   * @throws ApiError VALIDATION_FAILED when the launcher lists its sources and this is not one
   */
  async launch(body: LaunchScanBody): Promise<LaunchScanResponseDto> {
    const names = this.launcher.sourceNames?.();
    if (body.source !== undefined && names && !names.includes(body.source)) {
      const message = `unknown scan source "${body.source}"; configured: ${names.join(', ') || 'none'}`;
      throw new ApiError('VALIDATION_FAILED', `Invalid body: body.source: ${message}`, [{ path: 'body.source', message }]);
    }
    const { scanId } = await this.launcher.launch(body.source === undefined ? {} : { source: body.source });
    return { scanId };
  }
}

function toScanListItemDto(s: StoredScanListItem): ScanListItemDto {
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

function toScanDto(s: StoredScan, progress?: ScanTargetProgress): ScanDto {
  return {
    ...toScanListItemDto(s),
    coverage: s.coverage,
    skipped: s.skipped?.map((k) => ({ checkId: k.checkId, resource: toResourceDto(k.resource), reason: k.reason })) ?? null,
    settings: s.settings,
    ...(progress ? { progress } : {}),
  };
}
