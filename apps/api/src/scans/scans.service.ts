import { Inject, Injectable } from '@nestjs/common';
import { encodeCursor, ScanRepository, ScanTargetRepository, Store, type GraphPage, type GraphPageArgs, type Principal, type ScanDiffQuery } from '@app/store';
import { SCAN_LAUNCHER } from '../api.constants';
import { ApiError } from '../common/api.exception';
import type { ScanLauncher } from '../scan-launcher.port';
import { toResourceDto } from '../findings/finding.mapper';
import type { ScanDiffItemDto, ScanDiffPageDto } from './scan-diff.dto';
import type { LaunchScanResponseDto, ScanDto, ScanListItemDto, ScanPageDto } from './scan.dto';
import { toScanDto, toScanListItemDto } from './scan.mapper';
import type { LaunchScanBody, ListScansQuery, ScanDiffQueryParams } from './scans.schemas';

/** Scans: list, read one, compare two, launch (through the ScanLauncher port); for REST `/v1/scans` and GraphQL. */
@Injectable()
export class ScansService {
  constructor(
    private readonly scans: ScanRepository,
    private readonly targets: ScanTargetRepository,
    @Inject(SCAN_LAUNCHER) private readonly launcher: ScanLauncher,
    private readonly store: Store,
  ) {}

  /** A Relay page of scans, newest first (GraphQL `scans`), and the lazy count of all scans. */
  async page(args: GraphPageArgs, principal: Principal): Promise<{ page: GraphPage<ScanListItemDto>; count: () => Promise<number> }> {
    const page = await this.scans.page(args, principal);
    return { page: { ...page, edges: page.edges.map((e) => ({ cursor: e.cursor, node: toScanListItemDto(e.node) })) }, count: () => this.scans.count() };
  }

  /** One scan as the principal sees it as listed (GraphQL `scan`), or null. */
  async one(id: string, principal: Principal): Promise<ScanListItemDto | null> {
    const s = await this.scans.getScoped(id, principal);
    return s ? toScanListItemDto(s) : null;
  }

  /**
   * How scan `scanId` differs from `againstScanId` by finding fingerprint (REST `/v1/scans/{id}/diff`, GraphQL
   * `scanDiff`): counts over the principal's accounts and the filters, and one page of items in fingerprint order.
   * @throws StoreError NOT_FOUND when either scan does not exist; CONFLICT when either has not succeeded;
   *   INVALID_ARGUMENT for scans of different fleets, a bad limit or cursor
   */
  async diff(query: ScanDiffQuery, principal: Principal): Promise<ScanDiffPageDto> {
    const page = await this.store.scanDiffs.diff(query, principal);
    const items: ScanDiffItemDto[] = page.items.map((i) => ({ ...i, resource: toResourceDto(i.resource) }));
    return { scanId: query.scanId, againstScanId: query.againstScanId, counts: page.counts, items, nextCursor: page.nextCursor };
  }

  /**
   * `GET /v1/scans/{id}/diff`: `diff` of scan `scanId` against `q.against`, by default against the previous succeeded
   * scan of the same fleet (`defaultBaseline`).
   * @throws ApiError NOT_FOUND as `defaultBaseline`; StoreError as `diff`
   */
  async diffAgainst(scanId: string, q: ScanDiffQueryParams, principal: Principal): Promise<ScanDiffPageDto> {
    const { against, ...rest } = q;
    return this.diff({ ...rest, scanId, againstScanId: against ?? (await this.defaultBaseline(scanId)) }, principal);
  }

  /**
   * The baseline of `GET /v1/scans/{id}/diff` without `against`: the previous succeeded scan of the same fleet
   * (ScanRepository.previousSucceededOfFleet).
   * @throws ApiError NOT_FOUND when no scan has this id, or no earlier succeeded scan of its fleet exists (naming both)
   */
  async defaultBaseline(scanId: string): Promise<string> {
    const found = await this.scans.previousSucceededOfFleet(scanId);
    if (!found) throw new ApiError('NOT_FOUND', `scan ${scanId} not found`);
    if (found.previous === null) {
      const fleet = found.fleetName === null ? 'without a fleet name' : `of fleet "${found.fleetName}"`;
      throw new ApiError('NOT_FOUND', `scan ${scanId} has no earlier succeeded scan ${fleet} to diff against: give against=<scan id>`);
    }
    return found.previous;
  }

  /**
   * A page of scans, newest first; summaries count only the principal's accounts. Keyset paging by `after` (start
   * time and id: scans stored while paging never shift a page); the deprecated `offset` pages as before.
   * @throws StoreError INVALID_ARGUMENT for a malformed cursor
   */
  async list(query: ListScansQuery, principal: Principal): Promise<ScanPageDto> {
    if (query.offset !== undefined) {
      const page = await this.scans.list({ limit: query.limit, offset: query.offset }, principal);
      const more = query.offset + page.items.length < page.total;
      const last = page.items.at(-1);
      return {
        items: page.items.map(toScanListItemDto),
        total: page.total,
        limit: query.limit,
        nextCursor: more && last ? encodeCursor([last.startedAt, last.id]) : null,
        offset: query.offset,
      };
    }
    const [page, total] = await Promise.all([this.scans.page({ first: query.limit, ...(query.after !== undefined ? { after: query.after } : {}) }, principal), this.scans.count()]);
    return {
      items: page.edges.map((e) => toScanListItemDto(e.node)),
      total,
      limit: query.limit,
      nextCursor: page.hasNextPage ? (page.edges.at(-1)?.cursor ?? null) : null,
      offset: 0,
    };
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
