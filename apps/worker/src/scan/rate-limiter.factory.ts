import { rateLimiterOptionsOf, type ApiRateLimiter, type ScanConfig } from '@app/collectors';
import type { RateLimiterOptions } from '@app/collectors';

/** The API budget limiter a crawl of a scan config uses (per-account budgets from `config.collector`). */
export type RateLimiterFactory = (config: ScanConfig) => ApiRateLimiter;

/**
 * A factory over a budget-keyed limiter source (the Redis pool, or a test wrapper around it).
 * @param forBudget gives the limiter of a budget (`RedisRateLimiterPool.forBudget`) and the
 *   longest one call may take (connect + read timeout, milliseconds)
 */
export function rateLimiterFactory(
  forBudget: (budget: RateLimiterOptions, callTimeoutMs: number) => ApiRateLimiter,
): RateLimiterFactory {
  return (config) =>
    forBudget(
      rateLimiterOptionsOf(config.collector),
      config.alibabaCloud.connectTimeoutMs + config.alibabaCloud.readTimeoutMs,
    );
}
