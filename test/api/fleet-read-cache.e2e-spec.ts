/**
 * REST fleet-graph and quota reads with the whole-answer cache across two API replicas on one PostgreSQL: the
 * same read answers the same bytes from the cache; a scan completed by another process is the very next answer on
 * both replicas (the cache keys on the findings generation kept in PostgreSQL); tokens of different scopes never
 * share an answer; reads of a given scan id answer from PostgreSQL.
 */
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetGraph, QuotaUsageSample } from '@app/domain';
import type { Store } from '@app/store';
import { openApiReplicas, type ApiReplicas } from './api-replicas.util';
import { makeCoverage } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'fleet-cache-e2e-token-5e4d3c2b1a09';
const KEY = 'fleet-cache-e2e-hash-key-0123456789abcdef0123';
const auth = { Authorization: `Bearer ${TOKEN}` };
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

/** Quota samples of three CLBs, all at `used`. */
const quota = (used: number): QuotaUsageSample[] =>
  ['lb-q0', 'lb-q1', 'lb-q2'].map((id) => ({
    checkId: 'CLB_BACKEND_QUOTA',
    resource: { kind: 'LoadBalancer' as const, id, accountId: '1234567890123456', regionId: 'cn-hangzhou' },
    used,
    limit: 200,
    ratio: used / 200,
  }));

describe('REST fleet reads through the answer cache across replicas (e2e)', () => {
  let db: TestDatabase;
  let replicas: ApiReplicas | undefined;
  const stores: Store[] = [];
  const apps: INestApplication[] = [];
  let graph: FleetGraph;
  let firstScan: string;
  const replica = (i: number) => request(apps[i]!.getHttpServer());

  beforeAll(async () => {
    db = await createTestDatabase();
    replicas = await openApiReplicas(db.url, TOKEN, KEY);
    stores.push(...replicas.stores);
    apps.push(...replicas.apps);
    graph = buildFleetGraph(loadFleetDirectory(SAMPLE));
    const scan = await stores[0]!.scans.create({ source: 'offline', fleetName: 'prod' });
    await stores[0]!.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], graph, quotaUsage: quota(50) });
    firstScan = scan.id;
  });
  afterAll(async () => {
    await replicas?.close();
    await db?.release();
  });

  it('answers a repeated read with the same bytes, and the next scan completed elsewhere on both replicas', async () => {
    const lb = graph.loadBalancers[0]!;
    const ecs = graph.ecsInstances[0]!;
    const paths = ['/v1/clusters', '/v1/load-balancers?limit=2', `/v1/load-balancers/${lb.loadBalancerId}`, `/v1/ecs-instances/${ecs.instanceId}`, '/v1/ecs-instances?limit=3', '/v1/quotas?limit=2'];
    for (const path of paths)
      for (const i of [0, 1]) {
        const first = await replica(i).get(path).set(auth);
        expect(first.status, path).toBe(200);
        expect(first.body.scanId, path).toBe(firstScan);
        const again = await replica(i).get(path).set(auth);
        expect(again.text, path).toBe(first.text);
        expect(again.headers['content-type'], path).toBe('application/json; charset=utf-8');
        // The same scan named (read from PostgreSQL, not kept): the same bytes.
        const named = await replica(i).get(`${path}${path.includes('?') ? '&' : '?'}scanId=${firstScan}`).set(auth);
        expect(named.text, path).toBe(first.text);
        expect(named.headers['content-type'], path).toBe(first.headers['content-type']);
        expect(named.headers.etag, path).toBe(first.headers.etag);
      }
    // Another process completes a scan whose graph lacks that CLB and renames a cluster.
    const next: FleetGraph = {
      ...graph,
      loadBalancers: graph.loadBalancers.slice(1),
      clusters: graph.clusters.map((c, k) => (k === 0 ? { ...c, name: 'renamed' } : c)),
    };
    const scan = await stores[1]!.scans.create({ source: 'offline', fleetName: 'prod' });
    await stores[1]!.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], graph: next, quotaUsage: quota(60) });
    for (const i of [0, 1]) {
      expect((await replica(i).get(`/v1/load-balancers/${lb.loadBalancerId}`).set(auth)).status).toBe(404);
      const clusters = await replica(i).get('/v1/clusters').set(auth);
      expect(clusters.body.scanId).toBe(scan.id);
      expect(clusters.body.items.map((c: { name: string }) => c.name)).toContain('renamed');
      expect((await replica(i).get('/v1/load-balancers?limit=2').set(auth)).body.total).toBe(graph.loadBalancers.length - 1);
      expect((await replica(i).get('/v1/quotas?limit=2').set(auth)).body.items.map((q: { used: number }) => q.used)).toEqual([60, 60]);
    }
    // The first scan, named: still its own answer.
    const named = await replica(0).get(`/v1/load-balancers/${lb.loadBalancerId}?scanId=${firstScan}`).set(auth);
    expect(named.status).toBe(200);
    expect(named.body.scanId).toBe(firstScan);
  });

  it('tokens of different scopes never share an answer', async () => {
    const accounts = [...new Set(graph.clusters.map((c) => c.accountId))].sort();
    expect(accounts.length).toBeGreaterThan(1);
    const scoped = await Promise.all(accounts.map((a) => stores[0]!.apiTokens.create({ role: 'viewer', accounts: [a], createdBy: 'test' })));
    for (let round = 0; round < 2; round++) {
      const all = await replica(0).get('/v1/clusters').set(auth);
      expect(all.body.total).toBe(graph.clusters.length);
      for (const [k, a] of accounts.entries()) {
        const own = await replica(0).get('/v1/clusters').set({ Authorization: `Bearer ${scoped[k]!.token}` });
        expect(own.body.total).toBe(graph.clusters.filter((c) => c.accountId === a).length);
        expect(own.body.items.every((c: { accountId: string }) => c.accountId === a)).toBe(true);
      }
    }
  });
});
