/**
 * `POST /v1/plans` and the GraphQL `plan` mutation on a real PostgreSQL with the sample fleet stored as a scan: the
 * same answer as `planManifests` on the stored snapshot (the CLI's `plan --database-url`), the operator role, a
 * team-scoped token planning on its own cluster only, and bad manifests as 400 naming the document and field.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createApiApp, type ScanLauncher } from '@app/api';
import { analyzeAndStore, defaultForecastWorkerEntry } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { planManifests, readManifests } from '@app/forecast';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'plans-e2e-bootstrap-0123456789abcdef';
const KEY = 'plans-e2e-hash-key-0123456789abcdef-0123456789';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ACCOUNT = '1234567890123456';
const PAYMENTS = 'c1e64668d4e11407d7227bc187533f952';
const STOREFRONT = 'c81faa03ae9366a2df0093610b2aca766';
const NOW = new Date('2026-11-22T00:00:00Z');
const MANIFESTS = [
  'apiVersion: v1',
  'kind: Service',
  'metadata: {name: checkout-public, namespace: shop}',
  'spec: {type: LoadBalancer, externalTrafficPolicy: Local, selector: {app: checkout}, ports: [{port: 443, targetPort: 8443}]}',
  '---',
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata: {name: checkout, namespace: shop}',
  'spec: {replicas: 2, selector: {matchLabels: {app: checkout}}, template: {metadata: {labels: {app: checkout}}}}',
].join('\n');

const launcher = { launch: () => Promise.reject(new Error('no scans in this test')) } as unknown as ScanLauncher;

describe('POST /v1/plans and GraphQL plan', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const tokens: Record<string, string> = {};
  const post = (path: string, token: string, body: unknown) => request(app.getHttpServer()).post(path).set('Authorization', `Bearer ${token}`).send(body as object);

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const scan = await store.scans.create({ source: 'offline', startedAt: NOW });
    await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: scan.id, now: NOW, store });
    const mint = async (label: string, role: 'viewer' | 'operator', accounts: string[] | null, teams: string[] | null) => {
      tokens[label] = (await store.apiTokens.create({ role, accounts, teams, createdBy: 'test', name: label })).token;
    };
    await mint('operator', 'operator', null, null);
    await mint('viewer', 'viewer', null, null);
    await mint('payments', 'operator', [ACCOUNT], ['payments']);
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: launcher, logger: false, forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('answers what planManifests answers on the stored snapshot (the CLI plan --database-url)', async () => {
    const r = await post('/v1/plans', tokens.operator!, { cluster: 'storefront', manifests: MANIFESTS });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const stored = await store.snapshots.latest();
    const local = planManifests(stored!.snapshot, readManifests([{ source: 'manifests', text: MANIFESTS }]), { cluster: 'storefront', now: new Date(stored!.observedAt) });
    expect(r.body.scanId).toBe(stored!.scanId);
    expect({ ...r.body, scanId: undefined }).toEqual(JSON.parse(JSON.stringify({ ...local, scanId: undefined })));
    expect(r.body.services).toEqual([{ service: 'shop/checkout-public', action: 'create', source: 'manifests document 1', workloads: ['Deployment/checkout'], pods: 2 }]);
    expect(r.body.step.quotas.some((q: { checkId: string }) => q.checkId === 'CLB_INSTANCE_QUOTA')).toBe(true);
  });

  it('the GraphQL mutation gives the same step', async () => {
    const r = await post('/graphql', tokens.operator!, {
      query: 'mutation($c: String!, $m: String!) { plan(cluster: $c, manifests: $m) { clusterId clusterName services { service action pods workloads } step { firstBreach { checkId } quotas(first: 50) { totalCount } } convergence { services calls } } }',
      variables: { c: STOREFRONT, m: MANIFESTS },
    });
    expect(r.body.errors).toBeUndefined();
    const rest = await post('/v1/plans', tokens.operator!, { cluster: STOREFRONT, manifests: MANIFESTS });
    expect(r.body.data.plan).toMatchObject({ clusterId: STOREFRONT, clusterName: 'storefront', services: [{ service: 'shop/checkout-public', action: 'create', pods: 2, workloads: ['Deployment/checkout'] }] });
    expect(r.body.data.plan.step.quotas.totalCount).toBe(rest.body.step.quotas.length);
    expect(r.body.data.plan.convergence).toEqual({ services: rest.body.convergence.services, calls: rest.body.convergence.calls });
  });

  it('needs the operator role; a team token plans on its own cluster only, another as an unknown one', async () => {
    expect((await post('/v1/plans', tokens.viewer!, { cluster: 'storefront', manifests: MANIFESTS })).status).toBe(403);
    const own = await post('/v1/plans', tokens.payments!, { cluster: PAYMENTS, manifests: MANIFESTS });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.cluster).toEqual({ id: PAYMENTS, name: 'payments-legacy' });
    const other = await post('/v1/plans', tokens.payments!, { cluster: 'batch-legacy', manifests: MANIFESTS });
    const none = await post('/v1/plans', tokens.payments!, { cluster: 'no-such-cluster', manifests: MANIFESTS });
    expect(other.status).toBe(403);
    expect(none.status).toBe(403);
    expect(other.body.message.replace('batch-legacy', 'X')).toBe(none.body.message.replace('no-such-cluster', 'X'));
  });

  it('bad input is a 400 naming the document and the field', async () => {
    const bad = await post('/v1/plans', tokens.operator!, { cluster: 'storefront', manifests: MANIFESTS.replace('port: 443', 'port: "https"') });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^manifests document 1: invalid Service field spec\.ports\.0\.port: /);
    const shape = await post('/v1/plans', tokens.operator!, { cluster: 'storefront', manifests: 1, extra: true });
    expect(shape.status).toBe(400);
    expect(shape.body.message).toContain('body.manifests');
    const gone = await post('/v1/plans', tokens.operator!, { cluster: 'storefront', manifests: MANIFESTS, delete: ['shop/nope'] });
    expect(gone.status).toBe(400);
    expect(gone.body.message).toContain('"shop/nope" is not a Service of cluster c81faa03ae9366a2df0093610b2aca766');
  });
});
