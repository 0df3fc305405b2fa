/**
 * Process, runtime and HTTP metrics of a process (prom-client), appended to the fleet metrics of
 * `GET /metrics`: prom-client's default process/Node.js metrics and `http_request_duration_seconds`
 * (histogram by method, route template and status code).
 *
 * prom-client names three gauges `nodejs_active_{handles,requests,resources}_total`, which
 * `promtool check metrics` rejects (a non-counter must not end in `_total`; STACK.md pitfall 20).
 * They are removed; the same values stay available without the suffix (`nodejs_active_handles` ...).
 */
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Buckets of `http_request_duration_seconds`, seconds (5 ms to 10 s). */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The registry and the HTTP histogram of one process. */
export interface ProcessMetrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  /** The exposition text of these metrics. */
  render(): Promise<string>;
}

/**
 * Create the process metrics (call once per process; a second call gets its own registry).
 * @param prefix optional name prefix for the default metrics (none by default: `process_*`, `nodejs_*`)
 */
export function createProcessMetrics(prefix = ''): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  for (const m of registry.getMetricsAsArray()) {
    const { name, type } = m as unknown as { name: string; type: string };
    if (type !== 'counter' && name.endsWith('_total')) registry.removeSingleMetric(name);
  }
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests served by the API, seconds, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
  return { registry, httpDuration, render: () => registry.metrics() };
}
