/**
 * Starting and following distributed scans from outside the worker fleet (CLI `scan
 * --distributed`, the API's launcher, tests): create the scan row, enqueue its plan job, wait for
 * the workers to finish it, and read the result back as the same `ScanOutcome` a local scan gives.
 */
import { randomUUID } from 'node:crypto';
import { ScanFailedError, type ScanOutcome, type ScanProgress, type ScanSummary } from '@app/audit';
import type { PartialAuditSettings } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import { severityRank, type Finding } from '@app/domain';
import { SYSTEM_PRINCIPAL, type Store, type StoredFinding, type StoredScan } from '@app/store';
import type { ScanJobQueue } from './scan-job.queue';
import { judgeScanJobs } from './scan-jobs.verdict';
import type { PlanScanPayload } from './scan-jobs.constants';
import { scanRowSettings } from './scan-row-settings.util';
import { queuedScanConfig } from './queued-credentials';
import { FleetAuditError, fleetAuditErrorKind } from '@app/errors';

/** A scan to start. */
export interface SubmitScanRequest {
  /**
   * The scan config. A literal AccessKey in its `credentials` block is not sent: the job names the
   * config instead and each worker takes the AccessKey from its own copy of the config of that
   * name (queued-credentials.ts); env variable names and the default chain resolve on the worker.
   */
  config: ScanConfig;
  /** Default: a random uuid. */
  scanId?: string;
  /** Analysis clock; default: the scan's start time. */
  now?: Date;
  settings?: PartialAuditSettings;
  /** Scope lock the scan holds (schedules), released when it ends. */
  scope?: string;
  /** Longest wait for Redis to accept the plan job, milliseconds (default ENQUEUE_TIMEOUT_MS). */
  enqueueTimeoutMs?: number;
  /**
   * When Redis does not accept the job: delete the scan row (true: nothing ran, so nothing is recorded and no
   * scan-failed alert fires; an API request answers 503 and is retried) instead of failing it (default false: the
   * CLI reports the failed scan).
   */
  discardWhenNotEnqueued?: boolean;
}

/**
 * Redis did not accept a scan's plan job (down, unreachable, too slow): a transient error, retry later. The API
 * answers 503 with `Retry-After` (`retryAfterSeconds`).
 */
export class ScanQueueUnavailableError extends fleetAuditErrorKind('ScanQueueUnavailableError', 'SCAN_QUEUE_UNAVAILABLE', false) {
  /** Seconds after which a retry may succeed (about a Redis restart). */
  readonly retryAfterSeconds = 5;
}

/** Options of {@link DistributedScanClient.waitFor}. */
export interface WaitForScanOptions {
  /** How often the scan row and its jobs are read, milliseconds (default 500). */
  pollIntervalMs?: number;
  /** Give up after this long, milliseconds (default: never). */
  timeoutMs?: number;
  /** Stop waiting (the scan goes on on the workers). */
  signal?: AbortSignal;
  /** Called after each poll with targets done / total (phase `collect`). */
  onProgress?: (p: ScanProgress) => void;
  /**
   * How long the queue must hold none of the scan's jobs before the scan is planned again,
   * milliseconds (default 2000): rides over Redis restarting empty mid-scan.
   */
  lostAfterMs?: number;
}

/**
 * Thrown when waiting for a scan timed out or was aborted (the scan itself goes on), or when the
 * scan waited for does not exist.
 */
export class ScanWaitError extends FleetAuditError {
  override readonly name = 'ScanWaitError';
  /** Stable code (libs/errors README). */
  readonly code = 'SCAN_WAIT_ENDED';
  /**
   * @param message one line for humans
   * @param scanId the scan waited for
   * @param permanent false (default) when only the wait ended: the scan goes on and waiting again
   *   may see it end; true when the scan does not exist, which no retry changes
   */
  constructor(
    message: string,
    readonly scanId: string,
    readonly permanent = false,
  ) {
    super(message);
  }
}

/** Starts distributed scans and follows them to the end. */
export class DistributedScanClient {
  /**
   * @param store where scans, targets and findings live (the workers' database)
   * @param queue the scan queues (the workers' Redis and prefix)
   */
  constructor(
    private readonly store: Store,
    private readonly queue: ScanJobQueue,
  ) {}

  /**
   * Create the scan row (`running`, source `distributed`) and enqueue its plan job. The job holds
   * no secret: a literal AccessKey of the config becomes `credentialsSource` (the config's name),
   * resolved by the worker from its own copy of that config; if no worker has it, the scan fails
   * with a reason naming the config and its accounts.
   * @returns the plan payload, without secret material (keep it: `waitFor` re-enqueues it if Redis loses the scan)
   * @throws StoreError when the row cannot be written; the queue's error when Redis is down (the
   *   scan is then marked failed, so it never stays `running`)
   */
  async submit(request: SubmitScanRequest): Promise<PlanScanPayload> {
    const scanId = request.scanId ?? randomUUID();
    const payload: PlanScanPayload = {
      scanId,
      ...queuedScanConfig(request.config),
      ...(request.now ? { now: request.now.toISOString() } : {}),
      ...(request.settings ? { settings: request.settings } : {}),
      ...(request.scope ? { scope: request.scope } : {}),
    };
    await this.store.scans.create({
      id: scanId,
      source: 'distributed',
      fleetName: request.config.name,
      startedAt: new Date(),
      settings: scanRowSettings(request.settings, payload.now),
    });
    const timeoutMs = request.enqueueTimeoutMs ?? ENQUEUE_TIMEOUT_MS;
    try {
      // With Redis down BullMQ keeps retrying the connection and the add would wait silently;
      // bound it so the scan fails with a reason instead of hanging `running`.
      await withTimeout(this.queue.enqueuePlan(payload), timeoutMs, `Redis did not accept the job within ${timeoutMs / 1000} s (is it running?)`);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      // Error path: `e` is thrown; a row left running is failed by the reconciler / lease reaper.
      if (request.discardWhenNotEnqueued) {
        await this.store.scans.discardUnstarted(scanId).catch(() => undefined);
        throw new ScanQueueUnavailableError(`the scan queue is unavailable: ${reason}; retry later`, { cause: e });
      }
      await this.store.scans.fail(scanId, `could not enqueue the scan: ${reason}`).catch(() => undefined);
      throw e;
    }
    return payload;
  }

  /**
   * Wait until the scan succeeded or failed. While it runs, a scan whose jobs vanished from Redis
   * (restarted empty) is planned again from `payload`; the crawl jobs skip targets already read.
   * @returns the finished scan row
   * @throws ScanWaitError on timeout or abort (the scan goes on)
   */
  async waitFor(payload: PlanScanPayload, options: WaitForScanOptions = {}): Promise<StoredScan> {
    const poll = options.pollIntervalMs ?? 500;
    const lostAfter = options.lostAfterMs ?? 2_000;
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    let lostSince: number | undefined;
    for (;;) {
      const scan = await this.store.scans.get(payload.scanId);
      if (!scan) throw new ScanWaitError(`scan ${payload.scanId} does not exist`, payload.scanId, true);
      if (scan.status !== 'running') return scan;
      if (options.onProgress) {
        const p = await this.store.scanTargets.progress(payload.scanId);
        options.onProgress({ phase: 'collect', done: p.done + p.failed, total: p.total });
      }
      const verdict = await this.queue
        .scanJobsState(payload.scanId)
        .then(judgeScanJobs)
        // Redis unreachable right now: no verdict; try again next poll.
        .catch(() => ({ kind: 'alive' as const }));
      if (verdict.kind === 'failed') {
        // Not stored now (database blip): the row stays running and the next poll judges it again.
        await this.store.scans.fail(payload.scanId, verdict.reason).catch(() => undefined);
      } else if (verdict.kind === 'lost') {
        lostSince ??= Date.now();
        // Re-read the row first: the analysis may have completed the scan and left the queue.
        const again = await this.store.scans.get(payload.scanId);
        if (again?.status === 'running' && Date.now() - lostSince >= lostAfter) {
          // Redis refused (still restarting): the jobs stay lost and the next polls plan again.
          await this.queue.enqueuePlan(payload).catch(() => undefined);
          lostSince = undefined;
        }
      } else {
        lostSince = undefined;
      }
      if (options.signal?.aborted)
        throw new ScanWaitError(`stopped waiting for scan ${payload.scanId}`, payload.scanId);
      if (Date.now() >= deadline)
        throw new ScanWaitError(`scan ${payload.scanId} did not finish in time`, payload.scanId);
      await delay(poll, options.signal);
    }
  }

  /**
   * The outcome of a finished scan in the shape of a local scan (`runScan`): the record, the
   * findings in the engine's order, and no per-result list or quota samples (the store keeps findings, the
   * counts of every result in the summary and the quota samples, not each passing result).
   * @throws ScanFailedError when the scan failed (with its stored reason)
   */
  async outcomeOf(scan: StoredScan): Promise<ScanOutcome> {
    if (scan.status === 'failed')
      throw new ScanFailedError(scan.error ?? 'the distributed scan failed', scan.id);
    if (scan.status !== 'succeeded')
      throw new ScanFailedError(`scan ${scan.id} is still ${scan.status}`, scan.id);
    const findings = (await this.store.findings.forScan(scan.id, SYSTEM_PRINCIPAL)).map(withoutSightings).sort(compareFindings);
    return {
      scan: {
        id: scan.id,
        status: 'succeeded',
        // The data came from the live APIs; the stored row says `distributed`.
        source: 'live',
        fleetName: scan.fleetName ?? '',
        startedAt: scan.startedAt,
        finishedAt: scan.finishedAt ?? scan.startedAt,
        summary: auditSummaryOf(scan),
        coverage: scan.coverage ?? [],
        skipped: scan.skipped ?? [],
      },
      findings,
      // Pass results are not stored (one per check and resource); failures are the findings, skips are above.
      results: [],
      quotaUsage: [],
    };
  }

  /**
   * Submit a scan, wait for it, and return its outcome (`submit` + `waitFor` + `outcomeOf`).
   * @throws ScanFailedError when the scan failed; ScanWaitError on timeout or abort
   */
  async run(request: SubmitScanRequest, options: WaitForScanOptions = {}): Promise<ScanOutcome> {
    const payload = await this.submit(request);
    return this.outcomeOf(await this.waitFor(payload, options));
  }
}

function withoutSightings(f: StoredFinding): Finding {
  const copy: Finding & Partial<Pick<StoredFinding, 'firstSeenAt' | 'lastSeenAt'>> = { ...f };
  delete copy.firstSeenAt;
  delete copy.lastSeenAt;
  return copy;
}

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order of libs/checks `runAudit`: most severe first, then check id, resource id, fingerprint. */
function compareFindings(a: Finding, b: Finding): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    compareStrings(a.checkId, b.checkId) ||
    compareStrings(a.resource.id, b.resource.id) ||
    compareStrings(a.fingerprint, b.fingerprint)
  );
}

/** The analyzer's summary (it stores the full audit summary); zero counts for fields it lacks. */
function auditSummaryOf(scan: StoredScan): ScanSummary {
  const s: Partial<ScanSummary> = (scan.summary ?? {}) as Partial<ScanSummary>;
  return {
    findings: s.findings ?? 0,
    bySeverity: s.bySeverity ?? { info: 0, warning: 0, critical: 0 },
    byCheck: s.byCheck ?? {},
    results: s.results ?? { pass: 0, fail: 0, skipped: 0 },
    byCheckStatus: s.byCheckStatus ?? {},
    coverage: s.coverage ?? { ok: 0, failed: 0, absent: 0 },
    accounts: s.accounts ?? 0,
    clusters: s.clusters ?? 0,
    loadBalancers: s.loadBalancers ?? 0,
  };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Longest wait for Redis to accept a scan's plan job, milliseconds. */
export const ENQUEUE_TIMEOUT_MS = 10_000;

/** `p`, or a rejection with `message` after `ms` milliseconds (the timer never keeps the process alive). */
function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
