/**
 * The GraphQL answer cache and a named scan that is still running (apps/api graphql-response-cache.plugin.ts), on
 * real PostgreSQL across two API replicas: a sharded scan's shards add fleet-graph rows while it runs, without a
 * findings-generation bump (only scan rows bump it), so an answer about that scan kept under the generation would
 * be served stale until the scan completes. As the REST answer cache (FleetService, QuotasService: `namesScan` in
 * scan-selection.service.ts), GraphQL keeps no answer of a read that names its scan (by a variable or in the query
 * text): each query about the running scan sees the rows stored so far (totals included: the store keeps listing
 * counts of the latest succeeded scan only), and after completion the same answers, while reads of the latest
 * succeeded scan are kept.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are walked as the query shaped them */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStoreShard, sumShardSummaries, type ScanSummary } from '@app/audit';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import type { Store } from '@app/store';
import { GraphAnswerCache } from '../../apps/api/src/graphql/graphql-response-cache.plugin';
import { openApiReplicas, type ApiReplicas } from './api-replicas.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'gql-running-scan-e2e-token-0123456789ab';
const KEY = 'gql-running-scan-e2e-hash-key-0123456789abcdef0123';
const NOW = new Date('2026-11-20T00:00:00Z');
/** Graph reads of one scan: a cacheable query (every field a graph read) naming the scan through a variable. */
const NAMED = `query Named($scanId: ID) {
  accounts(scanId: $scanId, first: 10) { totalCount edges { node { accountId } } }
  clusters(scanId: $scanId, first: 100) { totalCount }
}`;
/** The accounts of scan `id`, named in the query text. */
const literal = (id: string) => `{ accounts(scanId: "${id}", first: 10) { totalCount } }`;
/** The same reads of the latest succeeded scan (no scan named). */
const LATEST = `{ accounts(first: 10) { totalCount edges { node { accountId } } } clusters(first: 100) { totalCount } }`;

describe('GraphQL answers about a running sharded scan (e2e)', () => {
  let db: TestDatabase;
  let replicas: ApiReplicas | undefined;
  let stores: Store[] = [];
  let apps: INestApplication[] = [];
  let fleet: FleetSnapshot;

  async function gql(app: INestApplication, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await request(app.getHttpServer()).post('/graphql').set({ Authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }).send({ query, variables });
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors, res.text).toBeUndefined();
    return res.body.data as Record<string, any>;
  }

  /** The snapshot of shard `accountId`/`regionId` (that account with that one region, and their coverage). */
  function shardSnapshot(accountId: string, regionId: string): FleetSnapshot {
    const account = fleet.accounts.find((a) => a.accountId === accountId)!;
    return {
      name: fleet.name,
      accounts: [{ ...account, regions: account.regions.filter((r) => r.regionId === regionId) }],
      coverage: fleet.coverage.filter((c) => c.accountId === accountId && (c.regionId === undefined || c.regionId === '' || c.regionId === regionId)),
    };
  }

  /** Store shard `accountId`/`regionId` of `scanId` as an analyze-shard job does (the account's only region: its lead shard). */
  async function storeShard(scanId: string, accountId: string, regionId: string): Promise<ScanSummary> {
    const place = { shardKey: `region/${accountId}/${regionId}`, accountId, regionId, lead: true };
    const { outcome, summary } = await analyzeAndStoreShard(shardSnapshot(accountId, regionId), { scanId, now: NOW, place, store: stores[0]! });
    expect(outcome).toBe('stored');
    return summary;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    replicas = await openApiReplicas(db.url, TOKEN, KEY);
    ({ stores, apps } = replicas);
    fleet = mapWireFleet(
      generateFleet(generateSpecSchema.parse({ seed: 23, accounts: 3, regions: ['cn-hangzhou'], clusters: 6, nodesPerCluster: 2, servicesPerCluster: 2, podsPerService: 1 }), 'gql-running').fleet,
    );
    expect(fleet.accounts.map((a) => a.regions.length)).toEqual([1, 1, 1]);
  });
  afterAll(async () => {
    await replicas?.close();
    await db?.release();
  });

  it('answers each query about a running scan from the rows stored so far, and the latest succeeded scan from the cache', async () => {
    const accounts = fleet.accounts.map((a) => a.accountId);
    const clustersOf = (ids: string[]) => fleet.accounts.filter((a) => ids.includes(a.accountId)).flatMap((a) => a.regions.flatMap((r) => r.clusters)).length;
    const scan = await stores[0]!.scans.create({ source: 'live', fleetName: fleet.name, startedAt: NOW });
    const named = { scanId: scan.id };
    const parts: ScanSummary[] = [];

    // While it runs: shard by shard, every replica (asked twice: a second answer could come from a cache) sees the
    // rows stored so far.
    for (let k = 1; k <= accounts.length; k++) {
      const region = fleet.accounts[k - 1]!.regions[0]!.regionId;
      parts.push(await storeShard(scan.id, accounts[k - 1]!, region));
      for (const app of apps)
        for (let round = 0; round < 2; round++) {
          const data = await gql(app, NAMED, named);
          expect(data.accounts.totalCount, `shard ${k}, round ${round}`).toBe(k);
          expect(data.accounts.edges.map((e: any) => e.node.accountId)).toEqual(accounts.slice(0, k).sort());
          expect(data.clusters.totalCount).toBe(clustersOf(accounts.slice(0, k)));
          expect((await gql(app, literal(scan.id))).accounts.totalCount).toBe(k);
        }
      // No scan succeeded yet: the latest succeeded scan has no graph.
      expect((await gql(apps[0]!, LATEST)).accounts.totalCount).toBe(0);
    }

    // Completed: the same answers about it, named or as the latest succeeded scan; the latter kept by the cache.
    const summary = sumShardSummaries(parts, fleet.coverage, accounts.length);
    const done = await stores[0]!.scans.completeFromShards(scan.id, { coverage: fleet.coverage, skipped: [], summary, finishedAt: NOW });
    expect(done?.status).toBe('succeeded');
    for (const app of apps) {
      const cache = app.get(GraphAnswerCache);
      const first = await gql(app, NAMED, named);
      expect(first.accounts.totalCount).toBe(accounts.length);
      expect(first.clusters.totalCount).toBe(clustersOf(accounts));
      expect(await gql(app, LATEST)).toEqual(first);
      expect(cache.stats.entries).toBeGreaterThan(0);
      expect(await gql(app, LATEST)).toEqual(first);
      expect(await gql(app, NAMED, named)).toEqual(first);
    }
  });
});
