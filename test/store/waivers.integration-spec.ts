/**
 * Waiver lifecycle on real PostgreSQL: create (validated), match at read time (exact and glob,
 * region / cluster scope), expire ("waiver expired"), revoke, stale (matched nothing in the last 2 scans),
 * append-only history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaiverValidationError, type Finding } from '@app/domain';
import { Store, StoreError } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const DAY = 86_400_000;
const T0 = new Date('2026-06-01T00:00:00Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY);
const ACCOUNT = '1000000000000001';

const base = {
  checkId: 'CLB_BACKEND_QUOTA',
  accountId: ACCOUNT,
  resource: 'lb-0001',
  owner: 'team-network',
  reason: 'migrating to NLB next quarter',
  category: 'accepted-risk',
  ticket: 'NET-42',
};

describe('waivers (integration)', () => {
  let db: TestDatabase;
  let store: Store;
  const findings: Finding[] = [
    makeFinding({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: 'lb-0001' } }),
    makeFinding({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: 'lb-0002', clusterId: 'c-beta' } }),
    makeFinding({ checkId: 'LB_ORPHANED', resource: { id: 'lb-orphan-1' }, severity: 'critical' }),
  ];

  async function scanAt(day: number, fs: Finding[]): Promise<string> {
    const scan = await store.scans.create({ source: 'offline', startedAt: at(day) });
    await store.scans.complete(scan.id, { findings: fs, coverage: [makeCoverage()] });
    return scan.id;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });
  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it('validates input: reason length, expiry bounds, category, unknown fields', async () => {
    const svc = store.waiverService;
    await expect(svc.create({ ...base, reason: 'too short' }, 'alice', T0)).rejects.toThrow(/reason must be at least 10 characters/);
    await expect(svc.create({ ...base, expiresAt: at(181).toISOString() }, 'alice', T0)).rejects.toThrow(/expiresAt must be at most 180 days/);
    await expect(svc.create({ ...base, expiresAt: at(-1).toISOString() }, 'alice', T0)).rejects.toThrow(/expiresAt must be in the future/);
    await expect(svc.create({ ...base, category: 'because' }, 'alice', T0)).rejects.toThrow(/category must be one of/);
    await expect(svc.create({ ...base, color: 'red' }, 'alice', T0)).rejects.toBeInstanceOf(WaiverValidationError);
    expect(await store.waivers.list({ includeRevoked: true })).toEqual([]);
  });

  it('defaults the expiry to 90 days, matches exact ids and globs within its scope, and keeps severity', async () => {
    const exact = await store.waiverService.create(base, 'alice', T0);
    expect(exact.expiresAt).toBe(at(90).toISOString());
    expect(exact.createdBy).toBe('alice');
    const glob = await store.waiverService.create(
      { ...base, checkId: 'LB_ORPHANED', resource: 'lb-orphan-*', clusterId: 'c-alpha', expiresAt: at(30).toISOString(), category: 'mitigated' },
      'bob',
      T0,
    );
    const matcher = await store.waiverService.matcher(at(1));
    const applied = findings.map((f) => matcher.apply(f));
    expect(applied.map((f) => [f.resource.id, f.status, f.waiver?.id ?? null, f.severity])).toEqual([
      ['lb-0001', 'waived', exact.id, 'warning'],
      ['lb-0002', 'open', null, 'warning'],
      ['lb-orphan-1', 'waived', glob.id, 'critical'],
    ]);
    // Another cluster or account is out of scope.
    expect(matcher.apply(makeFinding({ checkId: 'LB_ORPHANED', resource: { id: 'lb-orphan-2', clusterId: 'c-other' } })).status).toBe('open');
    expect(matcher.apply(makeFinding({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: 'lb-0001', accountId: '999' } })).status).toBe('open');
  });

  it('expiry brings findings back as "waiver expired"; states move active -> expiring -> expired', async () => {
    await scanAt(0, findings);
    await scanAt(7, findings);
    const states = async (day: number) => Object.fromEntries((await store.waiverService.listWithState(at(day))).map((w) => [w.resource, w.state]));
    expect(await states(8)).toEqual({ 'lb-0001': 'active', 'lb-orphan-*': 'active' });
    expect(await states(20)).toEqual({ 'lb-0001': 'active', 'lb-orphan-*': 'expiring' });
    expect(await states(31)).toEqual({ 'lb-0001': 'active', 'lb-orphan-*': 'expired' });
    const later = await store.waiverService.matcher(at(31));
    const orphan = later.apply(findings[2]);
    expect(orphan.status).toBe('waiver-expired');
    expect(orphan.waiver?.owner).toBe('team-network');
    expect(await store.waiverService.stateCounts(at(31))).toEqual({ active: 1, expiring: 0, expired: 1, stale: 0 });
  });

  it('a waiver matching nothing in the last 2 scans is stale', async () => {
    const unused = await store.waiverService.create({ ...base, resource: 'lb-gone-*', owner: 'team-gone' }, 'carol', at(8));
    // The 2 latest scans (days 0 and 7) have no lb-gone-*: stale; a scan that has one makes it active again.
    expect((await store.waiverService.listWithState(at(9))).find((w) => w.id === unused.id)?.state).toBe('stale');
    await scanAt(14, [...findings, makeFinding({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: 'lb-gone-7' } })]);
    const w = (await store.waiverService.listWithState(at(15))).find((x) => x.id === unused.id);
    expect(w?.state).toBe('active');
    expect(w?.matches.map((m) => m.findings)).toEqual([1, 0]);
  });

  it('updates and revokes with an append-only history; a revoked waiver stops applying at once', async () => {
    const w = await store.waiverService.create({ ...base, resource: 'lb-0002', owner: 'team-a' }, 'dave', at(1));
    expect((await store.waiverService.matcher(at(2))).apply(findings[1]).status).toBe('waived');
    const renewed = await store.waiverService.update(w.id, { owner: 'team-b', expiresAt: at(150).toISOString() }, 'erin', at(2));
    expect(renewed.owner).toBe('team-b');
    await expect(store.waiverService.update(w.id, { expiresAt: at(200).toISOString() }, 'erin', at(2))).rejects.toThrow(/at most 180 days/);
    const revoked = await store.waiverService.revoke(w.id, 'frank', at(3));
    expect(revoked.revokedBy).toBe('frank');
    expect((await store.waiverService.matcher(at(3))).apply(findings[1]).status).toBe('open');
    await expect(store.waiverService.revoke(w.id, 'frank', at(4))).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(store.waiverService.update(w.id, { owner: 'x' }, 'frank', at(4))).rejects.toBeInstanceOf(StoreError);
    const history = await store.waiverService.history(w.id);
    expect(history.map((h) => [h.version, h.action, h.actor, h.waiver.owner])).toEqual([
      [1, 'created', 'dave', 'team-a'],
      [2, 'updated', 'erin', 'team-b'],
      [3, 'revoked', 'frank', 'team-b'],
    ]);
    // The history cannot be rewritten.
    const pg = await import('pg');
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await expect(client.query('DELETE FROM waiver_history')).rejects.toThrow(/append-only/);
      await expect(client.query("UPDATE waiver_history SET actor = 'mallory'")).rejects.toThrow(/append-only/);
    } finally {
      await client.end();
    }
    expect((await store.waivers.list()).some((x) => x.id === w.id)).toBe(false);
    expect((await store.waivers.list({ includeRevoked: true })).some((x) => x.id === w.id)).toBe(true);
  });
});
