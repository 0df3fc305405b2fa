import { describe, expect, it } from 'vitest';
import {
  analyzeJobId,
  completeJobId,
  crawlJobId,
  crawlPoolQueueName,
  shardJobId,
  JOB_QUEUE,
  JobName,
  planJobId,
  QueueName,
} from './scan-jobs.constants';

const scanId = '4b3c2d1e-0000-4000-8000-000000000001';

describe('scan job names and ids', () => {
  it('derives job ids from (scan, target) without ":" (BullMQ rejects it in custom ids)', () => {
    const ids = [
      planJobId(scanId),
      analyzeJobId(scanId),
      crawlJobId(scanId, { kind: 'account', accountId: '1001' }),
      crawlJobId(scanId, { kind: 'cluster', accountId: '1001', regionId: 'cn-hangzhou', clusterId: 'c:1' }),
      completeJobId(scanId),
      shardJobId(scanId, { accountId: '1001', regionId: 'cn-hangzhou' }),
      shardJobId(scanId, { accountId: '1001', regionId: null }),
    ];
    for (const id of ids) expect(id).not.toContain(':');
    expect(new Set(ids).size).toBe(ids.length);
    expect(crawlJobId(scanId, { kind: 'account', accountId: '1001' })).toBe(
      crawlJobId(scanId, { kind: 'account', accountId: '1001' }),
    );
  });

  it('names a pool queue by its VPC', () => {
    expect(crawlPoolQueueName('vpc-bp1abc')).toBe('scan-crawl.vpc-bp1abc');
  });

  it('maps every job to its queue', () => {
    expect(JOB_QUEUE).toEqual({
      [JobName.PlanScan]: QueueName.ScanPlan,
      [JobName.CrawlTarget]: QueueName.ScanCrawl,
      [JobName.CrawlDeadline]: QueueName.ScanCrawl,
      [JobName.AnalyzeScan]: QueueName.ScanAnalyze,
      [JobName.AnalyzeShard]: QueueName.ScanShard,
      [JobName.CompleteScan]: QueueName.ScanAnalyze,
    });
  });
});
