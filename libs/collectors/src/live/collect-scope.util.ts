/**
 * Shared plumbing of the live collectors: the coverage recorder (one entry per dataset read,
 * mirroring the offline loader's entries: `ok` when read, `absent` when the API says there is
 * nothing to read, `failed` with the API's error code when the read errored) with progress
 * events, and the per-target scope every reader gets (clients, call runners, settings).
 */
import type { CoverageDataset, CoverageEntry } from '@app/domain';
import type { AccountClients } from './alibaba-clients.factory';
import type { CallRunner } from './call-runner.util';
import { alibabaError, CollectError, redact, ScanAbortedError } from './collect-error.util';
import type { CollectorSettings } from './scan-config';

/** A progress event: `done` of `total` datasets read so far; `total` grows as clusters are found. */
export interface CollectProgress {
  done: number;
  total: number;
  /** The dataset just finished, `account/region/cluster/api`. */
  target: string;
}

/** Which dataset of which target. */
export interface DatasetKey {
  accountId: string;
  regionId?: string;
  clusterId?: string;
  api: CoverageDataset;
}

/** Returned by a reader when the API reports there is nothing to read (coverage `absent`). */
export class Absent {
  /** @param message why, one line (e.g. `ListClusterAddonInstances: 404 ErrorClusterNotFound`) */
  constructor(readonly message: string) {}
}

/**
 * Run a read, turning "the API reports the resource is not there" (`CollectError.notFound`) into `Absent` with
 * its message; every other failure is thrown on.
 */
export async function absentIfNotFound<T>(read: () => Promise<T>): Promise<T | Absent> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof CollectError && e.notFound) return new Absent(e.message);
    throw e;
  }
}

/** `account/region/cluster/api` of a dataset key. */
export function targetOf(key: Omit<DatasetKey, 'api'> & { api?: string }): string {
  return [key.accountId, key.regionId, key.clusterId, key.api].filter((p) => p !== undefined).join('/');
}

/**
 * Counts datasets planned and done over a whole scan (or one target) and reports progress. One
 * counter may be shared by the coverage recorders of many targets.
 */
export class ProgressCounter {
  private done = 0;
  private total = 0;

  constructor(private readonly onProgress?: (e: CollectProgress) => void) {}

  /** Announce `n` more datasets to read (for the progress total). */
  plan(n: number): void {
    this.total += n;
  }

  /** Withdraw `n` announced datasets (a target vanished while it was read). */
  unplan(n: number): void {
    this.total = Math.max(this.done, this.total - n);
  }

  /** One dataset finished. */
  tick(target: string): void {
    this.done++;
    if (this.done > this.total) this.total = this.done;
    this.onProgress?.({ done: this.done, total: this.total, target });
  }
}

/** Collects coverage entries in the offline loader's shape and reports progress. */
export class CoverageRecorder {
  readonly entries: CoverageEntry[] = [];
  readonly progress: ProgressCounter;

  /** @param progress a shared counter, or a progress callback for a counter of this recorder alone */
  constructor(progress?: ProgressCounter | ((e: CollectProgress) => void)) {
    this.progress = progress instanceof ProgressCounter ? progress : new ProgressCounter(progress);
  }

  /** Announce `n` more datasets to read (for the progress total). */
  plan(n: number): void {
    this.progress.plan(n);
  }

  /** Withdraw `n` announced datasets (a target vanished while it was read). */
  unplan(n: number): void {
    this.progress.unplan(n);
  }

  /** Record one dataset's outcome. */
  record(
    key: DatasetKey,
    status: CoverageEntry['status'],
    extra: { errorCode?: string; message?: string } = {},
  ): void {
    this.entries.push({
      accountId: key.accountId,
      ...(key.regionId !== undefined ? { regionId: key.regionId } : {}),
      ...(key.clusterId !== undefined ? { clusterId: key.clusterId } : {}),
      api: key.api,
      status,
      ...(extra.errorCode !== undefined ? { errorCode: extra.errorCode } : {}),
      ...(extra.message !== undefined ? { message: extra.message } : {}),
    });
    this.progress.tick(targetOf(key));
  }
}

/** What every reader of one account gets. */
export interface AccountScope {
  accountId: string;
  clients: AccountClients;
  /** Runner of Alibaba Cloud calls (paced by the account's budget in the ApiRateLimiter, retried). */
  runner: CallRunner;
  /** Runner of Kubernetes calls (paced per cluster: `maxConcurrentPerCluster`, retried). */
  kubeRunner: CallRunner;
  settings: CollectorSettings;
  coverage: CoverageRecorder;
  signal?: AbortSignal;
}

/**
 * Run one Alibaba Cloud SDK call through the account's runner; whatever it throws becomes a
 * CollectError naming `api` and `target` (with credentials redacted).
 */
export function aliCall<T>(
  scope: AccountScope,
  api: string,
  target: string,
  fn: () => Promise<T>,
): Promise<T> {
  return scope.runner.run(api, async () => {
    try {
      return await fn();
    } catch (e) {
      throw alibabaError(e, api, target, scope.clients.secrets);
    }
  });
}

/**
 * Read one dataset and record its coverage: the value when read (`ok`), undefined when the
 * reader returned Absent (`absent`) or threw (`failed`, with the CollectError's code; an
 * unexpected error is recorded as `InternalError` so a bug never crashes the whole scan).
 *
 * The reader gets a scope whose runners belong to this dataset: at its first failure the dataset
 * is cancelled, so sibling calls still queued (the other CLBs of a region, the other lists of a
 * cluster) are dropped instead of running on after the dataset was recorded `failed`.
 * @throws ScanAbortedError when the scan was cancelled
 */
export async function readDataset<T>(
  scope: AccountScope,
  key: DatasetKey,
  read: (scope: AccountScope) => Promise<T | Absent>,
): Promise<T | undefined> {
  const cancel = new AbortController();
  const own: AccountScope = {
    ...scope,
    runner: scope.runner.withCancel(cancel.signal),
    kubeRunner: scope.kubeRunner.withCancel(cancel.signal),
  };
  try {
    const v = await read(own);
    if (v instanceof Absent) {
      scope.coverage.record(key, 'absent', { message: v.message });
      return undefined;
    }
    scope.coverage.record(key, 'ok');
    return v;
  } catch (e) {
    cancel.abort();
    if (e instanceof ScanAbortedError || scope.signal?.aborted) throw new ScanAbortedError();
    if (e instanceof CollectError)
      scope.coverage.record(key, 'failed', { errorCode: e.errorCode, message: e.message });
    else
      scope.coverage.record(key, 'failed', {
        errorCode: 'InternalError',
        message: redact(
          `${targetOf(key)}: ${e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e)}`,
          scope.clients.secrets,
        ),
      });
    return undefined;
  }
}
