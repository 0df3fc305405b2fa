import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { encodeCursor, ScanRepository, ScanTargetRepository, scopeIncludes, Store, type GraphPage, type GraphPageArgs, type Principal, type ScanDiffQuery } from '@app/store';
import { SCAN_LAUNCHER, SCAN_LAUNCHES_PER_MINUTE } from '../api.constants';
import { ApiError } from '../common/api.exception';
import type { ScanLauncher } from '../scan-launcher.port';
import { toResourceDto } from '../findings/finding.mapper';
import type { ScanDiffItemDto, ScanDiffPageDto } from './scan-diff.dto';
import type { ScanDto, ScanListItemDto, ScanPageDto } from './scan.dto';
import { toScanDto, toScanListItemDto } from './scan.mapper';
import type { LaunchScanBody, ListScansQuery, ScanDiffQueryParams } from './scans.schemas';

/** The window of the per-token launch count (`SCAN_LAUNCHES_PER_MINUTE`), milliseconds. */
export const SCAN_LAUNCH_WINDOW_MS = 60_000;

/** The answer of a launch: the scan's id, and whether it was already running (the request joined it). */
export interface LaunchOutcome {
  scanId: string;
  joined: boolean;
}

/** Scans: list, read one, compare two, launch (through the ScanLauncher port); for REST `/v1/scans` and GraphQL. */
@Injectable()
export class ScansService {
  /** Launches per token (or `bootstrap`) in the current window; bounded, dropped when the window ends. */
  private readonly launches = new LRUCache<string, { count: number; windowStart: number }>({ max: 10_000, ttl: SCAN_LAUNCH_WINDOW_MS });
  /** Launches in progress per source on this process: a second one waits and then joins the first's scan. */
  private readonly launching = new Map<string, Promise<unknown>>();

  constructor(
    private readonly scans: ScanRepository,
    private readonly targets: ScanTargetRepository,
    @Inject(SCAN_LAUNCHER) private readonly launcher: ScanLauncher,
    private readonly store: Store,
    @Inject(SCAN_LAUNCHES_PER_MINUTE) private readonly launchesPerWindow: number,
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
    return toScanDto(scan, scan.source === 'distributed' ? await this.targets.progress(scan.id, principal) : undefined);
  }

  /**
   * Start a scan of a configured source, or join the one of that source already running.
   *
   * Rules, in order: the role is checked by the caller (operator); an unknown source is refused (400); a token scoped
   * to some accounts may launch only a source whose accounts it all covers (403 naming the others); each token may
   * ask for SCAN_LAUNCHES_PER_MINUTE launches per minute (429 RATE_LIMITED with `Retry-After`); one scan per source
   * runs at a time: while a scan of the source (its fleet name) is `running`, the request joins it and gets its id
   * (`joined: true`). Launches of one source on this process are serialised, so concurrent requests join the first.
   * @throws ApiError VALIDATION_FAILED, FORBIDDEN, RATE_LIMITED; the launcher's errors (ScanQueueFullError 429,
   *   ScanQueueUnavailableError 503, ...)
   */
  async launch(body: LaunchScanBody, principal: Principal): Promise<LaunchOutcome> {
    const names = this.launcher.sourceNames?.();
    if (body.source !== undefined && names && !names.includes(body.source)) {
      const message = `unknown scan source "${body.source}"; configured: ${names.join(', ') || 'none'}`;
      throw new ApiError('VALIDATION_FAILED', `Invalid body: body.source: ${message}`, [{ path: 'body.source', message }]);
    }
    const source = body.source ?? names?.[0];
    this.assertScopeCovers(source, principal);
    this.countLaunch(principal);
    const key = source ?? '';
    for (let pending = this.launching.get(key); pending; pending = this.launching.get(key)) await pending.catch(() => undefined);
    const run = this.launchOrJoin(source, body.source);
    this.launching.set(key, run);
    try {
      return await run;
    } finally {
      if (this.launching.get(key) === run) this.launching.delete(key);
    }
  }

  /**
   * The running scan of `source` (by its fleet name), or a new one, launched as asked: `requested` undefined leaves
   * the choice of the default source to the launcher.
   */
  private async launchOrJoin(source: string | undefined, requested: string | undefined): Promise<LaunchOutcome> {
    if (source !== undefined) {
      const running = await this.scans.runningOfFleet(source);
      if (running !== null) return { scanId: running, joined: true };
    }
    const { scanId } = await this.launcher.launch(requested === undefined ? {} : { source: requested });
    return { scanId, joined: false };
  }

  /**
   * A token scoped to some accounts must cover every account the source reads; a team-scoped token starts none.
   * @throws ApiError FORBIDDEN naming the accounts outside the scope, or saying they are not known in advance, or
   *   for a team-scoped token
   */
  private assertScopeCovers(source: string | undefined, principal: Principal): void {
    if (principal.teamScope !== undefined)
      throw new ApiError('FORBIDDEN', `a scan reads every cluster of its accounts, other teams' too; a token scoped to teams (${principal.teamScope.join(', ')}) may not start one`);
    if (principal.accountScope.all) return;
    const accounts = this.launcher.sourceAccounts?.(source);
    const name = source === undefined ? 'the default scan source' : `scan source "${source}"`;
    if (accounts === undefined) {
      throw new ApiError('FORBIDDEN', `${name} does not list its accounts before it is read; only a token of every account may start it`);
    }
    const outside = accounts.filter((a) => !scopeIncludes(principal.accountScope, a));
    if (outside.length > 0) {
      throw new ApiError('FORBIDDEN', `${name} reads accounts ${outside.join(', ')}, outside the token's account scope; a scan may be started only by a token covering all its accounts`);
    }
  }

  /**
   * Count a launch against the token's window.
   * @throws ApiError RATE_LIMITED (with the seconds until the window ends) past SCAN_LAUNCHES_PER_MINUTE
   */
  private countLaunch(principal: Principal): void {
    const who = principal.tokenId ?? principal.kind;
    const now = Date.now();
    const w = this.launches.get(who);
    if (!w || now - w.windowStart >= SCAN_LAUNCH_WINDOW_MS) {
      this.launches.set(who, { count: 1, windowStart: now });
      return;
    }
    if (w.count >= this.launchesPerWindow) {
      const seconds = Math.max(1, Math.ceil((w.windowStart + SCAN_LAUNCH_WINDOW_MS - now) / 1000));
      throw new ApiError('RATE_LIMITED', `Too many scan launches from this token (at most ${this.launchesPerWindow} per minute); retry in ${seconds} s`, undefined, seconds);
    }
    w.count += 1;
  }
}
