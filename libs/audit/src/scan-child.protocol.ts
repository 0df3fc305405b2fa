/**
 * Messages between the API's scan queue (`QueuedScanLauncher`, parent) and the scan child process
 * (`scan-child.ts`), sent over the `child_process.fork` IPC channel with `serialization: 'advanced'`
 * (structured clone: Dates and nested objects survive; Node.js docs "Advanced serialization").
 *
 * One child runs one scan: the parent sends one `ScanChildRequest`, the child answers with one
 * `ScanChildResult` and exits. Secrets of a live source travel only over this private pipe, never
 * in argv or the environment of the child.
 */
import type { PartialAuditSettings } from '@app/checks';
import type { CoverageEntry, Severity } from '@app/domain';
import type { CompleteScanInput } from '@app/store';
import type { ScanSource } from './scan-runner';

/** What the parent asks the child to do. */
export interface ScanChildRequest {
  kind: 'run';
  /** The scan row the parent created (status `running`). */
  scanId: string;
  source: ScanSource;
  settings?: PartialAuditSettings;
  /**
   * PostgreSQL URL the child stores the scan through (its own pool). Unset: the child only reads
   * and analyses, and the parent stores the `analyzed` result (embedded PGlite, whose socket
   * server accepts one connection and runs in the parent anyway).
   */
  databaseUrl?: string;
}

/** Figures of an ended scan, for the parent's `scan.completed` event (libs/telemetry). */
export interface ScanChildFigures {
  startedAt: Date;
  finishedAt: Date;
  findings: number;
  bySeverity: Record<Severity, number>;
  coverage: CoverageEntry[];
}

/** The child's one answer. */
export type ScanChildResult =
  /** The child stored the scan itself (`databaseUrl` given). */
  | ({ kind: 'stored' } & ScanChildFigures)
  /** The child analysed the fleet; the parent stores `complete` (`databaseUrl` unset). */
  | ({ kind: 'analyzed'; complete: CompleteScanInput } & ScanChildFigures)
  /** The scan failed; `reason` is one line (never a stack trace, never a credential). */
  | { kind: 'failed'; reason: string };
