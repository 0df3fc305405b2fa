/**
 * Scan configs for the live collector e2e tests: the simulator's config with fast retries and a
 * QPS budget high enough that pacing does not slow the tests (pacing itself is tested in
 * crawl-budget.e2e-spec.ts and the crawl benchmark).
 */
import type { ScanConfig } from '@app/collectors';

/** Overrides of {@link testConfig}. */
export interface TestConfigOverrides {
  /** Replace the endpoint (e.g. a proxy in front of the simulator). */
  endpoint?: string;
  /** Page sizes to change. */
  pageSizes?: Partial<ScanConfig['collector']['pageSizes']>;
  /** Other collector settings to change. */
  collector?: Partial<Omit<ScanConfig['collector'], 'pageSizes'>>;
  /** Client read timeout, milliseconds. */
  readTimeoutMs?: number;
}

/** `config` with retries of 1-5 ms, 1000 QPS per account, and the overrides. */
export function testConfig(config: ScanConfig, o: TestConfigOverrides = {}): ScanConfig {
  return {
    ...config,
    alibabaCloud: {
      ...config.alibabaCloud,
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      ...(o.readTimeoutMs ? { readTimeoutMs: o.readTimeoutMs } : {}),
    },
    collector: {
      ...config.collector,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 5,
      qpsPerAccount: 1000,
      maxConcurrentPerAccount: 16,
      ...o.collector,
      pageSizes: { ...config.collector.pageSizes, ...o.pageSizes },
    },
  };
}
