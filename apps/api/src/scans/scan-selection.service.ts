import { Injectable } from '@nestjs/common';
import { Store, StoreError } from '@app/store';

/** Where a request remembers its "latest succeeded scan" (a GraphQL request resolves it once for all its fields). */
export interface LatestScanMemo {
  latestScan?: Promise<string | null>;
  /**
   * Set (by `scanOf`) when one of the request's reads named its scan: its answer is then not kept by the GraphQL
   * answer cache (`namesScan`).
   */
  namedScan?: boolean;
}

/**
 * Whether a read names its scan (a scan id given) rather than reading the latest succeeded scan: the one rule of
 * the answer caches (REST FleetService / QuotasService through GenerationAnswerCache, the GraphQL answer cache
 * through LatestScanMemo.namedScan), which keep only answers of the latest succeeded scan. Those are kept under the
 * findings generation, which the scan rows bump (a scan completed, failed or deleted, hence any change of the latest
 * succeeded scan); a named scan may still be running, and a sharded scan's shards add graph, finding and quota rows
 * to it without such a bump, so its answers are read every time.
 * @param scanId the scan id the read was given; absent, null or empty means the latest succeeded scan (note: when
 *   this returns false, `scanId` may still be the empty string)
 */
export function namesScan(scanId: string | null | undefined): scanId is string {
  return !!scanId;
}

/**
 * Default-scan resolution of every read (REST and GraphQL): the scan a read names, or the latest succeeded one.
 * The latest comes from the store's ReadGenerations read (one small statement that concurrent requests share;
 * each request still gets a read sent after it started, so a scan completed before the request is always seen).
 */
@Injectable()
export class ScanSelectionService {
  constructor(private readonly store: Store) {}

  /**
   * The scan to read.
   * @param scanId the scan the request names; absent (or empty) means the latest succeeded scan
   * @param verify `true` (REST): a named scan must exist; `false` (GraphQL graph fields): a named scan is used as
   *   given, and a scan that does not exist (or has no stored graph) simply has no rows
   * @param memo a per-request memo: the latest scan is then resolved once per request, and a named scan recorded
   *   (`namedScan`)
   * @returns the scan id, or null when `scanId` is absent and no scan succeeded yet
   * @throws StoreError NOT_FOUND when `verify` and `scanId` names no scan
   */
  async scanOf(scanId: string | null | undefined, verify: boolean, memo?: LatestScanMemo): Promise<string | null> {
    if (namesScan(scanId)) {
      if (memo) memo.namedScan = true;
      if (verify && !(await this.store.scans.get(scanId))) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
      return scanId;
    }
    if (!memo) return this.latest();
    memo.latestScan ??= this.latest();
    return memo.latestScan;
  }

  private latest(): Promise<string | null> {
    return this.store.generations.current().then((g) => g.latestSucceededScanId);
  }
}
