/**
 * The threaded analysis (libs/audit `runThreadedAudit`) against the one-thread analysis of the whole snapshot: the
 * same findings, results, skipped results, coverage and summary, in the same order, byte for byte as JSON, on the
 * sample fleet and on a generated fleet of several accounts and regions written as a fleet directory; a shard that
 * fails names itself and gives no output; at most `threads` shards are analyzed at once. Runs the built thread entry
 * (FLEET_AUDIT_DIST, as test/global-setup.ts builds it).
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyzeSnapshot,
  AUTO_THREADS_MIN_BYTES,
  autoAuditThreads,
  directoryBytes,
  fleetDirectoryAuditShards,
  runScan,
  runThreadedAudit,
  ShardAnalysisError,
  threadedResults,
  type AuditShard,
} from '@app/audit';
import { FleetValidationError, generateFleet, generateSpecSchema, loadFleetDirectory, writeFleetDirectory } from '@app/collectors';
import { QUOTA_USAGE_CHECK_IDS } from '@app/checks';
import { quotaUsageOf } from '@app/domain';

const NOW = new Date('2026-11-22T00:00:00Z');
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

/** JSON of the parts of one analysis that must be equal byte for byte. */
function partsJson(a: { results: unknown[]; findings: unknown[]; skipped: unknown[]; summary: unknown }, coverage: unknown[]): Record<string, string> {
  return {
    results: JSON.stringify(a.results),
    findings: JSON.stringify(a.findings),
    skipped: JSON.stringify(a.skipped),
    summary: JSON.stringify(a.summary),
    coverage: JSON.stringify(coverage),
  };
}

/**
 * The one-thread analysis of the whole directory, and the threaded one on `threads` threads, as `partsJson`; `lean`
 * (with `withLean`): the threaded one without the results' JSON (its shards keep only their skipped results), with the
 * single analysis's results in their place.
 */
async function bothWays(
  dir: string,
  threads: number,
  withLean = true,
): Promise<{ single: Record<string, string>; threaded: Record<string, string>; lean: Record<string, string> | undefined; shards: AuditShard[]; maxInFlight: number }> {
  const snapshot = loadFleetDirectory(dir);
  const single = partsJson(analyzeSnapshot(snapshot, { scanId: 'single', now: NOW, keepResults: true }), snapshot.coverage);
  const shards = fleetDirectoryAuditShards(dir)!;
  const audit = await runThreadedAudit(shards, { threads, now: NOW, resultsJson: true });
  const threaded = partsJson({ ...audit, results: threadedResults(audit) }, audit.coverage);
  if (!withLean) return { single, threaded, lean: undefined, shards, maxInFlight: audit.maxInFlight };
  const leanAudit = await runThreadedAudit(shards, { threads, now: NOW });
  expect(leanAudit.resultsJson).toBeUndefined();
  const lean = partsJson({ ...leanAudit, results: JSON.parse(single.results) as unknown[] }, leanAudit.coverage);
  return { single, threaded, lean, shards, maxInFlight: audit.maxInFlight };
}

describe('threaded analysis', () => {
  let dir: string;
  let fleetDir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fa-threaded-'));
    fleetDir = join(dir, 'fleet');
    // Three accounts of two regions each (six shards), with every planted problem and NLB Services, so that most
    // checks have failures and passes in several shards.
    const spec = generateSpecSchema.parse({
      seed: 7,
      accounts: 3,
      regions: ['cn-beijing', 'cn-hangzhou'],
      clusters: 12,
      nodesPerCluster: 6,
      servicesPerCluster: 6,
      nlbServicesPerCluster: 2,
      ccmVersions: ['v2.12.3', 'v2.10.0', 'v1.9.3.313-g748f81e-aliyun'],
      shares: { orphaned: 0.2, reused: 0.2, misconfigured: 0.3, consoleReused: 0.2, nlbLeakedServerGroups: 0.5 },
    });
    writeFleetDirectory(generateFleet(spec, 'threaded-spec').fleet, fleetDir);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the sample fleet the same output as one thread over the whole snapshot, byte for byte', async () => {
    const { single, threaded, lean, shards } = await bothWays(SAMPLE, 2);
    expect(shards.map((s) => [s.key, s.lead])).toEqual([
      ['region/1234567890123456/cn-beijing', true],
      ['region/1234567890123456/cn-hangzhou', false],
      ['region/1987654321098765/cn-beijing', true],
      ['region/1987654321098765/cn-hangzhou', false],
    ]);
    expect(JSON.parse(single.findings).length).toBeGreaterThan(10);
    expect(threaded).toEqual(single);
    expect(lean).toEqual(single);
  });

  it('gives a generated fleet of three accounts and two regions the same output on 2, 3 and 1 threads', async () => {
    for (const threads of [2, 3, 1]) {
      const { single, threaded, lean, shards, maxInFlight } = await bothWays(fleetDir, threads, threads === 2);
      expect(shards).toHaveLength(6);
      // Shards of every account hold results and findings: the merge interleaves them.
      const findings = JSON.parse(single.findings) as { resource: { accountId: string } }[];
      expect(new Set(findings.map((f) => f.resource.accountId)).size).toBe(3);
      expect(threaded).toEqual(single);
      // Shards that keep only their skipped results place them as the whole analysis orders them.
      expect((JSON.parse(single.skipped) as unknown[]).length).toBeGreaterThan(0);
      if (threads === 2) expect(lean).toEqual(single);
      // At most `threads` shard snapshots exist at once: the memory bound.
      expect(maxInFlight).toBe(threads);
    }
  });

  it('answers the same scan through runScan with threads as with one thread (findings, summary, coverage, skipped)', async () => {
    const one = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW, threads: 1, keepResults: true });
    const two = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW, threads: 2, keepResults: true });
    const pick = (o: typeof one) => JSON.stringify([o.findings, o.results, o.scan.summary, o.scan.coverage, o.scan.skipped, o.scan.fleetName]);
    expect(pick(two)).toBe(pick(one));
    const lean = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW, threads: 2 });
    // Without keepResults the results are not kept; the summary still counts them.
    expect(lean.results).toEqual([]);
    expect(lean.scan.summary).toEqual(one.scan.summary);
    // On one thread without keepResults: what a stored scan uses, the skipped results and the quota samples.
    const leanOne = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW, threads: 1 });
    expect(leanOne.results).toEqual(one.results.filter((r) => r.status === 'skipped'));
    expect(leanOne.results.length).toBeLessThan(one.results.length);
    expect(leanOne.quotaUsage.length).toBeGreaterThan(0);
    expect(leanOne.quotaUsage).toEqual(quotaUsageOf(one.results, QUOTA_USAGE_CHECK_IDS));
    expect(one.quotaUsage).toEqual(leanOne.quotaUsage);
    expect(two.quotaUsage).toEqual(leanOne.quotaUsage);
    expect(JSON.stringify([leanOne.findings, leanOne.scan])).toBe(JSON.stringify([one.findings, { ...one.scan, id: leanOne.scan.id, startedAt: leanOne.scan.startedAt, finishedAt: leanOne.scan.finishedAt }]));
  });

  it('fails an invalid file of a shard with the error the one-thread read gives, and gives no output', async () => {
    const broken = join(dir, 'broken');
    cpSync(fleetDir, broken, { recursive: true });
    const failing = fleetDirectoryAuditShards(broken)![3]!;
    if (failing.source.kind !== 'directory') throw new Error('a directory shard expected');
    writeFileSync(join(broken, 'accounts', failing.source.accountId, 'regions', failing.source.regionId!, 'load-balancers.json'), '[{"LoadBalancerId": ');
    const single = (() => {
      try {
        loadFleetDirectory(broken);
      } catch (e) {
        return e as Error;
      }
      throw new Error('the broken fleet loaded');
    })();
    expect(single).toBeInstanceOf(FleetValidationError);
    let error: unknown;
    const out = await runThreadedAudit(fleetDirectoryAuditShards(broken)!, { threads: 2, now: NOW }).catch((e: unknown) => {
      error = e;
      return undefined;
    });
    expect(out).toBeUndefined();
    expect(error).toBeInstanceOf(FleetValidationError);
    // The same file, path and expectation; the file's path names the shard's account and region.
    expect((error as Error).message).toBe(single.message);
    expect((error as Error).message).toContain(`accounts/${failing.source.accountId}/regions/${failing.source.regionId}/load-balancers.json`);
    await expect(runScan({ source: { kind: 'offline', fleetDir: broken }, now: NOW, threads: 2 })).rejects.toThrow(single.message);
  });

  it('fails a shard whose thread throws with an error naming the shard, and gives no output', async () => {
    const good = fleetDirectoryAuditShards(fleetDir)!;
    const garbage = join(dir, 'not-a-snapshot.v8');
    writeFileSync(garbage, 'not a serialized snapshot');
    const shards: AuditShard[] = [good[0]!, { key: 'region/9/cn-nowhere', lead: true, source: { kind: 'snapshotFile', file: garbage } }, ...good.slice(1)];
    let error: unknown;
    const out = await runThreadedAudit(shards, { threads: 1, now: NOW }).catch((e: unknown) => {
      error = e;
      return undefined;
    });
    expect(out).toBeUndefined();
    expect(error).toBeInstanceOf(ShardAnalysisError);
    expect((error as ShardAnalysisError).shard).toBe('region/9/cn-nowhere');
    expect((error as Error).message).toMatch(/^shard region\/9\/cn-nowhere failed: /);
  });

  it('chooses one thread for a small fleet directory when no thread count is asked', () => {
    expect(directoryBytes(SAMPLE)).toBeGreaterThan(100_000);
    expect(directoryBytes(SAMPLE)).toBeLessThan(AUTO_THREADS_MIN_BYTES);
    expect(autoAuditThreads(SAMPLE)).toBe(1);
    // Counting stops at the limit asked.
    expect(directoryBytes(SAMPLE, 1)).toBeLessThan(directoryBytes(SAMPLE));
  });
});
