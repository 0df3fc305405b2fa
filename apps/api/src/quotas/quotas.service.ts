import { Injectable } from '@nestjs/common';
import type { QuotaUsageSample } from '@app/domain';
import { Store, type GraphPageArgs, type Principal } from '@app/store';
import { GenerationAnswerCache } from '../common/generation-answer-cache.util';
import { cursorPage, type Listing } from '../common/listing.util';
import { namesScan, ScanSelectionService } from '../scans/scan-selection.service';
import type { QuotaPageDto } from './quota.dto';
import { toQuotaDto } from './quota.mapper';
import type { ListQuotasQuery } from './quotas.schemas';

/** Filters of the quota listing (undefined: not filtered); `minRatio` a fraction (0.8 = 80 %). */
export interface QuotaFilter {
  checkId?: string;
  accountId?: string;
  regionId?: string;
  clusterId?: string;
  resourceKind?: string;
  resourceId?: string;
  minRatio?: number;
}

/**
 * Quota usage per check and resource of a scan (table `quota_usage`, written with the scan's findings): used /
 * limit / ratio in key order (check, account, region, resource kind, resource id), for REST `/v1/quotas` and
 * GraphQL `quotas`, through FleetGraphRepository.quotasPage / countQuotas, so both return the same numbers. Only
 * samples of the principal's accounts are listed and counted, in SQL.
 */
@Injectable()
export class QuotasService {
  /** Whole `GET /v1/quotas` answers of the latest succeeded scan under the findings generation (GenerationAnswerCache). */
  private readonly answers: GenerationAnswerCache;

  constructor(
    private readonly store: Store,
    private readonly scans: ScanSelectionService,
  ) {
    this.answers = new GenerationAnswerCache(store.generations);
  }

  /** The quota samples of a scan, filtered, in key order. */
  quotas(scanId: string, principal: Principal, args: GraphPageArgs, filter: QuotaFilter): Listing<QuotaUsageSample> {
    return { page: this.store.graph.quotasPage(scanId, principal, args, filter), count: () => this.store.graph.countQuotas(scanId, principal, filter) };
  }

  /**
   * `GET /v1/quotas`: a keyset page of a scan's samples (default: the latest succeeded) and their total.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for a malformed cursor
   */
  async list(q: ListQuotasQuery, principal: Principal): Promise<QuotaPageDto> {
    const scanId = await this.scans.scanOf(q.scanId, true);
    const filter = { checkId: q.checkId, accountId: q.accountId, regionId: q.regionId, clusterId: q.clusterId, resourceKind: q.resourceKind, resourceId: q.resourceId, minRatio: q.minRatio };
    return cursorPage(scanId, q.limit, q.after, (s, args) => this.quotas(s, principal, args, filter), toQuotaDto);
  }

  /**
   * `list` as the JSON text GET /v1/quotas sends: of the latest succeeded scan (no `scanId`), kept per findings
   * generation (a scan's samples are written when it completes and removed only with it, each bumping that
   * generation); of a named scan, read every time (`namesScan`: a sharded scan's shards add samples
   * while it runs).
   * @throws as `list`
   */
  async listJson(q: ListQuotasQuery, principal: Principal): Promise<string> {
    if (namesScan(q.scanId)) return JSON.stringify(await this.list(q, principal));
    return this.answers.answer('quotas', [q], principal, () => this.list(q, principal));
  }
}
