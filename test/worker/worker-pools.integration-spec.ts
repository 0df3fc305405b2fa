/**
 * Worker pools by network reach, end to end on real Redis (unique prefix), real PostgreSQL and the simulator
 * serving the sample fleet, whose six clusters have only an intranet API server endpoint, each in its own VPC:
 * a central pool declares four of the VPCs (WORKER_REACH), a second pool the other two. A distributed scan reads
 * every cluster, each cluster's crawl job ran on a worker of its pool (BullMQ queue `scan-crawl.<vpc>`), and the
 * findings equal the offline scan of the same fleet; with the second pool stopped, its clusters are coverage gaps
 * naming the VPC and the fix after the bounded wait, and the rest of the scan completes.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScan } from '@app/audit';
import { loadScanConfig, readFleetDirectory, type ScanConfig } from '@app/collectors';
import type { Finding } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { BullScanJobQueue, crawlJobId, DistributedScanClient } from '@app/queue';
import { Store } from '@app/store';
import type { RunningWorker } from '@app/worker';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, fingerprintsOf, SHARED_REDIS_URL, startInProcessWorkers, uniquePrefix } from './worker-test.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-28T00:00:00.000Z');

/** The sample fleet's clusters by id: account, region and VPC (cluster.json `vpc_id`). */
interface SampleCluster {
  accountId: string;
  regionId: string;
  clusterId: string;
  vpcId: string;
}

describe('worker pools by network reach', () => {
  let sim: RunningSimulator;
  let db: TestDatabase;
  let store: Store;
  let config: ScanConfig;
  let offline: Finding[];
  let clusters: SampleCluster[];
  let central: string[];
  let remote: string[];

  beforeAll(async () => {
    const fleet = readFleetDirectory(SAMPLE);
    clusters = fleet.accounts.flatMap((a) =>
      a.regions.flatMap((r) =>
        r.clusters.map((c) => ({ accountId: a.account.accountId, regionId: r.regionId, clusterId: c.detail.cluster_id, vpcId: c.detail.vpc_id ?? '' })),
      ),
    );
    expect(new Set(clusters.map((c) => c.vpcId)).size).toBe(6);
    const vpcs = clusters.map((c) => c.vpcId).sort();
    central = vpcs.slice(0, 4);
    remote = vpcs.slice(4);
    sim = await startSimulator({ fleet });
    const base = loadScanConfig(sim.configPath);
    config = { ...base, collector: { ...base.collector, retryBaseDelayMs: 10, retryMaxDelayMs: 200 } };
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    offline = (await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW })).findings;
    expect(offline.length).toBeGreaterThan(5);
  });

  afterAll(async () => {
    await store?.close();
    await sim?.close();
    await db?.release();
  });

  const startPools = async (prefix: string, pools: { name: string; reach: string[] }[], reachWaitMs: number): Promise<RunningWorker[]> =>
    (
      await Promise.all(
        pools.map((p) =>
          startInProcessWorkers(1, { databaseUrl: db.url, prefix, config }, { reach: p.reach, reachWaitMs, name: `${prefix}-${p.name}` }),
        ),
      )
    ).flat();

  const run = async (prefix: string, reachWaitMs: number) => {
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix, reachWaitMs });
    try {
      const outcome = await new DistributedScanClient(store, queue).run({ config, now: NOW }, { timeoutMs: 180_000 });
      // Who ran each cluster's crawl (BullMQ `processedBy`: the worker's name), read before the queue closes.
      const ranBy = new Map<string, string | undefined>();
      for (const c of clusters) {
        const job = await queue.poolQueue(c.vpcId).getJob(crawlJobId(outcome.scan.id, { kind: 'cluster', ...c }));
        ranBy.set(c.clusterId, job?.processedBy);
      }
      return { outcome, ranBy };
    } finally {
      await queue.close();
    }
  };

  it('two pools read every cluster, each cluster on a worker of its pool; findings equal the offline scan', async () => {
    const prefix = uniquePrefix('pools');
    const workers = await startPools(prefix, [{ name: 'central', reach: central }, { name: 'remote', reach: remote }], 120_000);
    try {
      const { outcome, ranBy } = await run(prefix, 120_000);
      expect(outcome.scan.status).toBe('succeeded');
      expect(outcome.scan.coverage.filter((c) => c.status === 'failed')).toEqual([]);
      for (const c of clusters) expect(ranBy.get(c.clusterId), c.clusterId).toBe(`${prefix}-${remote.includes(c.vpcId) ? 'remote' : 'central'}`);
      expect(fingerprintsOf(outcome.findings)).toEqual(fingerprintsOf(offline));
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('with the second pool stopped, its clusters become gaps naming the VPC and the fix; the rest completes', async () => {
    const prefix = uniquePrefix('pools-down');
    const workers = await startPools(prefix, [{ name: 'central', reach: central }], 1_500);
    try {
      const { outcome, ranBy } = await run(prefix, 1_500);
      expect(outcome.scan.status).toBe('succeeded');
      const failed = outcome.scan.coverage.filter((c) => c.status === 'failed');
      const stranded = clusters.filter((c) => remote.includes(c.vpcId));
      expect(new Set(failed.map((f) => f.clusterId))).toEqual(new Set(stranded.map((c) => c.clusterId)));
      for (const f of failed) {
        const vpc = stranded.find((c) => c.clusterId === f.clusterId)?.vpcId ?? '';
        expect(f.errorCode).toBe('NoWorkerReaches');
        expect(f.message).toContain(`no worker reaches ${vpc}`);
        expect(f.message).toContain(`WORKER_REACH=${vpc}`);
      }
      for (const c of clusters.filter((x) => central.includes(x.vpcId))) expect(ranBy.get(c.clusterId)).toBe(`${prefix}-central`);
      // The stranded clusters' crawls never ran: removed from their pool queue at the deadline.
      for (const c of stranded) expect(ranBy.get(c.clusterId)).toBeUndefined();
      // Findings of what was read are still there.
      expect(outcome.findings.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });
});
