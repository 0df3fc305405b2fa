/**
 * The `queued` adapter of the launch module (scan-launch.ts), the API's scan queue for every source the workers do
 * not scan: `POST /v1/scans` creates the scan row and answers 202 at once; scans run one at a time, in
 * launch order, each in its own child process (`scan-child.ts`, `child_process.fork` of the built
 * file), so reading and analysing a 100-cluster fleet never blocks the API's requests. At most
 * `queueDepth` scans wait behind the running one; past that, `launch` throws `ScanQueueFullError`
 * (the API answers 429 with `Retry-After`). With Redis configured the launch module sends scan configs to the
 * BullMQ launcher (libs/queue) instead.
 *
 * No scan is left `running`: this process renews the heartbeat of every scan it
 * holds (waiting or running) while it is alive; a scan whose child fails ends `failed` with the
 * child's one-line reason, a child that dies (crash, OOM, SIGKILL) or overruns `scanTimeoutMs`
 * ends it `failed` with an `interrupted:` reason, `close()` ends waiting scans and the running
 * one as `interrupted`, and if this process itself dies the reapers (libs/store scan-lease) fail
 * the rows once the lease expires. The store's state machine keeps data consistent: a scan is
 * completed or failed once (`CONFLICT` otherwise), in one transaction.
 *
 * Security: callers pick one of the configured sources by name, never a path; the source (which may
 * hold inline credentials) and the database URL reach the child over its private IPC pipe only.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PartialAuditSettings } from '@app/checks';
import { startScanHeartbeat, StoreError, type Store } from '@app/store';
import { logScanCompleted, logScanFailed, logScanStarted, type ScanEventSink } from '@app/telemetry';
import { ScanFailedError } from './analyze-and-store';
import type { ScanChildRequest, ScanChildResult } from './scan-child.protocol';
import type { ScanSource } from './scan-runner';
import { findScanSource, fleetNameOf, pickScanSource, sourceAccountsOf, type LaunchRequest, type NamedScanSource } from './scan-source';
import { fleetAuditErrorKind } from '@app/errors';

/** Default number of scans that may wait behind the running one (`SCAN_QUEUE_DEPTH`). */
export const DEFAULT_SCAN_QUEUE_DEPTH = 4;

/** Default longest run of one scan child before it is killed and the scan failed: one hour. */
export const DEFAULT_SCAN_TIMEOUT_MS = 60 * 60_000;

/** Default wait of `close()` for the running scan before it is killed: 10 s (inside Kubernetes' 30 s grace). */
export const DEFAULT_SCAN_CLOSE_GRACE_MS = 10_000;

/** `Retry-After` of a refusal before any scan has ended here, seconds. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** Thrown by `launch` when `queueDepth` scans already wait; the API answers 429. */
export class ScanQueueFullError extends fleetAuditErrorKind('ScanQueueFullError', 'SCAN_QUEUE_FULL', false) {
  // transient: a slot frees when a scan ends: retry after `retryAfterSeconds`.
  /**
   * @param message one line for the client
   * @param retryAfterSeconds when a slot is likely free: the last scan's duration, 1 to 300 s
   */
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Thrown by `launch` after `close()` began (the API is shutting down); the API answers 503. */
export class ScanQueueClosedError extends fleetAuditErrorKind('ScanQueueClosedError', 'SCAN_QUEUE_CLOSED', false) {
  // transient: this process is shutting down; another (or the restarted) one accepts scans.
}

/** Options of {@link QueuedScanLauncher}. */
export interface QueuedScanLauncherOptions {
  /** Where scan rows are created (and, without `databaseUrl`, where results are stored). */
  store: Store;
  /** Named sources a request may pick (first = default). */
  sources: readonly NamedScanSource[];
  /** Audit settings of every scan. */
  settings?: PartialAuditSettings;
  /** Scan lifecycle events (`scan.started`, `scan.completed`, `scan.failed`). */
  events?: ScanEventSink;
  /** Called with a `ScanFailedError` for every scan that ended failed (stderr line of `serve`). */
  onError?: (e: unknown) => void;
  /** Scans that may wait behind the running one (>= 0); default DEFAULT_SCAN_QUEUE_DEPTH. */
  queueDepth?: number;
  /**
   * PostgreSQL URL the child stores through (the same database as `store`). Unset: the child
   * analyses and this process stores the result (embedded PGlite: one connection, in this process).
   */
  databaseUrl?: string;
  /** The built child entry; default `scan-child.js` next to this file (see `defaultScanChildEntry`). */
  childEntry?: string;
  /** Node.js flags of the child (default none, e.g. `['--max-old-space-size=4096']`). */
  childExecArgv?: string[];
  /** Longest run of one scan, milliseconds (default DEFAULT_SCAN_TIMEOUT_MS). */
  scanTimeoutMs?: number;
  /** Heartbeat interval of held scans, milliseconds (default libs/store SCAN_HEARTBEAT_MS). */
  heartbeatMs?: number;
}

/** One scan held by the queue. */
interface HeldScan {
  id: string;
  fleetName: string;
  source: ScanSource;
  stopHeartbeat: () => void;
}

/** The running scan. */
interface RunningScan {
  scan: HeldScan;
  child?: ChildProcess;
  /** Why the child was stopped by this process (timeout, shutdown), if it was. */
  stopReason?: string;
  /** Settles once the row is ended. */
  ended: Promise<void>;
}

/**
 * The built `scan-child.js`. Next to this module when it runs compiled (`dist/apps/cli/...`); when
 * it runs from TypeScript source (vitest), the build output of `nest build cli` in the repository.
 */
export function defaultScanChildEntry(): string {
  if (__filename.endsWith('.js')) return join(__dirname, 'scan-child.js');
  return join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'libs', 'audit', 'src', 'scan-child.js');
}

/** Bounded FIFO of scans, run one at a time in child processes. */
export class QueuedScanLauncher {
  private readonly waiting: HeldScan[] = [];
  private running: RunningScan | undefined;
  /** Launches between the depth check and the row's creation (slots already promised). */
  private reserved = 0;
  private closing = false;
  private lastDurationMs: number | undefined;
  private readonly queueDepth: number;
  private readonly childEntry: string;

  /** @throws RangeError when `queueDepth` is negative or not an integer */
  constructor(private readonly opts: QueuedScanLauncherOptions) {
    this.queueDepth = opts.queueDepth ?? DEFAULT_SCAN_QUEUE_DEPTH;
    if (!Number.isInteger(this.queueDepth) || this.queueDepth < 0) throw new RangeError(`queue depth must be an integer >= 0, got ${this.queueDepth}`);
    this.childEntry = opts.childEntry ?? defaultScanChildEntry();
  }

  /** Names of the sources a request may pick. */
  sourceNames(): string[] {
    return this.opts.sources.map((s) => s.name);
  }

  /**
   * The accounts a source reads, for the API's scope check: a scan config's accounts, or the account directories of
   * a fleet directory (`accounts/<uid>`).
   * @param source a source name; default the first
   * @returns the account ids, or undefined for an unknown source or a fleet directory without `accounts/` (a
   *   generated fleet: its accounts are known only once it is built)
   */
  sourceAccounts(source?: string): string[] | undefined {
    const chosen = findScanSource(this.opts.sources, source);
    return chosen ? sourceAccountsOf(chosen.source) : undefined;
  }

  /** The running scan (id and child pid) and the ids waiting, in order (operations, tests). */
  status(): { running?: { scanId: string; pid?: number }; waiting: string[] } {
    const r = this.running;
    return {
      ...(r ? { running: { scanId: r.scan.id, ...(r.child?.pid !== undefined ? { pid: r.child.pid } : {}) } } : {}),
      waiting: this.waiting.map((s) => s.id),
    };
  }

  /**
   * Create the scan row (status `running`) and queue the scan; resolves at once, before it runs.
   * @returns the new scan's id (poll `GET /v1/scans/{id}`)
   * @throws UnknownScanSourceError when `request.source` is not configured; ScanQueueFullError when
   *   `queueDepth` scans already wait (no row is created); ScanQueueClosedError after `close()`;
   *   the store's error when the row cannot be created
   */
  async launch(request: LaunchRequest): Promise<{ scanId: string }> {
    const chosen = pickScanSource(this.opts.sources, request.source);
    if (this.closing) throw new ScanQueueClosedError('the API is shutting down and starts no new scans; retry on another instance');
    const held = (this.running ? 1 : 0) + this.waiting.length + this.reserved;
    if (held >= 1 + this.queueDepth) {
      throw new ScanQueueFullError(
        `scan queue full: 1 scan running and ${this.queueDepth} waiting (SCAN_QUEUE_DEPTH=${this.queueDepth}); retry later`,
        this.retryAfterSeconds(),
      );
    }
    this.reserved += 1;
    let id: string;
    const src = chosen.source;
    const fleetName = fleetNameOf(chosen);
    try {
      id = (await this.opts.store.scans.create({ source: src.kind, fleetName, startedAt: new Date() })).id;
    } finally {
      this.reserved -= 1;
    }
    const scan: HeldScan = {
      id,
      fleetName,
      source: src,
      stopHeartbeat: startScanHeartbeat(this.opts.store.scans, id, this.opts.heartbeatMs !== undefined ? { intervalMs: this.opts.heartbeatMs } : {}),
    };
    if (this.closing) {
      await this.end(scan, 'interrupted: the API shut down before this scan started');
      throw new ScanQueueClosedError('the API is shutting down and starts no new scans; retry on another instance');
    }
    this.waiting.push(scan);
    this.pump();
    return { scanId: id };
  }

  /**
   * Stop: every waiting scan ends `failed` (`interrupted: the API shut down before this scan
   * started`); the running one gets `graceMs` to finish, then its child is killed and it ends
   * `interrupted: the API shut down while this scan ran`. Later launches throw ScanQueueClosedError.
   * Resolves once every row this queue held is ended.
   */
  async close(graceMs = DEFAULT_SCAN_CLOSE_GRACE_MS): Promise<void> {
    this.closing = true;
    const waiting = this.waiting.splice(0);
    await Promise.all(waiting.map((s) => this.end(s, 'interrupted: the API shut down before this scan started')));
    const r = this.running;
    if (!r) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      r.ended.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      r.stopReason = 'interrupted: the API shut down while this scan ran';
      r.child?.kill('SIGKILL');
      await r.ended;
    }
  }

  /** Start the next waiting scan when none runs. */
  private pump(): void {
    if (this.running || this.closing) return;
    const next = this.waiting.shift();
    if (!next) return;
    const r: RunningScan = { scan: next, ended: Promise.resolve() };
    this.running = r;
    r.ended = this.run(r)
      // `run` ends the row itself; anything it still throws (an event sink failing) must not stop the queue.
      .catch((e: unknown) => {
        const reason = e instanceof Error ? e.message : String(e);
        try {
          this.opts.events?.error({ event: 'scan.launcher_error', scanId: next.id, reason }, `scan ${next.id}: ${reason}`);
        } catch {
          // The event sink itself failed: nowhere left to report; the queue goes on.
        }
      })
      .finally(() => {
        this.running = undefined;
        this.pump();
      });
  }

  /** Run one scan in a child and end its row whatever happens. */
  private async run(r: RunningScan): Promise<void> {
    const { scan } = r;
    const t0 = Date.now();
    if (this.opts.events) logScanStarted(this.opts.events, { scanId: scan.id, fleet: scan.fleetName, source: scan.source.kind });
    let result: ScanChildResult;
    try {
      result = await this.runChild(r);
    } catch (e) {
      result = { kind: 'failed', reason: `the scan process could not run: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (result.kind === 'analyzed') {
      try {
        await this.opts.store.scans.complete(scan.id, result.complete);
      } catch (e) {
        result = { kind: 'failed', reason: e instanceof Error ? e.message.split('\n')[0] : String(e) };
      }
    }
    this.lastDurationMs = Date.now() - t0;
    if (result.kind === 'failed') {
      await this.end(scan, result.reason);
      return;
    }
    scan.stopHeartbeat();
    if (this.opts.events)
      logScanCompleted(this.opts.events, {
        scanId: scan.id,
        fleet: scan.fleetName,
        startedAt: result.startedAt,
        finishedAt: result.finishedAt,
        findings: result.findings,
        bySeverity: result.bySeverity,
        coverage: result.coverage,
      });
    // The step after a store made here (the child's own store refreshed after its): statistics and quota trend fits,
    // best effort, after the event so nothing waits on it to learn the scan is stored.
    if (result.kind === 'analyzed') await this.opts.store.scans.refreshAfterStore();
  }

  /**
   * Fork the child, send it the scan and wait for its answer and exit. A child that exits without
   * answering (crash, OOM, killed) or overruns the timeout yields a `failed` answer.
   */
  private runChild(r: RunningScan): Promise<ScanChildResult> {
    const { scan } = r;
    if (!existsSync(this.childEntry)) {
      return Promise.resolve({ kind: 'failed', reason: `the scan process entry ${this.childEntry} does not exist; build with \`nest build cli\`` });
    }
    return new Promise<ScanChildResult>((resolve) => {
      let answer: ScanChildResult | undefined;
      const child = fork(this.childEntry, [], {
        serialization: 'advanced',
        execArgv: this.opts.childExecArgv ?? [],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      r.child = child;
      const timeoutMs = this.opts.scanTimeoutMs ?? DEFAULT_SCAN_TIMEOUT_MS;
      const timer = setTimeout(() => {
        r.stopReason = `interrupted: the scan ran longer than ${Math.round(timeoutMs / 1000)} s and was stopped`;
        child.kill('SIGKILL');
      }, timeoutMs);
      timer.unref();
      child.on('message', (m: ScanChildResult) => {
        answer = m;
      });
      child.once('error', (e) => {
        // Spawn failure or a failed send; 'exit' may not follow a spawn failure.
        if (child.pid === undefined) {
          clearTimeout(timer);
          resolve({ kind: 'failed', reason: `the scan process could not start: ${e.message}` });
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (r.stopReason !== undefined && answer === undefined) resolve({ kind: 'failed', reason: r.stopReason });
        else if (answer) resolve(answer);
        else resolve({ kind: 'failed', reason: `interrupted: the scan process stopped (${signal ? `signal ${signal}` : `exit code ${code}`}) before it finished` });
      });
      const request: ScanChildRequest = {
        kind: 'run',
        scanId: scan.id,
        source: scan.source,
        ...(this.opts.settings ? { settings: this.opts.settings } : {}),
        ...(this.opts.databaseUrl !== undefined ? { databaseUrl: this.opts.databaseUrl } : {}),
      };
      child.send(request);
    });
  }

  /** Fail a held scan's row with `reason` (kept if it already succeeded) and stop its heartbeat. */
  private async end(scan: HeldScan, reason: string): Promise<void> {
    scan.stopHeartbeat();
    try {
      await this.opts.store.scans.fail(scan.id, reason);
    } catch (e) {
      // Already succeeded (the child stored it just before it was stopped): nothing failed.
      if (e instanceof StoreError && e.code === 'CONFLICT') return;
      // The database stayed down: the lease expires and a reaper fails the row.
    }
    if (this.opts.events) logScanFailed(this.opts.events, { scanId: scan.id, reason });
    this.opts.onError?.(new ScanFailedError(`scan ${scan.id} failed: ${reason}`, scan.id));
  }

  /** When a slot is likely free: the last scan's duration (1 to 300 s), else 5 s. */
  private retryAfterSeconds(): number {
    if (this.lastDurationMs === undefined) return DEFAULT_RETRY_AFTER_SECONDS;
    return Math.min(300, Math.max(1, Math.ceil(this.lastDurationMs / 1000)));
  }
}
