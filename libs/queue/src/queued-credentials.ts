/**
 * Credentials on the queue: a BullMQ job is a Redis hash kept for an hour after
 * success and a week after failure, readable by anyone who can read the Redis. So a job never
 * carries secret material, only a *reference* that the worker resolves from its own configuration
 * or environment:
 *
 * | the scan config's `credentials`             | what the job carries                       | the worker resolves it from                                  |
 * |---------------------------------------------|--------------------------------------------|--------------------------------------------------------------|
 * | absent                                      | nothing                                    | its `@alicloud/credentials` default chain (env `ALIBABA_CLOUD_ACCESS_KEY_ID`/`_SECRET`, profile, RRSA / ECS RAM role) |
 * | `accessKeyIdEnv` / `accessKeySecretEnv`      | the variable *names* (unchanged)           | its own environment                                          |
 * | literal `accessKeyId` / `accessKeySecret`    | `credentialsSource: <config name>`, block removed | its own copy of the scan config of that name (`SCAN_CONFIGS` / `fleet-audit worker --config`) |
 *
 * A literal AccessKey is thus never copied into Redis: the producer (CLI `scan --distributed`, the
 * API's launcher, the worker's scheduler and reconciler) drops it and names the config instead.
 * When no worker has a config of that name, the plan job fails for good and the scan fails with
 * a reason naming the config and its accounts (apps/worker `CrawlCredentialsProvider`).
 *
 * The conversion happens at the one place jobs are written (`BullScanJobQueue`), so no producer
 * can forget it; `DistributedScanClient.submit` applies it too, so the payload it hands back (kept
 * in memory to re-plan a lost scan) holds no secret either.
 */
import type { ScanConfig } from '@app/collectors';

/** A scan config as a job carries it, with the reference that replaces an inline AccessKey. */
export interface QueuedScanConfig {
  /** The config without literal AccessKey values (env variable names stay: they are not secret). */
  config: ScanConfig;
  /**
   * Name of the scan config (its `name`, the fleet name) whose `credentials` block the worker
   * takes from its own copy; set when the submitted config held a literal AccessKey.
   */
  credentialsSource?: string;
}

/** True when `config.credentials` holds a literal AccessKey (id or secret). */
export function hasInlineAccessKey(config: Pick<ScanConfig, 'credentials'>): boolean {
  const c = config.credentials;
  return c?.accessKeyId !== undefined || c?.accessKeySecret !== undefined;
}

/**
 * The config as it may go on the queue. Idempotent: a config already converted keeps the
 * reference passed in `credentialsSource`.
 * @param config a validated scan config (possibly with a literal AccessKey)
 * @param credentialsSource the reference a payload already carries, if any
 * @returns the config without a literal AccessKey, and the reference to resolve it by
 */
export function queuedScanConfig(config: ScanConfig, credentialsSource?: string): QueuedScanConfig {
  if (!hasInlineAccessKey(config))
    return { config, ...(credentialsSource !== undefined ? { credentialsSource } : {}) };
  const stripped: ScanConfig = { ...config };
  // A literal AccessKey goes with nothing else in the block (the env names would be ignored by
  // `resolveBaseCredentials` anyway): drop the block whole.
  delete stripped.credentials;
  return { config: stripped, credentialsSource: config.name };
}

/** The same for a job payload with a `config` (plan and crawl jobs). */
export function withQueuedCredentials<P extends { config: ScanConfig; credentialsSource?: string }>(payload: P): P {
  const q = queuedScanConfig(payload.config, payload.credentialsSource);
  return { ...payload, config: q.config, ...(q.credentialsSource !== undefined ? { credentialsSource: q.credentialsSource } : {}) };
}

/** The config without any `credentials` block (the analysis calls no API). */
export function withoutCredentials(config: ScanConfig): ScanConfig {
  if (config.credentials === undefined) return config;
  const copy: ScanConfig = { ...config };
  delete copy.credentials;
  return copy;
}
