/**
 * libs/store on the real PostgreSQL at 127.0.0.1:5432: scans, findings, fingerprints, paging,
 * transactions and chunking. The file has a database of its own (global state such as "latest
 * succeeded scan" must not see other files' rows).
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FINDING_ROWS_PER_INSERT,
  MAX_BIND_PARAMETERS,
  accountsScope,
  Store,
  StoreError,
  type StoredFinding,
  SYSTEM_PRINCIPAL,
} from '@app/store';
import type { Finding } from '@app/domain';
import { createTestDatabase, type TestDatabase } from './test-database.util';
import { makeCoverage, makeFinding, makeFindings } from './finding.factory';

/** The stored form of a finding: the same fields plus first/last seen. */
function withoutSeen(f: StoredFinding): Finding {
  const copy: Finding & Partial<Pick<StoredFinding, 'firstSeenAt' | 'lastSeenAt'>> = { ...f };
  delete copy.firstSeenAt;
  delete copy.lastSeenAt;
  return copy;
}

async function expectStoreError(p: Promise<unknown>, code: StoreError['code']): Promise<StoreError> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StoreError);
  expect((e as StoreError).code).toBe(code);
  return e as StoreError;
}

describe('Store (PostgreSQL)', () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });

  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it('migrates once: a second run applies nothing and the tables exist', async () => {
    expect(await store.migrate()).toEqual([]);
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const tables = await c.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
      );
      // Later migrations add tables of their own (tokens, waivers, reports, ...): this asserts the core
      // ones exist, and `migrate()` returning [] above asserts every migration file was applied.
      expect(tables.rows.map((r) => r.tablename)).toEqual(
        expect.arrayContaining(['api_token_events', 'api_tokens', 'finding_fingerprints', 'findings', 'pgmigrations', 'quota_usage', 'scan_targets', 'scans']),
      );
    } finally {
      await c.end();
    }
  });

  it('creates a running scan, completes it with findings, and reads it back', async () => {
    const startedAt = new Date('2026-01-05T10:00:00.000Z');
    const created = await store.scans.create({ source: 'offline', fleetName: 'demo', startedAt, settings: { warnAt: 0.8 } });
    expect(created).toMatchObject({
      status: 'running',
      source: 'offline',
      fleetName: 'demo',
      startedAt: startedAt.toISOString(),
      finishedAt: null,
      error: null,
      summary: null,
      coverage: null,
      skipped: null,
      settings: { warnAt: 0.8 },
    });

    const findings = [
      makeFinding({ severity: 'critical', ratio: 0.975, used: 195, resource: { id: 'lb-crit' } }),
      makeFinding({ resource: { id: 'lb-warn', namespace: 'web', name: 'frontend' }, figures: { services: 3, note: 'x' } }),
      makeFinding({
        checkId: 'ccm-version',
        severity: 'info',
        used: undefined,
        limit: undefined,
        ratio: undefined,
        resource: { kind: 'Cluster', id: 'c-alpha', clusterId: 'c-alpha' },
      }),
    ];
    const coverage = [makeCoverage(), makeCoverage({ api: 'ecs', status: 'failed', errorCode: 'Forbidden.RAM', message: 'no permission' })];
    const finishedAt = new Date('2026-01-05T10:05:00.000Z');
    const skipped = [
      {
        checkId: 'CCM_RAM_PERMISSION_GAP',
        resource: { kind: 'Cluster' as const, id: 'c-beta', accountId: '1234567890123456', regionId: 'cn-hangzhou', clusterId: 'c-beta' },
        reason: 'RAM of account 1234567890123456 was not read (Forbidden.RAM)',
      },
    ];
    const lb = (id: string) => ({ kind: 'LoadBalancer' as const, id, accountId: '1234567890123456', regionId: 'cn-hangzhou' });
    const quotaUsage = [
      { checkId: 'CLB_BACKEND_QUOTA', resource: lb('lb-crit'), used: 195, limit: 200, ratio: 0.975 },
      { checkId: 'CLB_BACKEND_QUOTA', resource: lb('lb-low'), used: 12, limit: 200, ratio: 0.06 },
      { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: { ...lb('i-node1'), kind: 'EcsInstance' as const, clusterId: 'c-alpha' }, used: 42, limit: 50, ratio: 0.84 },
    ];
    const done = await store.scans.complete(created.id, { findings, coverage, skipped, quotaUsage, finishedAt });
    // Quota samples round-trip (numbers as numbers), highest ratio first, filtered by a floor.
    expect(await store.quotaUsage.forScan(created.id, SYSTEM_PRINCIPAL)).toEqual([quotaUsage[0], quotaUsage[2], quotaUsage[1]]);
    expect((await store.quotaUsage.forScan(created.id, SYSTEM_PRINCIPAL, 0.5)).map((q) => q.resource.id)).toEqual(['lb-crit', 'i-node1']);
    expect(await store.quotaUsage.statsByCheck(created.id, SYSTEM_PRINCIPAL)).toEqual([
      { checkId: 'CLB_BACKEND_QUOTA', resources: 2, maxRatio: 0.975 },
      { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resources: 1, maxRatio: 0.84 },
    ]);
    expect(await store.findings.countsByCheckAndSeverity(created.id, SYSTEM_PRINCIPAL)).toEqual([
      { checkId: 'ccm-version', severity: 'info', count: 1 },
      { checkId: 'clb-backend-quota', severity: 'critical', count: 1 },
      { checkId: 'clb-backend-quota', severity: 'warning', count: 1 },
    ]);

    expect(done).toMatchObject({
      id: created.id,
      status: 'succeeded',
      finishedAt: finishedAt.toISOString(),
      coverage,
      skipped,
      summary: { findings: 3, bySeverity: { info: 1, warning: 1, critical: 1 }, byCheck: { 'ccm-version': 1, 'clb-backend-quota': 2 } },
    });
    expect(await store.scans.get(created.id)).toEqual(done);
    expect((await store.scans.latestSucceeded(SYSTEM_PRINCIPAL))?.id).toBe(created.id);

    const page = await store.findings.list({ scanId: created.id }, SYSTEM_PRINCIPAL);
    expect(page.total).toBe(3);
    expect(page.scanId).toBe(created.id);
    // Most severe first; every field round-trips, numbers as JS numbers, optional ones absent.
    expect(page.items.map((f) => f.severity)).toEqual(['critical', 'warning', 'info']);
    expect(page.items.map(withoutSeen)).toEqual([findings[0], findings[1], findings[2]]);
    expect(typeof page.items[0].ratio).toBe('number');
    expect(page.items[0].ratio).toBe(0.975);
    expect(page.items[2]).not.toHaveProperty('used');
    expect(page.items.every((f) => f.firstSeenAt === startedAt.toISOString() && f.lastSeenAt === startedAt.toISOString())).toBe(true);

    const listed = await store.scans.list({ limit: 10 }, SYSTEM_PRINCIPAL);
    expect(listed.items.find((s) => s.id === created.id)).toMatchObject({ status: 'succeeded', fleetName: 'demo' });
    expect(listed.items[0]).not.toHaveProperty('coverage');
  });

  it("reads a scan's quotas of highest use (the report's list): the first N by ratio with the ties at the cut, within accounts and scope", async () => {
    const created = await store.scans.create({ source: 'offline', fleetName: 'highest', startedAt: new Date('2026-01-06T10:00:00.000Z') });
    const lb = (accountId: string, id: string) => ({ kind: 'LoadBalancer' as const, id, accountId, regionId: 'cn-hangzhou' });
    const A = '1000000000000001';
    const B = '1000000000000002';
    const sample = (accountId: string, id: string, used: number) => ({ checkId: 'CLB_BACKEND_QUOTA', resource: lb(accountId, id), used, limit: 200, ratio: used / 200 });
    const quotaUsage = [
      sample(A, 'lb-a90', 180),
      sample(A, 'lb-a80-x', 160),
      sample(A, 'lb-a80-y', 160),
      sample(A, 'lb-a80-z', 160),
      sample(A, 'lb-a50', 100),
      sample(A, 'lb-a10', 20),
      sample(B, 'lb-b95', 190),
      sample(B, 'lb-b30', 60),
    ];
    await store.scans.complete(created.id, { findings: [], coverage: [makeCoverage()], quotaUsage });
    const all = await store.quotaUsage.forScan(created.id, SYSTEM_PRINCIPAL);
    const ids = (samples: readonly { resource: { id: string } }[]) => samples.map((q) => q.resource.id);
    // The third highest is one of three at 0.8: all three are read, in forScan's order.
    const top3 = await store.quotaUsage.highestForScan(created.id, SYSTEM_PRINCIPAL, 3);
    expect(top3).toEqual(all.filter((q) => q.ratio >= 0.8));
    expect(ids(top3)).toEqual(['lb-b95', 'lb-a90', 'lb-a80-x', 'lb-a80-y', 'lb-a80-z']);
    expect(ids(await store.quotaUsage.highestForScan(created.id, SYSTEM_PRINCIPAL, 1))).toEqual(['lb-b95']);
    // Within a report's accounts, and within a principal's.
    expect(ids(await store.quotaUsage.highestForScan(created.id, SYSTEM_PRINCIPAL, 2, [A]))).toEqual(['lb-a90', 'lb-a80-x', 'lb-a80-y', 'lb-a80-z']);
    const scopeB = { accountScope: accountsScope([B]) };
    expect(ids(await store.quotaUsage.highestForScan(created.id, scopeB, 5))).toEqual(['lb-b95', 'lb-b30']);
    expect(await store.quotaUsage.highestForScan(created.id, scopeB, 5, [A])).toEqual([]);
    // Fewer samples than asked: every one.
    expect(await store.quotaUsage.highestForScan(created.id, SYSTEM_PRINCIPAL, 100)).toEqual(all);
    await expect(store.quotaUsage.highestForScan(created.id, SYSTEM_PRINCIPAL, 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // The forecast history of the quotas at or above a floor, for everyone and within a principal's accounts.
    const history = await store.quotaUsage.historyOfHighest(created.id, [created.id], 0.5);
    expect(ids(history).sort()).toEqual(['lb-a50', 'lb-a80-x', 'lb-a80-y', 'lb-a80-z', 'lb-a90', 'lb-b95']);
    expect(ids(await store.quotaUsage.historyOfHighest(created.id, [created.id], 0.5, scopeB))).toEqual(['lb-b95']);
  });

  it('reads quota history per series: samples in time order whatever the completion order, the latest cluster named, filters', async () => {
    const at = (h: number) => new Date(Date.parse('2026-02-01T00:00:00.000Z') + h * 3_600_000 + 285);
    const lb = (id: string, clusterId?: string) => ({ kind: 'LoadBalancer' as const, id, accountId: '1000000000000009', regionId: 'cn-shanghai', ...(clusterId ? { clusterId } : {}) });
    // Completed in the order 2, 0, 1; the middle scan's sample names no cluster, the latest names c-new.
    const samples: Record<number, { checkId: string; resource: ReturnType<typeof lb>; used: number; limit: number; ratio: number }[]> = {
      0: [{ checkId: 'CLB_BACKEND_QUOTA', resource: lb('lb-h1', 'c-old'), used: 10.5, limit: 200, ratio: 10.5 / 200 }],
      1: [
        { checkId: 'CLB_BACKEND_QUOTA', resource: lb('lb-h1'), used: 20, limit: 200, ratio: 0.1 },
        { checkId: 'CLB_LISTENER_QUOTA', resource: lb('lb-h1'), used: 3, limit: 50, ratio: 0.06 },
      ],
      2: [{ checkId: 'CLB_BACKEND_QUOTA', resource: lb('lb-h1', 'c-new'), used: 30, limit: 250, ratio: 0.12 }],
    };
    for (const h of [2, 0, 1]) {
      const scan = await store.scans.create({ source: 'offline', fleetName: 'history', startedAt: at(h) });
      await store.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], quotaUsage: samples[h] });
    }
    const window = { since: at(0), until: at(2), accountId: '1000000000000009' };
    expect(await store.quotaUsage.history(window)).toEqual([
      {
        checkId: 'CLB_BACKEND_QUOTA',
        resource: { kind: 'LoadBalancer', id: 'lb-h1', accountId: '1000000000000009', regionId: 'cn-shanghai', clusterId: 'c-new' },
        observations: [
          { at: at(0).getTime(), used: 10.5, limit: 200 },
          { at: at(1).getTime(), used: 20, limit: 200 },
          { at: at(2).getTime(), used: 30, limit: 250 },
        ],
      },
      {
        checkId: 'CLB_LISTENER_QUOTA',
        resource: { kind: 'LoadBalancer', id: 'lb-h1', accountId: '1000000000000009', regionId: 'cn-shanghai', clusterId: null },
        observations: [{ at: at(1).getTime(), used: 3, limit: 50 }],
      },
    ]);
    // One of the two series has samples in two clusters and in none; the listener quota's name none at all.
    expect((await store.quotaUsage.historyWithClusterMix(window)).mixedClusterSeries).toBe(1);
    expect((await store.quotaUsage.historyWithClusterMix({ ...window, since: at(2) })).mixedClusterSeries).toBe(0);
    // The window's bounds are inclusive; a narrower window or another check reads fewer samples.
    const narrow = await store.quotaUsage.history({ ...window, since: at(1), checkId: 'CLB_BACKEND_QUOTA' });
    expect(narrow.map((h) => h.observations.map((o) => o.used))).toEqual([[20, 30]]);
    expect(await store.quotaUsage.history({ ...window, regionId: 'cn-beijing' })).toEqual([]);
  });

  it('measures processing time from the creation of the row, not from a backfilled start', async () => {
    // A backfill: observation time two weeks in the past (`scan --fleet DIR --now ...`).
    const observedAt = new Date(Date.now() - 14 * 86_400_000);
    const t0 = Date.now();
    const scan = await store.scans.create({ source: 'offline', fleetName: 'backfill', startedAt: observedAt });
    expect(scan.processingSeconds).toBeNull();
    const done = await store.scans.complete(scan.id, { findings: [], coverage: [] });
    const elapsed = (Date.now() - t0) / 1000;
    expect(done.startedAt).toBe(observedAt.toISOString());
    expect(done.processingSeconds).not.toBeNull();
    expect(done.processingSeconds!).toBeGreaterThanOrEqual(0);
    expect(done.processingSeconds!).toBeLessThanOrEqual(elapsed + 1);
    // A deferred store creates the row after the analysis and gives the real start.
    const realStart = new Date(Date.now() - 5_000);
    const deferred = await store.scans.create({ source: 'offline', fleetName: 'backfill', startedAt: observedAt, processingStartedAt: realStart });
    const deferredDone = await store.scans.complete(deferred.id, { findings: [], coverage: [] });
    expect(deferredDone.processingSeconds!).toBeGreaterThanOrEqual(4.5);
    expect(deferredDone.processingSeconds!).toBeLessThan(60);
    const listed = (await store.scans.list({ limit: 1000 }, SYSTEM_PRINCIPAL)).items.find((s) => s.id === deferred.id);
    expect(listed?.processingSeconds).toBeCloseTo(deferredDone.processingSeconds!, 3);
  });

  it('creates idempotently with a caller-chosen id', async () => {
    const id = '6f1c1f2e-3b1a-4c59-9a57-6f3c2b7f0a11';
    const first = await store.scans.create({ id, source: 'distributed', fleetName: 'first' });
    const again = await store.scans.create({ id, source: 'live', fleetName: 'second' });
    expect(again).toEqual(first);
    await expectStoreError(store.scans.create({ id: 'not-a-uuid', source: 'live' }), 'INVALID_ARGUMENT');
  });

  it('re-completing a scan is idempotent and replaces its result', async () => {
    const scan = await store.scans.create({ source: 'live', startedAt: new Date('2026-01-06T00:00:00Z') });
    const findings = makeFindings(5);
    await store.scans.complete(scan.id, { findings, coverage: [] });
    const firstRead = await store.findings.list({ scanId: scan.id }, SYSTEM_PRINCIPAL);
    await store.scans.complete(scan.id, { findings, coverage: [] });
    expect(await store.findings.list({ scanId: scan.id }, SYSTEM_PRINCIPAL)).toEqual(firstRead);

    // A retried analysis with a different result leaves exactly the new result.
    await store.scans.complete(scan.id, { findings: findings.slice(0, 2), coverage: [] });
    const after = await store.findings.list({ scanId: scan.id }, SYSTEM_PRINCIPAL);
    expect(after.total).toBe(2);
    expect((await store.scans.get(scan.id))?.summary?.findings).toBe(2);
  });

  it('keeps one finding per fingerprint, the most severe', async () => {
    const scan = await store.scans.create({ source: 'live' });
    const base = makeFinding({ resource: { id: 'lb-dup' } });
    await store.scans.complete(scan.id, {
      findings: [base, { ...base, severity: 'critical', message: 'worse' }, { ...base, severity: 'info' }],
      coverage: [],
    });
    const page = await store.findings.list({ scanId: scan.id }, SYSTEM_PRINCIPAL);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ severity: 'critical', message: 'worse' });
  });

  it('tracks first and last sighting of fingerprints across scans, in any completion order', async () => {
    const t1 = new Date('2026-02-01T00:00:00Z');
    const t2 = new Date('2026-02-08T00:00:00Z');
    const f1 = makeFinding({ checkId: 'seen-test', resource: { id: 'lb-s1' } });
    const f2 = makeFinding({ checkId: 'seen-test', resource: { id: 'lb-s2' } });
    const f3 = makeFinding({ checkId: 'seen-test', resource: { id: 'lb-s3' } });
    const a = await store.scans.create({ source: 'live', startedAt: t1 });
    const b = await store.scans.create({ source: 'live', startedAt: t2 });
    // The later scan finishes first: sightings still follow the scans' start times.
    await store.scans.complete(b.id, { findings: [f2, f3], coverage: [] });
    await store.scans.complete(a.id, { findings: [f1, f2], coverage: [] });

    const seen = (page: { items: StoredFinding[] }) =>
      Object.fromEntries(page.items.map((f) => [f.resource.id, [f.firstSeenAt, f.lastSeenAt]]));
    expect(seen(await store.findings.list({ scanId: b.id, checkId: 'seen-test' }, SYSTEM_PRINCIPAL))).toEqual({
      'lb-s2': [t1.toISOString(), t2.toISOString()],
      'lb-s3': [t2.toISOString(), t2.toISOString()],
    });
    expect(seen(await store.findings.list({ scanId: a.id, checkId: 'seen-test' }, SYSTEM_PRINCIPAL))).toEqual({
      'lb-s1': [t1.toISOString(), t1.toISOString()],
      'lb-s2': [t1.toISOString(), t2.toISOString()],
    });
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const row = await c.query<{ first_scan_id: string; last_scan_id: string }>(
        'SELECT first_scan_id, last_scan_id FROM finding_fingerprints WHERE fingerprint = $1',
        [f2.fingerprint],
      );
      expect(row.rows[0]).toEqual({ first_scan_id: a.id, last_scan_id: b.id });
    } finally {
      await c.end();
    }
  });

  it('filters and pages findings; defaults to the latest succeeded scan', async () => {
    const findings = makeFindings(30, (i) => ({
      checkId: i % 3 === 0 ? 'nodeport-overlap' : 'clb-backend-quota',
      severity: i % 5 === 0 ? 'critical' : 'warning',
      resource: { accountId: i < 20 ? '111' : '222', clusterId: i % 2 === 0 ? 'c-even' : 'c-odd' },
    }));
    const latest = await store.scans.create({ source: 'offline', startedAt: new Date('2030-01-01T00:00:00Z') });
    await store.scans.complete(latest.id, { findings, coverage: [] });
    // A newer scan that is still running, and a newer one that failed, are not "latest succeeded".
    await store.scans.create({ source: 'offline', startedAt: new Date('2030-02-01T00:00:00Z') });
    const failed = await store.scans.create({ source: 'offline', startedAt: new Date('2030-03-01T00:00:00Z') });
    await store.scans.fail(failed.id, 'boom');

    const all = await store.findings.list({}, SYSTEM_PRINCIPAL);
    expect(all.scanId).toBe(latest.id);
    expect(all.total).toBe(30);

    const count = (pred: (f: Finding) => boolean) => findings.filter(pred).length;
    expect((await store.findings.list({ checkId: 'nodeport-overlap' }, SYSTEM_PRINCIPAL)).total).toBe(count((f) => f.checkId === 'nodeport-overlap'));
    expect((await store.findings.list({ severity: 'critical' }, SYSTEM_PRINCIPAL)).total).toBe(count((f) => f.severity === 'critical'));
    expect((await store.findings.list({ accountId: '222' }, SYSTEM_PRINCIPAL)).total).toBe(10);
    const combined = await store.findings.list({ clusterId: 'c-even', severity: 'critical', accountId: '111' }, SYSTEM_PRINCIPAL);
    expect(combined.total).toBe(count((f) => f.resource.clusterId === 'c-even' && f.severity === 'critical' && f.resource.accountId === '111'));
    expect(combined.items.every((f) => f.resource.clusterId === 'c-even' && f.severity === 'critical')).toBe(true);
    expect((await store.findings.list({ checkId: 'no-such-check' }, SYSTEM_PRINCIPAL)).items).toEqual([]);

    // Pages are disjoint, cover everything, and keep the order of the full listing.
    const pages = [];
    for (let offset = 0; offset < 30; offset += 7) pages.push(...(await store.findings.list({ limit: 7, offset }, SYSTEM_PRINCIPAL)).items);
    expect(pages.map((f) => f.fingerprint)).toEqual(all.items.map((f) => f.fingerprint));
    const beyond = await store.findings.list({ limit: 10, offset: 100 }, SYSTEM_PRINCIPAL);
    expect(beyond).toMatchObject({ items: [], total: 30 });

    await expectStoreError(store.findings.list({ limit: 1001 }, SYSTEM_PRINCIPAL), 'INVALID_ARGUMENT');
    await expectStoreError(store.findings.list({ limit: 0 }, SYSTEM_PRINCIPAL), 'INVALID_ARGUMENT');
    await expectStoreError(store.findings.list({ offset: -1 }, SYSTEM_PRINCIPAL), 'INVALID_ARGUMENT');
    await expectStoreError(store.findings.list({ scanId: '00000000-0000-0000-0000-000000000000' }, SYSTEM_PRINCIPAL), 'NOT_FOUND');
    await expectStoreError(store.findings.list({ scanId: 'nope' }, SYSTEM_PRINCIPAL), 'NOT_FOUND');
    expect(await store.findings.forScan(latest.id, SYSTEM_PRINCIPAL)).toEqual((await store.findings.list({ limit: 1000 }, SYSTEM_PRINCIPAL)).items);
  });

  it('pages scans newest first with a total', async () => {
    const all = await store.scans.list({ limit: 1000 }, SYSTEM_PRINCIPAL);
    expect(all.total).toBe(all.items.length);
    const starts = all.items.map((s) => s.startedAt);
    expect([...starts].sort().reverse()).toEqual(starts);
    const second = await store.scans.list({ limit: 2, offset: 2 }, SYSTEM_PRINCIPAL);
    expect(second.items.map((s) => s.id)).toEqual(all.items.slice(2, 4).map((s) => s.id));
    expect(second.total).toBe(all.total);
  });

  it('records a failed scan and refuses contradicting transitions', async () => {
    const scan = await store.scans.create({ source: 'live' });
    const failed = await store.scans.fail(scan.id, 'Throttling.User on every region');
    expect(failed).toMatchObject({ status: 'failed', error: 'Throttling.User on every region', summary: null });
    expect(failed.finishedAt).not.toBeNull();
    const again = await store.scans.fail(scan.id, 'second reason');
    expect(again).toMatchObject({ error: 'second reason', finishedAt: failed.finishedAt });
    await expectStoreError(store.scans.complete(scan.id, { findings: [makeFinding()], coverage: [] }), 'CONFLICT');
    expect((await store.findings.list({ scanId: scan.id }, SYSTEM_PRINCIPAL)).total).toBe(0);

    const ok = await store.scans.create({ source: 'live' });
    await store.scans.complete(ok.id, { findings: [], coverage: [] });
    await expectStoreError(store.scans.fail(ok.id, 'late duplicate job'), 'CONFLICT');
    expect((await store.scans.get(ok.id))?.status).toBe('succeeded');

    await expectStoreError(store.scans.fail('00000000-0000-4000-8000-000000000000', 'x'), 'NOT_FOUND');
    await expectStoreError(store.scans.complete('bogus', { findings: [], coverage: [] }), 'NOT_FOUND');
    expect(await store.scans.get('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await store.scans.get('not-a-uuid')).toBeNull();
  });

  it('inserts more findings than one statement can bind, in chunks, in one transaction', async () => {
    const n = 5_000; // 5000 rows x 18 columns = 90,000 parameters > 65,535
    expect(n * 18).toBeGreaterThan(MAX_BIND_PARAMETERS);
    expect(FINDING_ROWS_PER_INSERT * 19).toBeLessThanOrEqual(MAX_BIND_PARAMETERS);
    const scan = await store.scans.create({ source: 'distributed' });
    await store.scans.complete(scan.id, { findings: makeFindings(n), coverage: [] });
    expect((await store.findings.list({ scanId: scan.id, limit: 1 }, SYSTEM_PRINCIPAL)).total).toBe(n);
    expect((await store.scans.get(scan.id))?.summary?.findings).toBe(n);
  });

  it('completes scans concurrently that share fingerprints (no deadlock, sightings consistent)', async () => {
    const shared = makeFindings(2_000, () => ({ checkId: 'concurrent-test' }));
    // Each scan gets the findings in a different order (rotated, every other one reversed).
    const shuffled = (i: number) => {
      const rotated = [...shared.slice(i * 500), ...shared.slice(0, i * 500)];
      return i % 2 === 0 ? rotated : rotated.reverse();
    };
    const scans = await Promise.all(
      [0, 1, 2, 3].map((i) => store.scans.create({ source: 'distributed', startedAt: new Date(Date.UTC(2027, 0, 1 + i)) })),
    );
    await Promise.all(scans.map((s, i) => store.scans.complete(s.id, { findings: shuffled(i), coverage: [] })));
    const page = await store.findings.list({ scanId: scans[3].id, checkId: 'concurrent-test', limit: 1000 }, SYSTEM_PRINCIPAL);
    expect(page.total).toBe(2_000);
    expect(new Set(page.items.map((f) => `${f.firstSeenAt}|${f.lastSeenAt}`))).toEqual(
      new Set([`${scans[0].startedAt}|${scans[3].startedAt}`]),
    );
  });

  it('writes nothing when completing fails part-way (all or nothing)', async () => {
    const scan = await store.scans.create({ source: 'distributed' });
    const good = makeFindings(FINDING_ROWS_PER_INSERT + 10);
    // The last row violates the severity CHECK: the second chunk fails after the first was written.
    const bad = { ...makeFinding({ resource: { id: 'lb-bad' } }), severity: 'fatal' } as unknown as Finding;
    await expect(store.scans.complete(scan.id, { findings: [...good, bad], coverage: [] })).rejects.toThrow(/severity/);
    const after = await store.scans.get(scan.id);
    expect(after).toMatchObject({ status: 'running', summary: null, coverage: null });
    expect((await store.findings.list({ scanId: scan.id }, SYSTEM_PRINCIPAL)).total).toBe(0);
  });

  it('reports an unreachable server as UNAVAILABLE without the password', async () => {
    const e = await expectStoreError(
      Store.open({ connectionString: 'postgres://postgres:s3cret-pw@127.0.0.1:1/nodb' }),
      'UNAVAILABLE',
    );
    expect(e.message).toContain('127.0.0.1:1');
    expect(e.message).not.toContain('s3cret-pw');
  });
});
