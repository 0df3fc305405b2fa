/**
 * A scan stored by another process: its store step builds what completing the scan writes (`store.scans.complete`'s
 * input with the fleet graph) and keeps it here, for the process that holds the store. scan-child.ts answers it to the
 * queued launcher's parent when the child has no database of its own (the demo's embedded PostgreSQL serves one
 * connection, in the parent). Passed to `runScan` in place of a store: the scan takes the same steps.
 */
import { buildFleetGraph, type FleetIndex } from '@app/checks';
import type { FleetSnapshot } from '@app/domain';
import type { CompleteScanInput } from '@app/store';
import { completeScanInputOf, type ScanAnalysis } from './analyze-and-store';
import type { ScanRow } from './scan-row';

/** Where the store step of a handed-over scan leaves what completing it writes. */
export class ScanHandOver {
  /** Set by the store step: findings, coverage, skipped results, quota samples, snapshot, summary and fleet graph. */
  complete?: CompleteScanInput;
}

/** The row of a handed-over scan: nothing is written here; the store step fills `to.complete`. */
export function handOverScanRow(to: ScanHandOver, id: string): ScanRow {
  return {
    id,
    store: async (snapshot: FleetSnapshot, analysis: ScanAnalysis, index: FleetIndex | undefined, onStore?: (done: 0 | 1) => void) => {
      onStore?.(0);
      // As storeAnalysis builds them: the stored input first (it assigns the clusters' teams), then the graph.
      const complete = completeScanInputOf(snapshot, analysis);
      to.complete = { ...complete, graph: buildFleetGraph(snapshot, index) };
      onStore?.(1);
    },
    // The process that stores the scan refreshes after it (the queued launcher, after `store.scans.complete`).
    refreshAfterStore: async () => undefined,
    refreshQuotaApplications: async () => undefined,
    fail: async () => undefined,
    close: () => undefined,
  };
}
