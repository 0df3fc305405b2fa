/**
 * The GraphQL whole-response cache of fleet-graph reads (apps/api graphql-response-cache.plugin.ts, measured by bench:api)
 * on real PostgreSQL: which operations qualify, that a repeated graph query costs no SQL beyond the generation read,
 * that scopes never share an answer, and that a newly completed scan is the next answer.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are walked as the query shaped them */
import type { INestApplication } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { parse } from 'graphql/index.js';
import { Client } from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { isGraphOnlyDocument } from '../../apps/api/src/graphql/graphql-response-cache.plugin';
import { analyzeAndStore } from '@app/audit';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet } from '@app/domain';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'gql-cache-e2e-bootstrap-token-0123456789';
const KEY = 'gql-cache-e2e-hash-key-0123456789abcdef-0123456789';
const NESTED = `{ accounts(first: 10) { totalCount edges { node { accountId regions(first: 2) { edges { node { regionId
  clusters(first: 5) { edges { node { clusterId services(first: 5) { edges { node { name loadBalancer { loadBalancerId backendEntries } } } } } } } } } } } } } }`;

describe('GraphQL response cache of fleet-graph reads (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;

  const fleet = (accounts: number) =>
    mapWireFleet(
      generateFleet(
        generateSpecSchema.parse({ seed: 11, accounts, clusters: 12, nodesPerCluster: 2, servicesPerCluster: 2, podsPerService: 1, shares: { orphaned: 0.1, reused: 0.1, misconfigured: 0.1, consoleReused: 0.1 } }),
        'gql-cache',
      ).fleet,
    );

  async function gql(query: string, token = BOOTSTRAP) {
    const res = await request(app.getHttpServer()).post('/graphql').set({ Authorization: `Bearer ${token}`, 'content-type': 'application/json' }).send({ query });
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors, res.text).toBeUndefined();
    return res.body.data as Record<string, any>;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const snapshot = fleet(4);
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date('2026-11-08T00:00:00Z') });
    await analyzeAndStore(snapshot, { scanId: scan.id, now: new Date('2026-11-08T00:00:00Z'), store });
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('qualifies only queries whose every field is a fleet-graph read', () => {
    const { schema } = app.get(GraphQLSchemaHost);
    const graphOnly = (q: string) => isGraphOnlyDocument(schema, parse(q));
    expect(graphOnly(NESTED)).toBe(true);
    expect(graphOnly('query Q { ...F } fragment F on Query { clusters(first: 1) { nodes { clusterId __typename } } }')).toBe(true);
    expect(graphOnly('{ scans(first: 1) { nodes { id } } }')).toBe(false);
    expect(graphOnly('{ findings(first: 1) { nodes { fingerprint } } }')).toBe(false);
    expect(graphOnly('{ accounts(first: 1) { nodes { accountId } } scans(first: 1) { nodes { id } } }')).toBe(false);
    expect(graphOnly('{ __schema { types { name } } }')).toBe(false);
    expect(graphOnly('mutation { startScan { id } }')).toBe(false);
  });

  it('a repeated graph query is answered without SQL beyond the generation read, with the same data', async () => {
    const first = await gql(NESTED);
    expect(first.accounts.totalCount).toBe(4);
    const spy = vi.spyOn(Client.prototype, 'query');
    let again: Record<string, any>;
    try {
      again = await gql(NESTED);
    } finally {
      spy.mockRestore();
    }
    expect(again).toEqual(first);
    expect(spy.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('tokens of different scopes never share an answer', async () => {
    const all = await gql(NESTED);
    const accountIds = (all.accounts.edges as { node: { accountId: string } }[]).map((e) => e.node.accountId);
    const scoped = await store.apiTokens.create({ role: 'viewer', accounts: [accountIds[1]], createdBy: 'test' });
    for (let round = 0; round < 2; round++) {
      const mine = await gql(NESTED, scoped.token);
      expect(mine.accounts.totalCount).toBe(1);
      expect(mine.accounts.edges.map((e: { node: { accountId: string } }) => e.node.accountId)).toEqual([accountIds[1]]);
      expect((await gql(NESTED)).accounts.totalCount).toBe(4);
    }
  });

  it('the fast path in front of Apollo sends the stored answer byte for byte, only to tokens it may serve', async () => {
    const post = (token: string | undefined) => {
      const r = request(app.getHttpServer()).post('/graphql').set('content-type', 'application/json');
      return (token === undefined ? r : r.set('Authorization', `Bearer ${token}`)).send({ query: NESTED });
    };
    const miss = await post(BOOTSTRAP);
    const hit = await post(BOOTSTRAP);
    expect(hit.status).toBe(200);
    expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(hit.text).toBe(miss.text);
    // A hit runs no resolver and no serialisation: Apollo's JSON.stringify of the 4-account answer is not called.
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect((await post(BOOTSTRAP)).text).toBe(miss.text);
      expect(stringify.mock.calls.filter(([v]) => typeof v === 'object' && v !== null && 'data' in v)).toEqual([]);
    } finally {
      stringify.mockRestore();
    }
    // No token, a wrong one, or a revoked one: Apollo answers (401), never the stored text.
    for (const token of [undefined, 'not-the-bootstrap-token-0123456789']) {
      const res = await post(token);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('loadBalancerId');
    }
    const viewer = await store.apiTokens.create({ role: 'viewer', accounts: null, createdBy: 'test' });
    const first = await post(viewer.token);
    expect(first.status).toBe(200);
    expect((await post(viewer.token)).text).toBe(first.text);
    const revoked = await request(app.getHttpServer()).delete(`/v1/tokens/${viewer.stored.id}`).set('Authorization', `Bearer ${BOOTSTRAP}`);
    expect(revoked.status, revoked.text).toBeLessThan(300);
    const after = await post(viewer.token);
    expect(after.status).toBe(401);
    expect(after.text).not.toContain('loadBalancerId');
  });

  it('a scan completed after an answer was cached is the next answer', async () => {
    expect((await gql(NESTED)).accounts.totalCount).toBe(4);
    const smaller = fleet(2);
    const scan = await store.scans.create({ source: 'offline', fleetName: smaller.name, startedAt: new Date('2026-11-15T00:00:00Z') });
    await analyzeAndStore(smaller, { scanId: scan.id, now: new Date('2026-11-15T00:00:00Z'), store });
    expect((await gql(NESTED)).accounts.totalCount).toBe(2);
  });
});
