/**
 * Scan lifecycle events, logged the same way by the API (in-process scans) and the worker
 * (distributed scans): one structured line per event with `event` set to
 *
 * - `scan.started`: scanId, fleet, source;
 * - `scan.target_failed` (warn): scanId, accountId, regionId, clusterId, api, errorCode, reason, for
 *   every dataset that could not be read (a coverage gap; credentials never appear in these fields);
 * - `scan.completed`: scanId, fleet, findings, bySeverity, coverage counts, failedTargets, durationMs;
 * - `scan.failed` (error): scanId, reason.
 */
import type { CoverageEntry, Severity } from '@app/domain';

/** Where events go: a pino logger (`info/warn/error(obj, msg)`) or an adapter to Nest's Logger. */
export interface ScanEventSink {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

/** Log `scan.started`. */
export function logScanStarted(sink: ScanEventSink, e: { scanId: string; fleet: string; source: string }): void {
  sink.info({ event: 'scan.started', ...e }, `scan ${e.scanId} of ${e.fleet} started`);
}

/** What `logScanCompleted` reports. */
export interface ScanCompletion {
  scanId: string;
  fleet: string;
  startedAt: Date | string;
  finishedAt?: Date | string;
  findings: number;
  bySeverity: Record<Severity, number>;
  coverage: readonly CoverageEntry[];
}

/** Log one `scan.target_failed` per failed coverage entry, then `scan.completed` with counts and duration. */
export function logScanCompleted(sink: ScanEventSink, c: ScanCompletion): void {
  const failed = c.coverage.filter((x) => x.status === 'failed');
  for (const g of failed)
    sink.warn(
      {
        event: 'scan.target_failed',
        scanId: c.scanId,
        accountId: g.accountId,
        ...(g.regionId ? { regionId: g.regionId } : {}),
        ...(g.clusterId ? { clusterId: g.clusterId } : {}),
        api: g.api,
        errorCode: g.errorCode ?? 'error',
        reason: g.message ?? g.errorCode ?? 'unknown',
      },
      `scan ${c.scanId}: ${g.api} of ${[g.accountId, g.regionId, g.clusterId].filter(Boolean).join('/')} not read: ${g.errorCode ?? 'error'}`,
    );
  const durationMs = Math.max(0, new Date(c.finishedAt ?? Date.now()).getTime() - new Date(c.startedAt).getTime());
  sink.info(
    {
      event: 'scan.completed',
      scanId: c.scanId,
      fleet: c.fleet,
      findings: c.findings,
      bySeverity: c.bySeverity,
      coverage: { ok: c.coverage.filter((x) => x.status === 'ok').length, failed: failed.length, absent: c.coverage.filter((x) => x.status === 'absent').length },
      failedTargets: failed.length,
      durationMs,
    },
    `scan ${c.scanId} of ${c.fleet} completed: ${c.findings} findings, ${failed.length} targets not read, ${durationMs} ms`,
  );
}

/** Log `scan.failed`. */
export function logScanFailed(sink: ScanEventSink, e: { scanId: string; reason: string }): void {
  sink.error({ event: 'scan.failed', ...e }, `scan ${e.scanId} failed: ${e.reason}`);
}

/** A sink over a NestJS `Logger` (routed to pino by nestjs-pino where installed): fields go in the object. */
export function nestScanEventSink(logger: { log(m: unknown): void; warn(m: unknown): void; error(m: unknown): void }): ScanEventSink {
  return {
    info: (fields, msg) => logger.log({ msg, ...fields }),
    warn: (fields, msg) => logger.warn({ msg, ...fields }),
    error: (fields, msg) => logger.error({ msg, ...fields }),
  };
}
