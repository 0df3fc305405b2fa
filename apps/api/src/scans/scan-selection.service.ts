import { Injectable } from '@nestjs/common';
import { Store, StoreError } from '@app/store';

/** Where a request remembers its "latest succeeded scan" (a GraphQL request resolves it once for all its fields). */
export interface LatestScanMemo {
  latestScan?: Promise<string | null>;
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
   * @param memo a per-request memo: the latest scan is then resolved once per request
   * @returns the scan id, or null when `scanId` is absent and no scan succeeded yet
   * @throws StoreError NOT_FOUND when `verify` and `scanId` names no scan
   */
  async scanOf(scanId: string | null | undefined, verify: boolean, memo?: LatestScanMemo): Promise<string | null> {
    if (scanId) {
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
