/**
 * Sharded analysis of distributed scans on real Redis, real PostgreSQL and the simulator's
 * generated fleet: the sharded scan (one analyze-shard job per (account, region) and complete-scan) stores what
 * the whole-fleet analysis stores (ANALYZE_SHARDS=false: the same findings, fingerprints and figures, summary,
 * coverage, skipped results, quota samples, fleet-graph rows and, through the snapshot loader, the same
 * snapshot) and what a local scan reports; a shard that fails for good leaves the scan completed with that
 * region's coverage `failed` (ShardAnalysisFailed); retried jobs of every kind add nothing.
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanOutcome, ScanSummary } from '@app/audit';
import type { CoverageEntry, Finding, FleetSnapshot, SkippedResult } from '@app/domain';
import { BullScanJobQueue, DistributedScanClient, QueueName, JobName } from '@app/queue';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import {
  AnalyzeScanCommand,
  AnalyzeScanService,
  AnalyzeShardCommand,
  AnalyzeShardService,
  CompleteScanCommand,
  CompleteScanService,
  SHARD_FAILED_CODE,
  shardsOf,
  type RunningWorker,
  type WorkerOptions,
} from '@app/worker';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, eventually, localScan, SHARED_REDIS_URL, startInProcessWorkers, startTestFleet, uniquePrefix, type TestFleet } from './worker-test.util';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const GRAPH_TABLES = ['graph_regions', 'graph_clusters', 'graph_services', 'graph_load_balancers', 'graph_server_groups', 'graph_server_lists', 'graph_ecs_instances', 'graph_ecs_attachments', 'graph_nlbs'];

/** Everything a scan stored, as read back through the store (and the graph tables, row by row). */
interface StoredScanView {
  outcome: ScanOutcome;
  quota: unknown[];
  graph: Record<string, string[]>;
  snapshot: FleetSnapshot;
}

describe('sharded analysis (analyze-shard jobs and complete-scan)', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;
  let local: { findings: Finding[]; coverage: CoverageEntry[]; summary: ScanSummary; skipped: SkippedResult[] };
  let whole: StoredScanView;

  beforeAll(async () => {
    fleet = await startTestFleet({ seed: 31, accounts: 3, regions: ['cn-hangzhou', 'cn-beijing'], clusters: 6 }, { qpsPerAccount: 20, maxConcurrentPerAccount: 4 });
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    local = await localScan(fleet.config, NOW);
    // The fleet must exercise the checks in several accounts and regions, or equality would prove little.
    expect(local.findings.length).toBeGreaterThan(5);
    expect(new Set(local.findings.map((f) => `${f.resource.accountId}/${f.resource.regionId}`)).size).toBeGreaterThan(3);
    whole = await scan(uniquePrefix('whole'), { analyzeShards: false });
  }, 600_000);

  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  function startWorkers(n: number, prefix: string, options: Partial<WorkerOptions> = {}): Promise<RunningWorker[]> {
    return startInProcessWorkers(n, { databaseUrl: db.url, prefix, config: fleet.config }, { concurrency: { crawl: 3, analyze: 2 }, ...options });
  }

  async function graphRows(scanId: string): Promise<Record<string, string[]>> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const out: Record<string, string[]> = {};
      for (const t of GRAPH_TABLES) {
        const { rows } = await c.query<Record<string, unknown>>(`SELECT * FROM ${t} WHERE scan_id = $1`, [scanId]);
        out[t] = rows.map(({ scan_id: _s, ...rest }) => JSON.stringify(rest)).sort();
      }
      return out;
    } finally {
      await c.end();
    }
  }

  async function view(outcome: ScanOutcome): Promise<StoredScanView> {
    const latest = await store.snapshots.latest();
    expect(latest?.scanId).toBe(outcome.scan.id);
    return {
      outcome,
      quota: await store.quotaUsage.forScan(outcome.scan.id, SYSTEM_PRINCIPAL),
      graph: await graphRows(outcome.scan.id),
      snapshot: latest!.snapshot,
    };
  }

  /** One distributed scan of the fleet through `workers` in-process workers. */
  async function scan(prefix: string, options: Partial<WorkerOptions> = {}, workers = 2): Promise<StoredScanView> {
    const running = await startWorkers(workers, prefix, options);
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
    try {
      const outcome = await new DistributedScanClient(store, queue).run({ config: fleet.config, now: NOW }, { timeoutMs: 240_000 });
      expect(outcome.scan.status).toBe('succeeded');
      return await view(outcome);
    } finally {
      await queue.close();
      await Promise.all(running.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }

  it('stores what the whole-fleet analysis stores and reports what a local scan reports', async () => {
    const prefix = uniquePrefix('shards');
    const sharded = await scan(prefix, {}, 3);
    const rows = await store.scanShards.listForScan(sharded.outcome.scan.id);
    expect(rows.map((r) => `${r.shardKey}:${r.status}:${r.lead}`)).toEqual(
      shardsOf(fleet.config)
        .map((s) => `region/${s.accountId}/${s.regionId}`)
        .sort()
        .map((k) => `${k}:done:${k.endsWith('/cn-beijing')}`),
    );

    const s = sharded.outcome;
    const w = whole.outcome;
    expect(s.findings).toEqual(w.findings);
    expect(s.findings).toEqual(local.findings);
    expect(s.scan.summary).toEqual(w.scan.summary);
    expect(s.scan.summary).toEqual(local.summary);
    expect(s.scan.coverage).toEqual(w.scan.coverage);
    expect(s.scan.skipped).toEqual(w.scan.skipped);
    expect(s.scan.skipped).toEqual(local.skipped);
    expect(sharded.quota).toEqual(whole.quota);
    expect(sharded.quota.length).toBeGreaterThan(0);
    expect(sharded.graph).toEqual(whole.graph);
    expect(sharded.graph.graph_clusters!.length).toBe(s.scan.summary.clusters);
    // The snapshot loader merges the shards' parts into the whole analysis's snapshot, in its order.
    expect(sharded.snapshot).toEqual(whole.snapshot);
    expect(JSON.stringify(sharded.snapshot)).toBe(JSON.stringify(whole.snapshot));
  }, 600_000);

  it('a shard that fails for good: the scan completes, its region is failed coverage, the other shards stand', async () => {
    const prefix = uniquePrefix('shardfail');
    const victim = { accountId: fleet.config.accounts[1]!.accountId, regionId: 'cn-hangzhou' };
    const running = await startWorkers(1, prefix, { policies: { [JobName.AnalyzeShard]: { attempts: 2, backoffMs: 10 } } });
    const service = running[0]!.app.get(AnalyzeShardService);
    const analyze = service.analyze.bind(service);
    let attempts = 0;
    service.analyze = (cmd: AnalyzeShardCommand) => {
      if (cmd.shard.accountId !== victim.accountId || cmd.shard.regionId !== victim.regionId) return analyze(cmd);
      attempts += 1;
      return Promise.reject(new Error('out of memory (simulated)'));
    };
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
    try {
      const outcome = await new DistributedScanClient(store, queue).run({ config: fleet.config, now: NOW }, { timeoutMs: 240_000 });
      expect(attempts).toBe(2);
      expect(outcome.scan.status).toBe('succeeded');
      const inVictim = (r: { accountId: string; regionId?: string }) => r.accountId === victim.accountId && r.regionId === victim.regionId;
      // Every other shard's findings, none of the failed one's.
      expect(outcome.findings).toEqual(local.findings.filter((f) => !inVictim(f.resource)));
      const failed = outcome.scan.coverage.filter(inVictim);
      expect(failed.length).toBeGreaterThan(0);
      for (const c of failed) {
        expect(c.status).toBe('failed');
        expect(c.errorCode).toBe(SHARD_FAILED_CODE);
        expect(c.message).toContain('out of memory (simulated)');
      }
      // The region's own datasets stand for it; its clusters are unknown, so they are not listed.
      expect(failed.map((c) => c.api).sort()).toEqual(['cs', 'ecs', 'nlb', 'quota-applications', 'quotas', 'slb', 'vpc']);
      expect(outcome.scan.coverage.filter((c) => !inVictim(c))).toEqual(whole.outcome.scan.coverage.filter((c: CoverageEntry) => !inVictim(c)));
      expect(outcome.scan.summary.coverage.failed).toBe(whole.outcome.scan.summary.coverage.failed + failed.length);
      const row = (await store.scanShards.listForScan(outcome.scan.id)).find((r) => r.status === 'failed');
      expect(row?.shardKey).toBe(`region/${victim.accountId}/${victim.regionId}`);
      expect(row?.error).toContain('out of memory (simulated)');

      // Retries of every job of the sharded analysis after the end: explicit `skipped`, nothing written.
      const before = await store.scans.get(outcome.scan.id);
      const run = { scanId: outcome.scan.id, config: fleet.config, now: NOW.toISOString() };
      const app = running[0]!.app;
      expect(await app.get(AnalyzeScanService).analyze(AnalyzeScanCommand.create(run), new Map())).toMatchObject({ status: 'skipped' });
      expect(await analyze(AnalyzeShardCommand.create({ ...run, shard: victim }))).toMatchObject({ status: 'skipped' });
      expect(await app.get(CompleteScanService).complete(CompleteScanCommand.create(run), new Map())).toMatchObject({ status: 'skipped' });
      // The shard flow added again (a retried analyze-scan): the same ids, nothing new runs.
      const counts = async () => ({
        analyze: await queue.queue(QueueName.ScanAnalyze).getJobCounts('completed', 'failed', 'waiting', 'waiting-children'),
        shard: await queue.queue(QueueName.ScanShard).getJobCounts('completed', 'failed', 'waiting'),
      });
      // The scan's outcome is stored before the analyze job that completed it is marked completed in BullMQ: wait
      // until no job of either queue is active, so the counts compared below are final ones.
      await eventually(
        async () =>
          (await queue.queue(QueueName.ScanAnalyze).getActiveCount()) === 0 && (await queue.queue(QueueName.ScanShard).getActiveCount()) === 0,
        30_000,
        'the analysis jobs to settle',
      );
      const jobsBefore = await counts();
      expect(jobsBefore.shard).toEqual({ completed: 5, failed: 1, waiting: 0 });
      await queue.addShardFlow(run, shardsOf(fleet.config).map((shard) => ({ ...run, shard })));
      expect(await counts()).toEqual(jobsBefore);
      expect(await store.scans.get(outcome.scan.id)).toEqual(before);
    } finally {
      await queue.close();
      await Promise.all(running.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }, 600_000);
});
