/**
 * The scan child process of the API's in-process scan queue (`QueuedScanLauncher`): forked once per scan from the built file
 * (`dist/apps/cli/libs/audit/src/scan-child.js`), it reads the fleet, analyses it and (with a
 * database URL) stores it through its own connection pool, so the API process only waits on an
 * IPC message while the CPU-heavy work runs here.
 *
 * Protocol (scan-child.protocol.ts): one `ScanChildRequest` in, one `ScanChildResult` out, exit.
 * Failures are answered as `{kind: 'failed', reason}` with one line (never a stack trace). The
 * child exits when the parent goes away (IPC `disconnect`), so a SIGKILLed API leaves no scan
 * process behind; the row is then failed by a reaper (libs/store scan-lease).
 */
import { Store } from '@app/store';
import type { ScanChildFigures, ScanChildRequest, ScanChildResult } from './scan-child.protocol';
import { ScanHandOver } from './scan-hand-over';
import { oneLineReason, runScan, type ScanOutcome } from './scan-runner';

/**
 * Run one request and return the answer (never throws: failures become `failed`): `runScan` through the child's own
 * pool (`databaseUrl`), or handed over to the parent, which stores what completing the scan writes (the same steps).
 * @param req the scan to run; `databaseUrl` decides who stores (see ScanChildRequest)
 */
export async function runScanChildRequest(req: ScanChildRequest): Promise<ScanChildResult> {
  try {
    // A small pool: one connection for the heartbeat and one for the completing transaction.
    const store = req.databaseUrl !== undefined ? await Store.open({ connectionString: req.databaseUrl, poolMax: 2, onIdleError: () => undefined }) : undefined;
    const handOver = new ScanHandOver();
    try {
      const o = await runScan({ source: req.source, scanId: req.scanId, ...(req.settings ? { settings: req.settings } : {}) }, store ?? handOver);
      if (store) return { kind: 'stored', ...figuresOf(o) };
      // The graph too: what the API serves on /v1/clusters, /v1/load-balancers/{id} and GraphQL for this scan.
      return { kind: 'analyzed', complete: handOver.complete!, ...figuresOf(o) };
    } finally {
      await store?.close().catch(() => undefined); // close path
    }
  } catch (e) {
    return { kind: 'failed', reason: oneLineReason(e) };
  }
}

/** The figures of a scan's outcome for the parent's `scan.completed` event. */
function figuresOf(o: ScanOutcome): ScanChildFigures {
  return {
    startedAt: new Date(o.scan.startedAt),
    finishedAt: new Date(o.scan.finishedAt),
    findings: o.scan.summary.findings,
    bySeverity: o.scan.summary.bySeverity,
    coverage: o.scan.coverage,
  };
}

/** Serve one request from the parent over IPC, answer, and exit. */
function serveParent(): void {
  // The parent died or closed the channel: nobody would read the answer.
  process.once('disconnect', () => process.exit(0));
  // Ctrl+C reaches the whole process group; the parent decides when this scan stops (close()).
  process.on('SIGINT', () => undefined);
  process.once('message', (msg: ScanChildRequest) => {
    void runScanChildRequest(msg).then((result) => {
      process.send?.(result, () => process.exit(0));
    });
  });
}

// Only as a forked child (an IPC channel exists); importing this module does nothing.
if (require.main === module && process.send) serveParent();
