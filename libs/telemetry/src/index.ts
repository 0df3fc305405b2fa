/** Public entry of libs/telemetry: Prometheus metrics of the fleet audit (prom-client) and structured logs (pino). */
export * from './fleet-metrics';
export * from './logger';
export * from './process-metrics';
export * from './scan-events';
