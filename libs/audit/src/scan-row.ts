/**
 * The store side of a scan (`runScan`'s store step and its row): the scan row, its lease while the scan runs, the
 * failure record, the store step itself (`storeAnalysis`), the follow-up of a stored scan (statistics and quota trend
 * fits) and, for a live scan, the refresh of the stored quota applications. Two kinds of row, chosen by the store the
 * caller gave:
 * - a ready `Store`: the row is created (or was, by the caller) before the fleet is read, as `running`, and its lease
 *   kept until the scan ends (`openScanRow`);
 * - a store still starting (`Promise<Store>`, the demo's embedded PostgreSQL): nothing is written until the analysis is
 *   done; the store step then creates the row and completes it (`deferredScanRow`).
 *
 * Loaded by `scan-runner.ts` only when a scan has a store (a dynamic `import()`): this module is what brings libs/store
 * (pg) into a process, and an offline `fleet-audit scan --fleet DIR` has no store.
 */
import type { FleetIndex } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import type { FleetSnapshot } from '@app/domain';
import { startScanHeartbeat, type Store } from '@app/store';
import { storeAnalysis, type ScanAnalysis } from './analyze-and-store';
import { refreshQuotaApplicationsOf } from './quota-request-runner';

/** What the row of a new scan records. */
export interface ScanRowFields {
  source: 'offline' | 'live';
  fleetName: string;
  /** When the fleet was observed (the scan's `startedAt`). */
  startedAt: Date;
}

/** The row of one scan as the scan runner drives it: store the analysis, or fail it; then close. */
export interface ScanRow {
  readonly id: string;
  /**
   * The store step: complete the row with the analysis of `snapshot` (visible at once), progress reported by `onStore`.
   * @throws the store's error (StoreError; the error of a store that did not start)
   */
  store(snapshot: FleetSnapshot, analysis: ScanAnalysis, index: FleetIndex | undefined, onStore?: (done: 0 | 1) => void): Promise<void>;
  /**
   * The step after the store, best effort (never throws): planner statistics and quota trend fits for the stored scan
   * (`store.scans.refreshAfterStore`; readers answer the same without them). Nothing when no scan was stored here.
   */
  refreshAfterStore(): Promise<void>;
  /** A live scan's last step, best effort (never throws): what Quota Center decided on the stored applications. */
  refreshQuotaApplications(config: ScanConfig): Promise<void>;
  /** Record the scan as failed with `reason`, best effort (never throws: the scan's own error is what the caller sees). */
  fail(reason: string): Promise<void>;
  /** Stop the lease (the row's heartbeat). */
  close(): void;
}

/**
 * The row of a scan on a ready store: created now as `running` (unless the caller created it: `id`), its lease renewed
 * until `close` (if this process dies, a reaper in the API or worker fails it: libs/store scan-lease).
 * @throws the store's error when the row cannot be created (nothing else was written)
 */
export async function openScanRow(store: Store, fields: ScanRowFields, id?: string): Promise<ScanRow> {
  const scanId = id ?? (await store.scans.create(fields)).id;
  const stopHeartbeat = startScanHeartbeat(store.scans, scanId);
  return {
    id: scanId,
    store: (snapshot, analysis, index, onStore) => storeStep(store, scanId, snapshot, analysis, index, onStore),
    refreshAfterStore: () => store.scans.refreshAfterStore(),
    refreshQuotaApplications: (config) => refreshQuotaApplicationsOf(store, config).then(() => undefined, () => undefined),
    // Retried while the connection is lost; if it stays lost the lease expires and a reaper fails the row.
    fail: (reason) => store.scans.fail(scanId, reason).then(() => undefined, () => undefined),
    close: stopHeartbeat,
  };
}

/**
 * The row of a scan on a store still starting: nothing is written before the store step, which waits for the store,
 * creates the row (`processingStartedAt`: when the scan started, not when the row was created) and completes it. A
 * scan that fails before its store step is recorded as a failed row once the store is up (best effort); one whose
 * store step fails has its row, if created, failed; a store that never starts records nothing (the store step throws
 * its error, so a caller cannot miss that nothing was stored).
 */
export function deferredScanRow(storeReady: Promise<Store>, fields: ScanRowFields & { processingStartedAt: Date }, id: string): ScanRow {
  // Handled where awaited; this keeps an early rejection from being reported as unhandled.
  storeReady.catch(() => undefined);
  let storeStepStarted = false;
  let created: Store | undefined;
  let stopHeartbeat = (): void => undefined;
  return {
    id,
    async store(snapshot, analysis, index, onStore) {
      storeStepStarted = true;
      const store = await storeReady;
      // The snapshot's name: the row of a live scan is created once the fleet was read.
      await store.scans.create({ ...fields, fleetName: snapshot.name, id });
      created = store;
      stopHeartbeat = startScanHeartbeat(store.scans, id);
      await storeStep(store, id, snapshot, analysis, index, onStore);
    },
    refreshAfterStore: async () => {
      await created?.scans.refreshAfterStore();
    },
    refreshQuotaApplications: async (config) => {
      if (created) await refreshQuotaApplicationsOf(created, config).catch(() => undefined);
    },
    async fail(reason) {
      if (created) return created.scans.fail(id, reason).then(() => undefined, () => undefined);
      // The store step started and could not create the row (the store did not start, or refused it): nothing to fail.
      if (storeStepStarted) return;
      const store = await storeReady.catch(() => undefined);
      await store?.scans
        .create({ ...fields, id })
        .then(() => store.scans.fail(id, reason))
        .catch(() => undefined);
    },
    close: () => stopHeartbeat(),
  };
}

/** The store step (`storeAnalysis`), with its progress reported around it. */
async function storeStep(
  store: Store,
  scanId: string,
  snapshot: FleetSnapshot,
  analysis: ScanAnalysis,
  index: FleetIndex | undefined,
  onStore: ((done: 0 | 1) => void) | undefined,
): Promise<void> {
  onStore?.(0);
  await storeAnalysis(store, scanId, snapshot, analysis, index ? { index } : {});
  onStore?.(1);
}
