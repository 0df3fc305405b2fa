/**
 * REST breadth on a real PostgreSQL: `GET /v1/scans/{id}/diff` (new / resolved /
 * persisting / severityChanged by fingerprint, counts over the token's scope, keyset paging) and
 * `GET /v1/quotas` (used / limit / ratio per check and resource, filters, keyset paging, scope). The
 * expected answers are computed here from the stored inputs (an independent oracle), not hard-coded.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding, QuotaUsageSample } from '@app/domain';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store, type StoredScan } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'rest-breadth-e2e-bootstrap-0123456789';
const KEY = 'rest-breadth-e2e-hash-key-0123456789abcdef-0123';
const A = '1111';
const B = '2222';

/** Finding i of a scan: account A for even i, B for odd; severity as given. */
function finding(i: number, severity: Finding['severity'] = 'warning'): Finding {
  return makeFinding({
    checkId: i % 3 === 0 ? 'NODEPORT_OVERLAP' : 'CLB_BACKEND_QUOTA',
    severity,
    resource: { id: `lb-${String(i).padStart(4, '0')}`, accountId: i % 2 === 0 ? A : B, clusterId: i % 4 < 2 ? 'c-one' : 'c-two' },
  });
}

/** Quota sample i: CLB backend quota of lb-i in account A (even) or B (odd). */
function sample(i: number, used: number): QuotaUsageSample {
  return {
    checkId: i % 5 === 0 ? 'CLB_LISTENER_QUOTA' : 'CLB_BACKEND_QUOTA',
    resource: { kind: 'LoadBalancer', id: `lb-${String(i).padStart(4, '0')}`, accountId: i % 2 === 0 ? A : B, regionId: i % 3 === 0 ? 'cn-beijing' : 'cn-hangzhou', clusterId: 'c-one' },
    used,
    limit: 200,
    ratio: used / 200,
  };
}

type Change = 'new' | 'resolved' | 'persisting' | 'severityChanged';

describe('REST breadth: scan diff and quotas (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let before: StoredScan;
  let after: StoredScan;
  let viewerA: string;
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
  const baseline = Array.from({ length: 30 }, (_, i) => finding(i));
  // Later scan: 0..4 resolved, 5..29 kept (every 7th with a new severity), 30..37 new.
  const current = [...Array.from({ length: 25 }, (_, k) => finding(k + 5, (k + 5) % 7 === 0 ? 'critical' : 'warning')), ...Array.from({ length: 8 }, (_, k) => finding(30 + k))];
  const samples = Array.from({ length: 40 }, (_, i) => sample(i, 100 + ((i * 37) % 100)));

  /** The expected diff over findings passing `keep`, by fingerprint. */
  function expectedDiff(keep: (f: Finding) => boolean): Map<string, Change> {
    const prev = new Map(baseline.filter(keep).map((f) => [f.fingerprint, f]));
    const now = new Map(current.filter(keep).map((f) => [f.fingerprint, f]));
    const out = new Map<string, Change>();
    for (const [fp, f] of now) out.set(fp, !prev.has(fp) ? 'new' : prev.get(fp)!.severity !== f.severity ? 'severityChanged' : 'persisting');
    for (const fp of prev.keys()) if (!now.has(fp)) out.set(fp, 'resolved');
    return out;
  }
  const countsOf = (m: Map<string, Change>) => {
    const c: Record<Change, number> = { new: 0, resolved: 0, persisting: 0, severityChanged: 0 };
    for (const v of m.values()) c[v] += 1;
    return c;
  };

  /** Every item of a keyset-paged listing, following nextCursor. */
  async function all(path: string, token: string): Promise<{ items: Record<string, unknown>[]; pages: number; first: Record<string, unknown> }> {
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let first: Record<string, unknown> = {};
    do {
      const sep = path.includes('?') ? '&' : '?';
      const res = await http().get(`${path}${cursor ? `${sep}after=${cursor}` : ''}`).set(bearer(token));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (pages === 0) first = res.body;
      items.push(...(res.body.items as Record<string, unknown>[]));
      cursor = res.body.nextCursor as string | null;
      pages += 1;
    } while (cursor !== null && pages < 100);
    return { items, pages, first };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    before = await store.scans.create({ source: 'offline', startedAt: new Date('2026-11-16T00:00:00Z') });
    before = await store.scans.complete(before.id, { findings: baseline, coverage: [makeCoverage({ accountId: A }), makeCoverage({ accountId: B })], quotaUsage: samples.slice(0, 10) });
    after = await store.scans.create({ source: 'offline', startedAt: new Date('2026-11-23T00:00:00Z') });
    after = await store.scans.complete(after.id, { findings: current, coverage: [makeCoverage({ accountId: A }), makeCoverage({ accountId: B })], quotaUsage: samples });
    viewerA = (await store.apiTokens.create({ role: 'viewer', accounts: [A], createdBy: 'test' })).token;
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  describe('GET /v1/scans/{id}/diff', () => {
    it('classifies every fingerprint and counts each change, paging in fingerprint order', async () => {
      const expected = expectedDiff(() => true);
      const { items, pages, first } = await all(`/v1/scans/${after.id}/diff?against=${before.id}&limit=7`, BOOTSTRAP);
      expect(first.counts).toEqual(countsOf(expected));
      expect(countsOf(expected)).toMatchObject({ new: 8, resolved: 5 });
      expect(pages).toBe(Math.ceil(expected.size / 7));
      expect(new Map(items.map((i) => [i.fingerprint as string, i.change as Change]))).toEqual(expected);
      const fps = items.map((i) => i.fingerprint as string);
      expect(fps).toEqual([...fps].sort());
      const changed = items.find((i) => i.change === 'severityChanged')!;
      expect(changed).toMatchObject({ severity: 'critical', previousSeverity: 'warning' });
      const resolved = items.find((i) => i.change === 'resolved')!;
      expect(resolved.severity).toBeNull();
      expect((resolved.resource as { id: string }).id).toMatch(/^lb-000[0-4]$/);
    });

    it('computes counts and items over the token accounts only, and narrows by change and filters', async () => {
      const expected = expectedDiff((f) => f.resource.accountId === A);
      const { items, first } = await all(`/v1/scans/${after.id}/diff?against=${before.id}&limit=1000`, viewerA);
      expect(first.counts).toEqual(countsOf(expected));
      expect(new Map(items.map((i) => [i.fingerprint as string, i.change as Change]))).toEqual(expected);
      expect(JSON.stringify(items)).not.toContain(B);
      // An account filter outside the scope yields nothing (not the other account's data).
      const outside = await http().get(`/v1/scans/${after.id}/diff?against=${before.id}&accountId=${B}`).set(bearer(viewerA));
      expect(outside.body.counts).toEqual({ new: 0, resolved: 0, persisting: 0, severityChanged: 0 });
      const onlyNew = await http().get(`/v1/scans/${after.id}/diff?against=${before.id}&change=new&checkId=CLB_BACKEND_QUOTA`).set(bearer(BOOTSTRAP));
      const expNew = [...expectedDiff((f) => f.checkId === 'CLB_BACKEND_QUOTA').entries()].filter(([, c]) => c === 'new');
      expect(onlyNew.body.items.map((i: { fingerprint: string }) => i.fingerprint).sort()).toEqual(expNew.map(([fp]) => fp).sort());
      expect(onlyNew.body.counts).toEqual(countsOf(expectedDiff((f) => f.checkId === 'CLB_BACKEND_QUOTA')));
    });

    it('answers 404 for an unknown scan and 400 for a bad cursor, limit or change', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      expect((await http().get(`/v1/scans/${after.id}/diff?against=${missing}`).set(bearer(viewerA))).status).toBe(404);
      expect((await http().get(`/v1/scans/${missing}/diff?against=${before.id}`).set(bearer(viewerA))).status).toBe(404);
      expect((await http().get(`/v1/scans/${missing}/diff`).set(bearer(viewerA))).status).toBe(404);
      expect((await http().get(`/v1/scans/${after.id}/diff?against=not-a-uuid`).set(bearer(viewerA))).status).toBe(400);
      const bad = await http().get(`/v1/scans/${after.id}/diff?against=${before.id}&after=bm90LWEtY3Vyc29y`).set(bearer(viewerA));
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('cursor');
      expect((await http().get(`/v1/scans/${after.id}/diff?against=${before.id}&limit=0`).set(bearer(viewerA))).status).toBe(400);
      expect((await http().get(`/v1/scans/${after.id}/diff?against=${before.id}&change=gone`).set(bearer(viewerA))).status).toBe(400);
      expect((await http().get(`/v1/scans/${after.id}/diff?against=${before.id}`)).status).toBe(401);
    });

    it('without `against` diffs against the previous succeeded scan of the same fleet', async () => {
      const explicit = await all(`/v1/scans/${after.id}/diff?against=${before.id}&limit=1000`, BOOTSTRAP);
      const implicit = await all(`/v1/scans/${after.id}/diff?limit=1000`, BOOTSTRAP);
      expect(implicit.first).toMatchObject({ scanId: after.id, againstScanId: before.id });
      expect(implicit.first.counts).toEqual(explicit.first.counts);
      expect(implicit.items).toEqual(explicit.items);
      // Another fleet's succeeded scan in between, a failed and a running scan of the fleet in between: all passed over.
      const at = (d: string) => new Date(`2026-0${d}T00:00:00Z`);
      const west1 = await store.scans.create({ source: 'offline', fleetName: 'fleet-west', startedAt: at('2-01') });
      await store.scans.complete(west1.id, { findings: baseline.slice(0, 2), coverage: [makeCoverage({ accountId: A })], quotaUsage: [] });
      const north = await store.scans.create({ source: 'offline', fleetName: 'fleet-north', startedAt: at('2-10') });
      await store.scans.complete(north.id, { findings: baseline.slice(0, 2), coverage: [makeCoverage({ accountId: A })], quotaUsage: [] });
      const failed = await store.scans.create({ source: 'offline', fleetName: 'fleet-west', startedAt: at('2-15') });
      await store.scans.fail(failed.id, 'collector error');
      await store.scans.create({ source: 'offline', fleetName: 'fleet-west', startedAt: at('2-20') });
      const west2 = await store.scans.create({ source: 'offline', fleetName: 'fleet-west', startedAt: at('3-01') });
      await store.scans.complete(west2.id, { findings: baseline.slice(0, 3), coverage: [makeCoverage({ accountId: A })], quotaUsage: [] });
      const res = await http().get(`/v1/scans/${west2.id}/diff`).set(bearer(BOOTSTRAP));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.againstScanId).toBe(west1.id);
      expect(res.body.counts).toEqual({ new: 1, resolved: 0, persisting: 2, severityChanged: 0 });
      // The first scan of a fleet has nothing to default to: 404 naming the scan and its fleet.
      const first = await http().get(`/v1/scans/${west1.id}/diff`).set(bearer(BOOTSTRAP));
      expect(first.status).toBe(404);
      expect(first.body.message).toBe(`scan ${west1.id} has no earlier succeeded scan of fleet "fleet-west" to diff against: give against=<scan id>`);
    });

    it('either order: with the baseline newer, new and resolved swap and severities run backward', async () => {
      const forward = await all(`/v1/scans/${after.id}/diff?against=${before.id}&limit=1000`, BOOTSTRAP);
      const backward = await all(`/v1/scans/${before.id}/diff?against=${after.id}&limit=1000`, BOOTSTRAP);
      const f = forward.first.counts as Record<Change, number>;
      expect(backward.first).toMatchObject({ scanId: before.id, againstScanId: after.id });
      expect(backward.first.counts).toEqual({ new: f.resolved, resolved: f.new, persisting: f.persisting, severityChanged: f.severityChanged });
      const swap: Record<Change, Change> = { new: 'resolved', resolved: 'new', persisting: 'persisting', severityChanged: 'severityChanged' };
      const back = new Map(backward.items.map((i) => [i.fingerprint as string, i]));
      expect(back.size).toBe(forward.items.length);
      for (const i of forward.items) {
        const b = back.get(i.fingerprint as string)!;
        expect(b.change).toBe(swap[i.change as Change]);
        expect([b.severity, b.previousSeverity]).toEqual([i.previousSeverity, i.severity]);
      }
    });

    it('refuses scans of different fleets (400 naming both ids and fleets) and a scan that has not succeeded (409 naming it)', async () => {
      // Started before `before`, so `after` stays the latest succeeded scan for the other tests.
      const ofFleet = async (fleetName: string) => {
        const s = await store.scans.create({ source: 'offline', fleetName, startedAt: new Date('2026-01-01T00:00:00Z') });
        return store.scans.complete(s.id, { findings: baseline.slice(0, 3), coverage: [makeCoverage({ accountId: A })], quotaUsage: [] });
      };
      const east = await ofFleet('fleet-east');
      const west = await ofFleet('fleet-west');
      for (const [x, y] of [[east, west], [west, east]]) {
        const res = await http().get(`/v1/scans/${x.id}/diff?against=${y.id}`).set(bearer(viewerA));
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_ARGUMENT');
        for (const text of [x.id, y.id, 'fleet-east', 'fleet-west', 'different fleets']) expect(res.body.message).toContain(text);
      }
      // One fleet: fine (a scan without a fleet name compares as given).
      expect((await http().get(`/v1/scans/${east.id}/diff?against=${(await ofFleet('fleet-east')).id}`).set(bearer(viewerA))).status).toBe(200);
      expect((await http().get(`/v1/scans/${east.id}/diff?against=${before.id}`).set(bearer(viewerA))).status).toBe(200);
      const running = await store.scans.create({ source: 'offline', startedAt: new Date('2026-01-01T00:00:00Z') });
      for (const path of [`/v1/scans/${running.id}/diff?against=${before.id}`, `/v1/scans/${before.id}/diff?against=${running.id}`]) {
        const res = await http().get(path).set(bearer(viewerA));
        expect(res.status, path).toBe(409);
        expect(res.body.message).toContain(`scan ${running.id} is running`);
      }
    });
  });

  describe('GET /v1/quotas', () => {
    const key = (q: { checkId: string; resource: { accountId: string; regionId: string; kind: string; id: string } }) =>
      `${q.checkId}/${q.resource.accountId}/${q.resource.regionId}/${q.resource.kind}/${q.resource.id}`;
    /** The expected order: the key columns (check, account, region, resource kind, resource id). */
    const sorted = (xs: QuotaUsageSample[]) => [...xs].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));

    it('pages every sample of the latest scan in key order, with used / limit / ratio and the total', async () => {
      const { items, pages, first } = await all('/v1/quotas?limit=6', BOOTSTRAP);
      expect(first).toMatchObject({ scanId: after.id, total: samples.length, limit: 6 });
      expect(pages).toBe(Math.ceil(samples.length / 6));
      expect(items.map((i) => key(i as never))).toEqual(sorted(samples).map(key));
      const top = sorted(samples)[0];
      expect(items[0]).toEqual({ checkId: top.checkId, resource: { ...top.resource, clusterId: 'c-one' }, used: top.used, limit: top.limit, ratio: top.ratio });
    });

    it('filters (AND) and counts within the token accounts only; older scans by scanId', async () => {
      const inA = samples.filter((q) => q.resource.accountId === A);
      const { items, first } = await all('/v1/quotas?limit=1000', viewerA);
      expect(first.total).toBe(inA.length);
      expect(items.map((i) => key(i as never))).toEqual(sorted(inA).map(key));
      expect(JSON.stringify(items)).not.toContain(B);
      const outside = await http().get(`/v1/quotas?accountId=${B}`).set(bearer(viewerA));
      expect(outside.body).toMatchObject({ total: 0, items: [] });

      const want = samples.filter((q) => q.checkId === 'CLB_BACKEND_QUOTA' && q.resource.regionId === 'cn-beijing' && q.ratio >= 0.8);
      const res = await http().get('/v1/quotas?checkId=CLB_BACKEND_QUOTA&regionId=cn-beijing&minRatio=0.8&limit=1000').set(bearer(BOOTSTRAP));
      expect(res.body.total).toBe(want.length);
      expect(res.body.items.map(key)).toEqual(sorted(want).map(key));
      const one = await http().get('/v1/quotas?resourceKind=LoadBalancer&resourceId=lb-0003').set(bearer(BOOTSTRAP));
      expect(one.body.items.map(key)).toEqual(samples.filter((q) => q.resource.id === 'lb-0003').map(key));

      const older = await http().get(`/v1/quotas?scanId=${before.id}&limit=1000`).set(bearer(BOOTSTRAP));
      expect(older.body.total).toBe(10);
      expect(older.body.scanId).toBe(before.id);
    });

    it('answers 400 for bad filters or cursors and 404 for an unknown scan', async () => {
      expect((await http().get('/v1/quotas?minRatio=high').set(bearer(BOOTSTRAP))).status).toBe(400);
      expect((await http().get('/v1/quotas?resourceKind=Pod').set(bearer(BOOTSTRAP))).status).toBe(400);
      expect((await http().get('/v1/quotas?limit=1001').set(bearer(BOOTSTRAP))).status).toBe(400);
      const bad = await http().get('/v1/quotas?after=WyJ4Il0').set(bearer(BOOTSTRAP));
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('cursor');
      expect((await http().get('/v1/quotas?scanId=00000000-0000-4000-8000-000000000000').set(bearer(BOOTSTRAP))).status).toBe(404);
      expect((await http().get('/v1/quotas')).status).toBe(401);
    });
  });
});
