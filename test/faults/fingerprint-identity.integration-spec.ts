/**
 * Fingerprints from identity only: a CLB / ECS / vSwitch / vServer group is keyed by
 * kind + account + region + id, so losing one cluster's Kubernetes objects (which changes which
 * cluster such a resource is attributed to) changes none of the surviving findings' fingerprints;
 * and the migration rewrites stored fingerprints, merging their first/last-seen history.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprintOf, REGION_SCOPED_KINDS, runAudit } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { Finding } from '@app/domain';
import { findMigrationsDir, Store, SYSTEM_PRINCIPAL } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const SAMPLE = join(__dirname, '../../examples/fleets/sample');
const NOW = new Date('2026-11-22T00:00:00Z');
const identity = (f: Finding) => [f.checkId, f.resource.kind, f.resource.accountId, f.resource.regionId, REGION_SCOPED_KINDS.has(f.resource.kind) ? '' : f.resource.clusterId, f.resource.id].join('|');

/** The fingerprint scheme before this change: the cluster was part of every key. */
function oldFingerprint(f: Finding): string {
  const r = f.resource;
  return createHash('sha256').update(`${f.checkId}\u0000${[r.kind, r.accountId, r.regionId, r.clusterId ?? '', r.id].join('|')}`).digest('hex').slice(0, 32);
}

describe('fingerprints survive the loss of a cluster\'s Kubernetes objects', () => {
  const clusterDirs: string[] = [];
  for (const a of readdirSync(join(SAMPLE, 'accounts')))
    for (const r of readdirSync(join(SAMPLE, 'accounts', a, 'regions'))) {
      const base = join('accounts', a, 'regions', r, 'clusters');
      try {
        for (const c of readdirSync(join(SAMPLE, base))) clusterDirs.push(join(base, c));
      } catch {
        // region without clusters
      }
    }
  const full = runAudit(loadFleetDirectory(SAMPLE), { now: NOW }).findings;
  const byIdentity = new Map(full.map((f) => [identity(f), f.fingerprint]));

  it.each(clusterDirs)('without %s/kubernetes', (clusterDir) => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-no-k8s-'));
    try {
      cpSync(SAMPLE, dir, { recursive: true });
      rmSync(join(dir, clusterDir, 'kubernetes'), { recursive: true, force: true });
      const partial = runAudit(loadFleetDirectory(dir), { now: NOW }).findings;
      let survivors = 0;
      for (const f of partial) {
        const before = byIdentity.get(identity(f));
        if (before === undefined) continue;
        survivors += 1;
        expect(f.fingerprint, `${identity(f)}`).toBe(before);
      }
      expect(survivors).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('region-scoped keys ignore the cluster; cluster-scoped ones keep it', () => {
    const lb = { kind: 'LoadBalancer' as const, id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou' };
    expect(fingerprintOf('LB_ORPHANED', { ...lb, clusterId: 'c-a' })).toBe(fingerprintOf('LB_ORPHANED', lb));
    const svc = { kind: 'Service' as const, id: 'ns/svc', accountId: '1', regionId: 'cn-hangzhou' };
    expect(fingerprintOf('X', { ...svc, clusterId: 'c-a' })).not.toBe(fingerprintOf('X', { ...svc, clusterId: 'c-b' }));
  });
});

describe('migration 1796500000001 rewrites stored fingerprints and merges their history', () => {
  let db: TestDatabase;
  let oldDir: string;
  afterAll(async () => {
    await db?.release();
    if (oldDir) rmSync(oldDir, { recursive: true, force: true });
  });

  it('old fingerprints of one ECS instance under two clusters become one, with the earliest first and latest last sighting', async () => {
    db = await createTestDatabase({ empty: true });
    oldDir = mkdtempSync(join(tmpdir(), 'migrations-old-'));
    const all = findMigrationsDir();
    for (const f of readdirSync(all)) if (f < '1796500000001') cpSync(join(all, f), join(oldDir, f));
    const before = await Store.open({ connectionString: db.url, migrate: true, migrationsDir: oldDir });
    const ecs = (clusterId: string, severity: Finding['severity'] = 'warning') => {
      const f = makeFinding({ checkId: 'ECS_CHECK', severity, resource: { kind: 'EcsInstance', id: 'i-1', clusterId } });
      return { ...f, fingerprint: oldFingerprint(f) };
    };
    const svc = makeFinding({ checkId: 'SVC_CHECK', resource: { kind: 'Service', id: 'ns/a', clusterId: 'c-a' } });
    const svcOld = { ...svc, fingerprint: oldFingerprint(svc) };
    const s1 = await before.scans.create({ source: 'offline', startedAt: new Date('2026-01-01T00:00:00Z') });
    await before.scans.complete(s1.id, { findings: [ecs('c-a'), svcOld], coverage: [makeCoverage()] });
    const s2 = await before.scans.create({ source: 'offline', startedAt: new Date('2026-02-01T00:00:00Z') });
    await before.scans.complete(s2.id, { findings: [ecs('c-b'), svcOld], coverage: [makeCoverage()] });
    const s3 = await before.scans.create({ source: 'offline', startedAt: new Date('2026-03-01T00:00:00Z') });
    // Both attributions in one scan: the most severe stays.
    await before.scans.complete(s3.id, { findings: [ecs('c-a'), ecs('c-b', 'critical')], coverage: [makeCoverage()] });
    await before.close();

    const after = await Store.open({ connectionString: db.url, migrate: true });
    try {
      const expected = fingerprintOf('ECS_CHECK', { kind: 'EcsInstance', id: 'i-1', accountId: '1000000000000001', regionId: 'cn-hangzhou' });
      for (const s of [s1, s2]) {
        const fs = await after.findings.forScan(s.id, SYSTEM_PRINCIPAL);
        expect(fs.map((f) => f.fingerprint).sort()).toEqual([expected, svcOld.fingerprint].sort());
      }
      const [third, ...rest] = await after.findings.forScan(s3.id, SYSTEM_PRINCIPAL);
      expect(rest).toEqual([]);
      expect(third.fingerprint).toBe(expected);
      expect(third.severity).toBe('critical');
      expect(third.firstSeenAt).toBe('2026-01-01T00:00:00.000Z');
      expect(third.lastSeenAt).toBe('2026-03-01T00:00:00.000Z');
      // The Service (cluster-scoped) keeps its fingerprint and history.
      const svcAfter = (await after.findings.forScan(s2.id, SYSTEM_PRINCIPAL)).find((f) => f.checkId === 'SVC_CHECK');
      expect(svcAfter?.firstSeenAt).toBe('2026-01-01T00:00:00.000Z');
      expect(svcAfter?.lastSeenAt).toBe('2026-02-01T00:00:00.000Z');
    } finally {
      await after.close();
    }
  });
});
