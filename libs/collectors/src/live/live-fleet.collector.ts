/**
 * The live scan: reads every account and region of a ScanConfig through the official Alibaba
 * Cloud clients and each ACK cluster's Kubernetes API, into a WireFleet (the same wire shapes the
 * offline loader reads from a fleet directory), then `mapWireFleet` into the FleetSnapshot.
 *
 * It is the target-level crawl run in one process (crawl-targets.ts): account targets (RAM) and
 * region targets (CLBs, NLBs, ECS, vSwitches, quotas, cluster list) at once, a cluster target for every
 * listed cluster as soon as its region's list is read, then `assembleWireFleet`. The distributed
 * worker runs the same targets as jobs, so local and distributed scans share the code.
 *
 * Coverage mirrors the offline loader entry for entry (account `ram`; region `slb`, `nlb`, `ecs`,
 * `vpc`, `quotas`, `cs`; cluster `cluster`, `addons`, `resources`, `sysctls`, `kubernetes`):
 * `ok` when read, `absent` when the API reports nothing to read, `failed` with the API's error
 * code and a message naming API and target when a read errors (after the retries). A failed read
 * never stops the scan; only the caller's AbortSignal does (the promise then rejects with
 * ScanAbortedError).
 *
 * Pacing: one ApiRateLimiter for the scan (`collector.qpsPerAccount`, `qpsPerApi`,
 * `maxConcurrentPerAccount`), Kubernetes calls bounded per cluster (`maxConcurrentPerCluster`),
 * retries of throttling / 5xx / timeouts / resets / bad bodies with exponential backoff and full
 * jitter (`collector.maxAttempts`).
 */
import { mapWireFleet, sanitizeDeep, type FleetSnapshot, type WireFleet } from '@app/domain';
import type { CredentialsFor } from './account-credentials.service';
import {
  createInMemoryRateLimiter,
  rateLimiterOptionsOf,
  type ApiRateLimiter,
  type ClosableApiRateLimiter,
} from './api-rate-limiter.util';
import { ScanAbortedError } from './collect-error.util';
import type { CollectProgress } from './collect-scope.util';
import { assembleWireFleet, crawlFleetTargets, defaultCredentialsFor } from './crawl-targets';
import type { ScanConfig } from './scan-config';
import { processEnvironment } from '@app/config';

/** Options of a live scan. */
export interface LiveScanOptions {
  /** Called after every dataset read; `total` grows as clusters are discovered. */
  onProgress?: (event: CollectProgress) => void;
  /** Cancels the scan: in-flight calls are abandoned and the promise rejects with ScanAbortedError. */
  signal?: AbortSignal;
  /**
   * Credentials per account; default: the config's base credentials, or for an account with
   * `auditRoleArn` STS credentials of that role (`AccountCredentialsResolver`, cached until 5
   * minutes before expiry). A CollectError thrown here makes every dataset of the account `failed`.
   */
  credentialsFor?: CredentialsFor;
  /** Pacing per account; default: a new in-memory limiter from the config's budgets. */
  rateLimiter?: ApiRateLimiter;
  /** Environment for `credentials.*Env` (default libs/config `processEnvironment()`). */
  env?: Record<string, string | undefined>;
}

/**
 * Read a live fleet into wire shapes.
 * @param config a validated scan config (`loadScanConfig`)
 * @returns the WireFleet with coverage for every dataset of every target
 * @throws ScanAbortedError when `options.signal` fires; CredentialsConfigError when a named env
 *   variable is missing. API failures never throw: they are `failed` coverage entries.
 */
export async function collectLiveFleet(
  config: ScanConfig,
  options: LiveScanOptions = {},
): Promise<WireFleet> {
  if (options.signal?.aborted) throw new ScanAbortedError();
  let own: ClosableApiRateLimiter | undefined;
  const rateLimiter =
    options.rateLimiter ?? (own = createInMemoryRateLimiter(rateLimiterOptionsOf(config.collector)));
  try {
    const slices = await crawlFleetTargets(config, {
      credentialsFor: options.credentialsFor ?? defaultCredentialsFor(config, options.env ?? processEnvironment()),
      rateLimiter,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    return assembleWireFleet(config, slices);
  } finally {
    await own?.close();
  }
}

/**
 * Scan a live fleet into a FleetSnapshot (`collectLiveFleet` + `mapWireFleet`). For the same fleet
 * it equals what `loadFleetDirectory` gives for the fleet directory (coverage included).
 * @throws as collectLiveFleet
 */
export async function scanLive(config: ScanConfig, options: LiveScanOptions = {}): Promise<FleetSnapshot> {
  // NUL and lone surrogates in API answers become visible markers here, at the boundary.
  return mapWireFleet(sanitizeDeep(await collectLiveFleet(config, options)));
}
