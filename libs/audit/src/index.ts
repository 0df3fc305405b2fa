/** Public entry of libs/audit: the scan use case shared by CLI, API and worker. */
export * from './analyze-and-store';
export * from './analyze-shard';
export * from './scan-runner';
export * from './scan-source';
export * from './scan-launch';
export * from './local-scan-launcher';
export * from './queued-scan-launcher';
export type * from './scan-child.protocol';
export * from './audit-settings.loader';
export * from './waivers-file.loader';
export * from './forecast-runner';
export * from './forecast-pool';
export * from './quota-plan-runner';
export * from './quota-request-runner';
export * from './threaded-audit';
export type { AuditShardAnswer, AuditShardTask, ResultRun } from './threaded-audit-shard';
