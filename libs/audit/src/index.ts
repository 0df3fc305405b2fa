/** Public entry of libs/audit: the scan use case shared by CLI, API and worker. */
// The scan use case itself, also importable alone as `@app/audit/scan` (scan-entry.ts: what an offline scan loads).
export * from './scan-entry';
export * from './analyze-shard';
export * from './scan-source';
export * from './scan-launch';
export * from './local-scan-launcher';
export * from './queued-scan-launcher';
export type * from './scan-child.protocol';
export * from './forecast-runner';
export * from './forecast-pool';
export * from './quota-plan-runner';
export * from './quota-request-runner';
