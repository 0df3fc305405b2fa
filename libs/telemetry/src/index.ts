/** Public entry of libs/telemetry: Prometheus metrics of the fleet audit (prom-client). */
export * from './fleet-metrics';
