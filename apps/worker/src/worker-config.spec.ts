import { describe, expect, it } from 'vitest';
import type { ScanConfig } from '@app/collectors';
import { ConfigError } from '@app/config';
import { DEFAULT_QUEUE_PREFIX } from '@app/queue';
import { resolveWorkerOptions } from './worker.options';
import { loadWorkerConfig, workerOptionsFromConfig } from './worker-config';

const required = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db',
};

describe(loadWorkerConfig.name, () => {
  it('needs REDIS_URL and DATABASE_URL and names what is wrong without showing values', () => {
    expect(() => loadWorkerConfig({})).toThrow(ConfigError);
    const e = (() => {
      try {
        loadWorkerConfig({
          REDIS_URL: 'http://secret@host',
          DATABASE_URL: required.DATABASE_URL,
          WORKER_CONCURRENCY: '0',
        });
      } catch (err) {
        return err as Error;
      }
      return undefined;
    })();
    expect(e?.message).toContain('REDIS_URL must be a redis:// or rediss:// URL');
    expect(e?.message).toContain('WORKER_CONCURRENCY must be a positive integer');
    expect(e?.message).not.toContain('secret');
  });

  it('reads every variable; empty ones count as unset', () => {
    const c = loadWorkerConfig({
      ...required,
      FLEET_AUDIT_QUEUE_PREFIX: 'fa-1',
      WORKER_CONCURRENCY: '8',
      WORKER_ANALYZE_CONCURRENCY: '2',
      ANALYZE_SHARDS: 'false',
      WORKER_LOCK_DURATION_MS: '5000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      WORKER_SHUTDOWN_GRACE_MS: '2000',
      WORKER_REACH: 'vpc-a, vpc-b',
      WORKER_REACH_WAIT_MS: '60000',
      SCAN_CONFIGS: ' a.yaml, b.json ,',
      SCAN_SCHEDULE: '*/5 * * * * *',
      SCAN_RECONCILE_INTERVAL_MS: '',
      REPORT_SCHEDULE: 'off',
      REPORT_WEBHOOK_URL: 'https://hooks.example.com/weekly',
      REPORT_LINK_BASE: 'https://audit.example.com',
      RETENTION_SCHEDULE: 'off',
      RETENTION_RAW_HOURS: '72',
      RETENTION_DAILY_DAYS: '30',
      RETENTION_WEEKLY_WEEKS: 'forever',
      RETENTION_QUOTA_DAYS: '',
      RETENTION_BATCH_ROWS: '100',
    });
    expect(c).toEqual({
      database: { url: required.DATABASE_URL },
      redis: { url: required.REDIS_URL, prefix: 'fa-1' },
      queues: {
        crawlConcurrency: 8,
        analyzeConcurrency: 2,
        analyzeShards: false,
        lockDurationMs: 5000,
        stalledIntervalMs: 1000,
        shutdownGraceMs: 2000,
        reach: ['vpc-a', 'vpc-b'],
        reachWaitMs: 60_000,
      },
      schedule: { configPaths: ['a.yaml', 'b.json'], cron: '*/5 * * * * *', reconcileIntervalMs: 30_000 },
      reports: { cron: false, webhookUrl: 'https://hooks.example.com/weekly', linkBase: 'https://audit.example.com' },
      retention: { cron: false, rawHours: 72, dailyDays: 30, weeklyWeeks: null, quotaDays: 15, batchRows: 100 },
      log: { level: 'info' },
    });
    expect(() => loadWorkerConfig({ ...required, RETENTION_RAW_HOURS: '12' })).toThrow(/RETENTION_RAW_HOURS must be at least 24/);
    expect(() => loadWorkerConfig({ ...required, RETENTION_WEEKLY_WEEKS: '0' })).toThrow(/RETENTION_WEEKLY_WEEKS must be a positive integer \(weeks\) or forever/);
    expect(() => loadWorkerConfig({ ...required, REPORT_SCHEDULE: 'mondays' })).toThrow(/REPORT_SCHEDULE must be a cron expression/);
    expect(loadWorkerConfig(required).queues.reach).toBe('any');
    expect(() => loadWorkerConfig({ ...required, WORKER_REACH: 'vpc-a,10.0.0.0/8' })).toThrow(/WORKER_REACH must be `any` or VPC ids/);
    const hooked = workerOptionsFromConfig(loadWorkerConfig({ ...required, REPORT_WEBHOOK_URL: 'http://127.0.0.1:9/h' }), () => ({}) as ScanConfig);
    expect(hooked.reports).toEqual({ schedule: '0 0 6 * * 1', webhook: { url: 'http://127.0.0.1:9/h' } });
  });
});

describe(workerOptionsFromConfig.name, () => {
  it('loads the scheduled configs by path and lets flags override the environment', () => {
    const config = loadWorkerConfig({ ...required, SCAN_CONFIGS: 'env.yaml', WORKER_CONCURRENCY: '3' });
    const load = (path: string) => ({ name: `fleet-of-${path}` }) as ScanConfig;
    expect(workerOptionsFromConfig(config, load)).toMatchObject({
      sources: [{ name: 'fleet-of-env.yaml' }],
      concurrency: { crawl: 3 },
    });
    expect(
      workerOptionsFromConfig(config, load, { configPaths: ['flag.yaml'], concurrency: 9, schedule: false }),
    ).toMatchObject({
      sources: [{ name: 'fleet-of-flag.yaml' }],
      concurrency: { crawl: 9 },
      schedule: false,
    });
  });

  it('passes the audit settings of `--settings` to the scheduled scans, and none by default', () => {
    const config = loadWorkerConfig({ ...required, SCAN_CONFIGS: 'env.yaml' });
    const load = (path: string) => ({ name: `fleet-of-${path}` }) as ScanConfig;
    expect(workerOptionsFromConfig(config, load)).not.toHaveProperty('settings');
    const settings = { ccmScale: { maxLoadBalancerServices: 40 }, checks: { LB_ORPHANED: { severity: 'critical' as const } } };
    expect(workerOptionsFromConfig(config, load, { settings }).settings).toEqual(settings);
  });
});

describe('declared defaults (libs/config) and the worker options defaults', () => {
  it('agree, so an unset variable and an option left out run the same worker', () => {
    const fromEnv = resolveWorkerOptions(workerOptionsFromConfig(loadWorkerConfig(required), () => ({}) as ScanConfig));
    const programmatic = resolveWorkerOptions({ databaseUrl: required.DATABASE_URL, redisUrl: required.REDIS_URL, prefix: DEFAULT_QUEUE_PREFIX });
    expect(fromEnv).toEqual(programmatic);
  });
});
