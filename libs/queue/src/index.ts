/**
 * Public entry of libs/queue: the BullMQ queues of distributed scans (names, payloads, job ids,
 * defaults), the producer port, the Redis-backed API budgets and scope locks, and the client that
 * starts and follows distributed scans (CLI, API launcher).
 */
export * from './scan-jobs.constants';
export * from './queue-options';
export * from './scan-job.queue';
export * from './scan-jobs.verdict';
export * from './redis-rate-limiter';
export * from './scan-scope.lock';
export * from './distributed-scan.client';
export * from './distributed-scan.launcher';
export * from './scan-row-settings.util';
export * from './queued-credentials';
export * from './redis-probe';
