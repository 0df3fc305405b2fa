/**
 * No secret in Redis. A distributed scan of the simulator's fleet submitted with
 * the simulator's config (a literal AccessKey, as `fleet-audit sim` writes it) runs on a worker
 * that knows the same config by name; afterwards every key of the test's prefixes (BullMQ's and
 * Bottleneck's, every type) is read whole and holds neither the AccessKey secret nor its id. A
 * worker without that config, or a job naming another endpoint, fails the scan with one reason
 * naming the config and its accounts, and leaves no secret behind either (failed jobs stay 7 days).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import IORedis from 'ioredis';
import type { ScanConfig } from '@app/collectors';
import { BullScanJobQueue, DistributedScanClient, type PlanScanPayload } from '@app/queue';
import { Store } from '@app/store';
import { startWorker, type RunningWorker } from '@app/worker';
import { scanRedisForSecrets } from '../../bench/chaos/redis-secrets';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, SHARED_REDIS_URL, startTestFleet, uniquePrefix, type TestFleet } from './worker-test.util';

const NOW = new Date('2026-06-01T00:00:00.000Z');

describe('no secret in Redis after distributed scans', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;
  let secrets: string[];
  const prefixes: string[] = [];

  beforeAll(async () => {
    fleet = await startTestFleet({ seed: 5, accounts: 2, regions: ['cn-hangzhou'], clusters: 3 });
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    const c = fleet.config.credentials;
    expect(c?.accessKeyId && c.accessKeySecret, 'the simulator config holds a literal AccessKey').toBeTruthy();
    secrets = [c?.accessKeySecret ?? '', c?.accessKeyId ?? ''];
  });

  afterAll(async () => {
    for (const p of prefixes) await deletePrefix(SHARED_REDIS_URL, p);
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  function worker(prefix: string, sources: { name: string; config: ScanConfig }[]): Promise<RunningWorker> {
    return startWorker({
      databaseUrl: db.url,
      redisUrl: SHARED_REDIS_URL,
      prefix,
      concurrency: { crawl: 3 },
      schedule: false,
      reconcile: false,
      logger: false,
      shutdownGraceMs: 1_000,
      sources,
    });
  }

  async function scanOn(prefix: string, config: ScanConfig): Promise<{ payload: PlanScanPayload; status: string; error?: string }> {
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
    try {
      const client = new DistributedScanClient(store, queue);
      const payload = await client.submit({ config, now: NOW });
      const scan = await client.waitFor(payload, { timeoutMs: 120_000, pollIntervalMs: 200 });
      return { payload, status: scan.status, ...(scan.error ? { error: scan.error } : {}) };
    } finally {
      await queue.close();
    }
  }

  async function secretsIn(prefix: string) {
    return scanRedisForSecrets(SHARED_REDIS_URL, [`${prefix}:*`, `b_${prefix}:*`], secrets);
  }

  it('the search itself finds a secret planted in any type of key (control)', async () => {
    const prefix = uniquePrefix('secret-ctl');
    prefixes.push(prefix);
    const redis = new IORedis(SHARED_REDIS_URL);
    try {
      await redis.hset(`${prefix}:h`, 'data', JSON.stringify({ config: { credentials: { accessKeySecret: secrets[0] } } }));
      await redis.set(`${prefix}:s`, `x${secrets[1]}y`);
      await redis.rpush(`${prefix}:l`, 'a', secrets[0]);
      await redis.zadd(`${prefix}:z`, 1, secrets[1]);
      await redis.xadd(`${prefix}:x`, '*', 'event', secrets[0]);
      await redis.sadd(`b_${prefix}:set`, secrets[1]);
      const found = await secretsIn(prefix);
      expect(found.hits.map((h) => `${h.type}:${h.secret}`).sort()).toEqual(
        ['hash:0', 'list:0', 'set:1', 'stream:0', 'string:1', 'zset:1'].sort(),
      );
    } finally {
      redis.disconnect();
    }
  });

  it('a distributed scan with an inline AccessKey: the job names the config, the worker resolves it, Redis holds neither secret', async () => {
    const prefix = uniquePrefix('secret-ok');
    prefixes.push(prefix);
    const w = await worker(prefix, [{ name: fleet.config.name, config: fleet.config }]);
    try {
      const { payload, status, error } = await scanOn(prefix, fleet.config);
      expect(error).toBeUndefined();
      expect(status).toBe('succeeded');
      // The payload kept in memory (to re-plan a lost scan) is converted too.
      expect(payload.config.credentials).toBeUndefined();
      expect(payload.credentialsSource).toBe(fleet.config.name);
      expect(JSON.stringify(payload)).not.toContain(secrets[0]);
    } finally {
      await w.close();
    }
    const found = await secretsIn(prefix);
    // The scan left jobs (hashes), their state lists/zsets and events (streams) to search.
    expect(found.keysByType.hash ?? 0).toBeGreaterThan(3);
    expect((found.keysByType.zset ?? 0) + (found.keysByType.list ?? 0)).toBeGreaterThan(0);
    expect(found.keysByType.stream ?? 0).toBeGreaterThan(0);
    expect(found.hits).toEqual([]);
  });

  it('a worker without that config fails the scan with one reason naming the config and its accounts; no secret in Redis', async () => {
    const prefix = uniquePrefix('secret-nosrc');
    prefixes.push(prefix);
    const w = await worker(prefix, []);
    try {
      const { status, error } = await scanOn(prefix, fleet.config);
      expect(status).toBe('failed');
      expect(error).toContain(`scan config "${fleet.config.name}" has an inline AccessKey, which is never put on the queue`);
      for (const a of fleet.config.accounts) expect(error).toContain(a.accountId);
      expect(error).toContain('SCAN_CONFIGS');
      expect(error).not.toContain('\n');
    } finally {
      await w.close();
    }
    expect((await secretsIn(prefix)).hits).toEqual([]);
  });

  it('a job naming another endpoint is refused: the AccessKey signs only for the endpoint of its own file', async () => {
    const prefix = uniquePrefix('secret-endpoint');
    prefixes.push(prefix);
    const w = await worker(prefix, [{ name: fleet.config.name, config: fleet.config }]);
    try {
      const elsewhere: ScanConfig = { ...fleet.config, alibabaCloud: { ...fleet.config.alibabaCloud, endpoint: '127.0.0.1:9' } };
      const { status, error } = await scanOn(prefix, elsewhere);
      expect(status).toBe('failed');
      expect(error).toContain('refusing to sign requests to it');
    } finally {
      await w.close();
    }
    expect((await secretsIn(prefix)).hits).toEqual([]);
  });
});
