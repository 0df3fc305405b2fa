import { Injectable } from '@nestjs/common';
import { FindingRepository, Store, type FindingPage, type FindingQuery, type GraphPage, type GraphPageArgs, type Principal } from '@app/store';
import type { FindingPageDto } from './finding.dto';
import { toFindingDto, toFindingNode, type FindingNode } from './finding.mapper';
import type { ListFindingsQuery } from './findings.schemas';

/** Filters of a Relay page of findings (GraphQL `findings`): those of `/v1/findings` without the paging. */
export type FindingFilters = Omit<FindingQuery, 'limit' | 'offset' | 'cursor'>;

/** A Relay page of findings with the waivers in force applied, and its lazy count. */
export interface FindingNodePage {
  page: GraphPage<FindingNode>;
  /** Findings matching the filters within the scope (one SQL count, run only when called). */
  count: () => Promise<number>;
}

/** A response body serialised once for a cached page (see `FindingsService.listJson`). */
interface SerialisedPage {
  limit: number | undefined;
  offset: number | undefined;
  json: string;
}

/** Findings of a scan, filtered and paged. */
@Injectable()
export class FindingsService {
  /**
   * JSON bodies of cached pages (FindingRepository.list returns the same page object while the store's generation
   * holds) on which no waiver applies: such a body depends on nothing else. Weak: dropped with the page.
   */
  private readonly serialised = new WeakMap<FindingPage, SerialisedPage>();

  constructor(
    private readonly findings: FindingRepository,
    private readonly store: Store,
  ) {}

  /**
   * A page of findings (default scan: the latest succeeded one), with the waivers in force now applied:
   * each finding shows `status` (open, waived, waiver-expired) and its waiver; returned as the JSON text of a
   * FindingPageDto (the body GET /v1/findings sends). Only findings of the principal's accounts are listed and
   * counted (in SQL).
   *
   * Statements per page: one read of the store's ReadGeneration, then the page itself
   * (FindingRepository.list: scan, rows and, without a cursor, the count) and the scope's unrevoked waivers,
   * each served from the store's in-memory caches while that generation holds (pages of succeeded scans only;
   * keyed by the exact scope). A waiver created, changed or revoked on any replica, or a scan completed,
   * bumps the generation, so the next request reads afresh.
   *
   * A cached page on which no waiver of the scope can apply (none for any of its checks) is serialised once and
   * the text reused: its body depends on nothing else. Pages touched by a waiver are mapped and serialised on
   * every request, so waiver states (and expiry) are always judged now.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a bad cursor
   */
  async listJson(given: ListFindingsQuery, principal: Principal): Promise<string> {
    // `after` is the cursor; `cursor` its deprecated alias (the schema refuses the two differing).
    const { after, cursor, ...rest } = given;
    const paging = after ?? cursor;
    const query = { ...rest, ...(paging !== undefined ? { cursor: paging } : {}) };
    const generation = await this.store.generations.current();
    const [page, matcher] = await Promise.all([
      this.findings.list(query, principal, generation),
      this.store.waiverService.matcher(new Date(), principal, generation),
    ]);
    const waivedChecks = matcher.checkIds();
    const waiverFree = waivedChecks.length === 0 || !page.items.some((f) => waivedChecks.includes(f.checkId));
    if (waiverFree) {
      const done = this.serialised.get(page);
      if (done && done.limit === query.limit && done.offset === query.offset) return done.json;
    }
    const json = JSON.stringify({
      items: page.items.map((f) => toFindingDto(matcher.apply(f))),
      total: page.total,
      limit: query.limit,
      offset: query.offset,
      scanId: page.scanId,
      nextCursor: page.nextCursor,
    } satisfies FindingPageDto);
    if (waiverFree) this.serialised.set(page, { limit: query.limit, offset: query.offset, json });
    return json;
  }

  /**
   * A Relay page of findings (GraphQL `findings`): same filters, order, scope and waiver rules as `listJson`, and
   * the same read-generation cache for the scope's waivers (the store's ReadGeneration is read once per call).
   * @param filters `scanId` defaults to the latest succeeded scan
   * @param args Relay paging, already checked (1..100)
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a bad cursor
   */
  async page(filters: FindingFilters, args: GraphPageArgs, principal: Principal): Promise<FindingNodePage> {
    const generation = await this.store.generations.current();
    const [{ page }, matcher] = await Promise.all([
      this.findings.page(filters, args, principal),
      this.store.waiverService.matcher(new Date(), principal, generation),
    ]);
    return {
      page: { ...page, edges: page.edges.map((e) => ({ cursor: e.cursor, node: toFindingNode(matcher.apply(e.node)) })) },
      count: () => this.findings.count(filters, principal),
    };
  }
}
