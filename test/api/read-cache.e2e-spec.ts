/**
 * GET /v1/findings with the store's read caches (measured by bench:api) across two API replicas on one PostgreSQL:
 * a waiver created or revoked through one replica, or a scan completed by another process, changes the very next
 * page read from the other replica (the caches key on the generation kept in PostgreSQL, not on local state), and
 * tokens of different scopes never share a cached page.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingDto } from '@app/api';
import type { Store } from '@app/store';
import { openApiReplicas, type ApiReplicas } from './api-replicas.util';
import { makeCoverage, makeFindings } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'read-cache-e2e-token-5e4d3c2b1a09';
const KEY = 'read-cache-e2e-hash-key-0123456789abcdef0123';
const auth = { Authorization: `Bearer ${TOKEN}` };
const A = '1000000000000001';
const B = '1000000000000002';

describe('GET /v1/findings read caches across replicas (e2e)', () => {
  let db: TestDatabase;
  let replicas: ApiReplicas | undefined;
  const stores: Store[] = [];
  const apps: INestApplication[] = [];
  let scanId: string;
  const replica = (i: number) => request(apps[i].getHttpServer());

  beforeAll(async () => {
    db = await createTestDatabase();
    replicas = await openApiReplicas(db.url, TOKEN, KEY);
    stores.push(...replicas.stores);
    apps.push(...replicas.apps);
    const scan = await stores[0].scans.create({ source: 'offline', fleetName: 'prod' });
    await stores[0].scans.complete(scan.id, {
      findings: makeFindings(10, (i) => ({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: `lb-${i}`, accountId: i < 6 ? A : B } })),
      coverage: [makeCoverage()],
    });
    scanId = scan.id;
  });
  afterAll(async () => {
    await replicas?.close();
    await db?.release();
  });

  const statuses = (body: { items: FindingDto[] }) => Object.fromEntries(body.items.map((f) => [f.resource.id, f.status]));

  it('a waiver created or revoked on one replica changes the next page on the other', async () => {
    const first = await replica(0).get('/v1/findings').set(auth);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(10);
    expect(Object.values(statuses(first.body)).every((s) => s === 'open')).toBe(true);
    // Same page again (served from the cache) is identical.
    expect((await replica(0).get('/v1/findings').set(auth)).body).toEqual(first.body);

    const created = await replica(1)
      .post('/v1/waivers')
      .set(auth)
      .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: A, resource: 'lb-1', owner: 'team-net', reason: 'NLB migration in Q3 (NET-7)', category: 'accepted-risk' });
    expect(created.status).toBe(201);
    const waived = await replica(0).get('/v1/findings').set(auth);
    expect(statuses(waived.body)['lb-1']).toBe('waived');
    expect(waived.body.items.find((f: FindingDto) => f.resource.id === 'lb-1').waiver.id).toBe(created.body.id);

    expect((await replica(1).delete(`/v1/waivers/${created.body.id as string}`).set(auth)).status).toBe(200);
    expect(statuses((await replica(0).get('/v1/findings').set(auth)).body)['lb-1']).toBe('open');
  });

  it('a scan completed elsewhere is the next default page on both replicas', async () => {
    for (const i of [0, 1]) expect((await replica(i).get('/v1/findings').set(auth)).body.scanId).toBe(scanId);
    const scan = await stores[1].scans.create({ source: 'offline', fleetName: 'prod' });
    await stores[1].scans.complete(scan.id, { findings: makeFindings(3, (i) => ({ resource: { id: `new-${i}`, accountId: A } })), coverage: [makeCoverage()] });
    for (const i of [0, 1]) {
      const page = await replica(i).get('/v1/findings').set(auth);
      expect(page.body.scanId).toBe(scan.id);
      expect(page.body.total).toBe(3);
    }
  });

  it('tokens of different scopes never share a cached page', async () => {
    const onlyA = await stores[0].apiTokens.create({ role: 'viewer', accounts: [A], createdBy: 'test' });
    const onlyB = await stores[0].apiTokens.create({ role: 'viewer', accounts: [B], createdBy: 'test' });
    for (let round = 0; round < 2; round++) {
      const all = await replica(0).get(`/v1/findings?scanId=${scanId}`).set(auth);
      const a = await replica(0).get(`/v1/findings?scanId=${scanId}`).set({ Authorization: `Bearer ${onlyA.token}` });
      const b = await replica(0).get(`/v1/findings?scanId=${scanId}`).set({ Authorization: `Bearer ${onlyB.token}` });
      expect(all.body.total).toBe(10);
      expect(a.body.total).toBe(6);
      expect(a.body.items.every((f: FindingDto) => f.resource.accountId === A)).toBe(true);
      expect(b.body.total).toBe(4);
      expect(b.body.items.every((f: FindingDto) => f.resource.accountId === B)).toBe(true);
    }
  });
});
