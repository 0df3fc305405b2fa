/**
 * Read caches keyed on the store's ReadGeneration (migration 1798100000000, measured by bench:api) on real PostgreSQL:
 * which writes bump which generation, that `findings.list` caches pages of succeeded scans only and never across
 * scopes, and that the cached waiver list still judges expiry at read time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsScope, ALL_ACCOUNTS, Store, type Principal } from '@app/store';
import { makeCoverage, makeFindings } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const A = '1000000000000001';
const B = '1000000000000002';
const scoped = (accounts: string[] | null): Principal => ({
  role: 'viewer',
  kind: 'token',
  tokenId: null,
  accountScope: accounts === null ? ALL_ACCOUNTS : accountsScope(accounts),
});

describe('read generations and the caches keyed on them (integration)', () => {
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

  /** 6 findings in account A and 4 in account B. */
  const twoAccounts = (prefix: string) =>
    makeFindings(10, (i) => ({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: `${prefix}-${i}`, accountId: i < 6 ? A : B } }));

  it('scan completion bumps the findings generation, waiver changes the waivers generation, heartbeats neither', async () => {
    const g0 = await store.generations.current();
    const scan = await store.scans.create({ source: 'offline', fleetName: 'gen' });
    await store.scans.heartbeat(scan.id);
    const g1 = await store.generations.current();
    expect(g1).toEqual(g0);
    await store.scans.complete(scan.id, { findings: twoAccounts('gen'), coverage: [makeCoverage()] });
    const g2 = await store.generations.current();
    expect(g2.findings).toBeGreaterThan(g1.findings);
    expect(g2.waivers).toBe(g1.waivers);
    const w = await store.waiverService.create(
      { checkId: 'CLB_BACKEND_QUOTA', accountId: A, resource: 'gen-*', owner: 'team-net', reason: 'accepted until the NLB move', category: 'accepted-risk' },
      'test',
    );
    const g3 = await store.generations.current();
    expect(g3.waivers).toBeGreaterThan(g2.waivers);
    expect(g3.findings).toBe(g2.findings);
    await store.waiverService.revoke(w.id, 'test');
    expect((await store.generations.current()).waivers).toBeGreaterThan(g3.waivers);
  });

  it('pages of a succeeded scan are served from the cache while the generation holds, fresh under the next one', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'cached' });
    await store.scans.complete(scan.id, { findings: twoAccounts('first'), coverage: [makeCoverage()] });
    const gen = await store.generations.current();
    const first = await store.findings.list({ scanId: scan.id }, scoped(null), gen);
    expect(first.total).toBe(10);
    expect(first.items.every((f) => f.resource.id.startsWith('first-'))).toBe(true);

    // Completing a succeeded scan again replaces its findings (and bumps the generation).
    await store.scans.complete(scan.id, { findings: twoAccounts('second').slice(0, 7), coverage: [makeCoverage()] });
    // Under the old generation object the cached page answers (proof the cache is used)...
    expect(await store.findings.list({ scanId: scan.id }, scoped(null), gen)).toBe(first);
    // ...and a request reading the generation now sees the new findings.
    const fresh = await store.findings.list({ scanId: scan.id }, scoped(null), await store.generations.current());
    expect(fresh.total).toBe(7);
    expect(fresh.items.every((f) => f.resource.id.startsWith('second-'))).toBe(true);
    // Without a generation nothing is cached.
    expect((await store.findings.list({ scanId: scan.id }, scoped(null))).total).toBe(7);
  });

  it('pages of a running scan are never cached', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'running' });
    const gen = await store.generations.current();
    const running = await store.findings.list({ scanId: scan.id }, scoped(null), gen);
    expect(running.items).toEqual([]);
    expect(running.total).toBe(0);
    await store.scans.complete(scan.id, { findings: twoAccounts('run'), coverage: [makeCoverage()] });
    // Even under the generation read while it ran, the scan's findings show: its empty page was not kept.
    const after = await store.findings.list({ scanId: scan.id }, scoped(null), gen);
    expect(after.total).toBe(10);
  });

  it('a cached page is never served to another scope', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'scopes' });
    await store.scans.complete(scan.id, { findings: twoAccounts('scope'), coverage: [makeCoverage()] });
    const gen = await store.generations.current();
    const all = await store.findings.list({ scanId: scan.id }, scoped(null), gen);
    const onlyA = await store.findings.list({ scanId: scan.id }, scoped([A]), gen);
    const onlyB = await store.findings.list({ scanId: scan.id }, scoped([B]), gen);
    const both = await store.findings.list({ scanId: scan.id }, scoped([B, A]), gen);
    expect(all.total).toBe(10);
    expect(onlyA.total).toBe(6);
    expect(onlyA.items.every((f) => f.resource.accountId === A)).toBe(true);
    expect(onlyB.total).toBe(4);
    expect(onlyB.items.every((f) => f.resource.accountId === B)).toBe(true);
    expect(both.total).toBe(10);
    // Same scope (ids in another order): the same cached answer.
    expect(await store.findings.list({ scanId: scan.id }, scoped([A, B]), gen)).toBe(both);
    // Filters and paging are part of the key too.
    const page2 = await store.findings.list({ scanId: scan.id, limit: 3 }, scoped([A]), gen);
    expect(page2.items).toHaveLength(3);
    const next = await store.findings.list({ scanId: scan.id, limit: 3, cursor: page2.nextCursor! }, scoped([A]), gen);
    expect(next.items.map((f) => f.fingerprint)).not.toEqual(page2.items.map((f) => f.fingerprint));
    expect(next.total).toBeNull();
  });

  it('the default (latest succeeded) scan follows the generation', async () => {
    const gen = await store.generations.current();
    const before = await store.findings.list({}, scoped(null), gen);
    const scan = await store.scans.create({ source: 'offline', fleetName: 'latest' });
    await store.scans.complete(scan.id, { findings: twoAccounts('latest').slice(0, 3), coverage: [makeCoverage()] });
    const now = await store.findings.list({}, scoped(null), await store.generations.current());
    expect(now.scanId).toBe(scan.id);
    expect(now.scanId).not.toBe(before.scanId);
    expect(now.total).toBe(3);
  });

  it('the cached waiver list: a new waiver shows at once, expiry is judged at read time', async () => {
    const scope = scoped([A]);
    const t0 = new Date();
    const gen0 = await store.generations.current();
    const resource = { kind: 'LoadBalancer' as const, id: 'exp-1', accountId: A, regionId: 'cn-hangzhou' };
    expect((await store.waiverService.matcher(t0, scope, gen0)).statusOf('CLB_BACKEND_QUOTA', resource).status).toBe('open');
    const w = await store.waiverService.create(
      { checkId: 'CLB_BACKEND_QUOTA', accountId: A, resource: 'exp-*', owner: 'team-net', reason: 'accepted until the NLB move', category: 'accepted-risk', expiresAt: new Date(t0.getTime() + 3_600_000).toISOString() },
      'test',
      t0,
    );
    const gen1 = await store.generations.current();
    expect((await store.waiverService.matcher(t0, scope, gen1)).statusOf('CLB_BACKEND_QUOTA', resource)).toMatchObject({ status: 'waived', waiver: { id: w.id } });
    // Same generation, two hours later: the cached waiver has expired.
    const later = new Date(t0.getTime() + 7_200_000);
    expect((await store.waiverService.matcher(later, scope, gen1)).statusOf('CLB_BACKEND_QUOTA', resource).status).toBe('waiver-expired');
    // Another scope never sees it (a waiver of account A).
    expect((await store.waiverService.matcher(t0, scoped([B]), gen1)).statusOf('CLB_BACKEND_QUOTA', { ...resource, accountId: B }).status).toBe('open');
    await store.waiverService.revoke(w.id, 'test');
    expect((await store.waiverService.matcher(t0, scope, await store.generations.current())).statusOf('CLB_BACKEND_QUOTA', resource).status).toBe('open');
  });
});
