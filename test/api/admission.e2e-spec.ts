/**
 * `POST /v1/admission/{cluster}` on a real PostgreSQL with the sample fleet stored as a scan, as a cluster's apiserver
 * calls it: AdmissionReview admission.k8s.io/v1 in and out (the request shaped as in the Kubernetes docs' example,
 * "Dynamic Admission Control"), the uid echoed, warnings for a breach, a denial only when the Service opts in, silence
 * for what is not a LoadBalancer Service, and a "not judged" warning (never a refusal) when it cannot judge.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { createApiApp, type ScanLauncher } from '@app/api';
import { AdmissionService, SNAPSHOT_REUSE_MS } from '../../apps/api/src/admission/admission.service';
import { analyzeAndStore, defaultForecastWorkerEntry } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'admission-e2e-bootstrap-0123456789abcdef';
const KEY = 'admission-e2e-hash-key-0123456789abcdef-01234567';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ACCOUNT = '1234567890123456';
const STOREFRONT = 'c81faa03ae9366a2df0093610b2aca766';
const NOW = new Date('2026-11-22T00:00:00Z');

const launcher = { launch: () => Promise.reject(new Error('no scans in this test')) } as unknown as ScanLauncher;

/** A LoadBalancer Service (Cluster mode) of `ports` ports, as the apiserver puts it in a review. */
function service(name: string, ports: number, type = 'LoadBalancer', labels: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop', labels, uid: '4b9d6f0e-0000-4000-8000-000000000001' },
    spec: { type, selector: { app: name }, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, protocol: 'TCP', port: 8000 + i, targetPort: 8080 })) },
  };
}

/** An AdmissionReview v1 of `object`, shaped as the Kubernetes docs' example request. */
function review(uid: string, object: Record<string, unknown>, operation: 'CREATE' | 'UPDATE' = 'CREATE', oldObject: Record<string, unknown> | null = null) {
  const kind = object.kind as string;
  const resource = kind === 'Service' ? 'services' : `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind },
      resource: { group: '', version: 'v1', resource },
      requestKind: { group: '', version: 'v1', kind },
      requestResource: { group: '', version: 'v1', resource },
      name: (object.metadata as { name: string }).name,
      namespace: 'shop',
      operation,
      userInfo: { username: 'admin', uid: '014fbff9a07c', groups: ['system:authenticated'] },
      object,
      oldObject,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' },
    },
  };
}

/** Every warning one line of at most 120 characters (runes), no control character: what kubectl prints as one line. */
function expectForwardable(warnings: string[] | undefined): void {
  for (const w of warnings ?? []) {
    expect(Array.from(w).length, w).toBeLessThanOrEqual(120);
    expect(w, 'control character').not.toMatch(/\p{Cc}/u);
  }
}

describe('POST /v1/admission/{cluster}', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const tokens: Record<string, string> = {};
  const post = (path: string, token: string | undefined, body: unknown) => {
    const r = request(app.getHttpServer()).post(path);
    return (token ? r.set('Authorization', `Bearer ${token}`) : r).send(body as object);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    tokens.viewer = (await store.apiTokens.create({ role: 'viewer', accounts: null, teams: null, createdBy: 'test', name: 'viewer' })).token;
    tokens.payments = (await store.apiTokens.create({ role: 'viewer', accounts: [ACCOUNT], teams: ['payments'], createdBy: 'test', name: 'payments' })).token;
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: launcher, logger: false, forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('with no stored scan, allows a LoadBalancer Service with one "not judged" warning', async () => {
    const r = await post('/v1/admission/storefront', tokens.viewer, review('uid-no-scan', service('wide', 51)));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-no-scan', allowed: true, warnings: [expect.stringMatching(/^fleet-audit: not judged \(no stored scan: .*\); the change is allowed$/)] } });
    expectForwardable(r.body.response.warnings);
  });

  it('answers as JSON for the apiserver: no Content-Security-Policy and no ETag, the other security headers as on every route', async () => {
    const r = await post('/v1/admission/storefront', tokens.viewer, review('uid-headers', service('wide', 1)));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers['content-security-policy']).toBeUndefined();
    expect(r.headers['etag']).toBeUndefined();
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const other = await request(app.getHttpServer()).get('/v1/whoami').set('Authorization', `Bearer ${tokens.viewer}`);
    expect(other.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('without a token is 401; a body that is no AdmissionReview v1 is 400 naming the field', async () => {
    expect((await post('/v1/admission/storefront', undefined, review('uid-anon', service('wide', 51)))).status).toBe(401);
    const bad = await post('/v1/admission/storefront', tokens.viewer, { ...review('uid-v1beta1', service('wide', 1)), apiVersion: 'admission.k8s.io/v1beta1' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^not an AdmissionReview admission\.k8s\.io\/v1: body\.apiVersion: /);
    const noUid = await post('/v1/admission/storefront', tokens.viewer, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } });
    expect(noUid.status).toBe(400);
    expect(noUid.body.message).toContain('body.request.uid');
  });

  it('keeps the body limits and errors of every route: 413 over 100 kB, 400 for malformed JSON, 401 with its challenge', async () => {
    const big = review('uid-big', { ...service('wide', 1), padding: 'x'.repeat(110_000) });
    expect((await post('/v1/admission/storefront', tokens.viewer, big)).status).toBe(413);
    const malformed = await request(app.getHttpServer()).post('/v1/admission/storefront').set('Authorization', `Bearer ${tokens.viewer}`).set('Content-Type', 'application/json').send('{"apiVersion": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ statusCode: 400 });
    const anon = await post('/v1/admission/storefront/enforce', undefined, review('uid-anon', service('wide', 1)));
    expect(anon.status).toBe(401);
    expect(anon.headers['www-authenticate']).toBe('Bearer realm="fleet-audit"');
    expect(anon.body).toMatchObject({ statusCode: 401, error: 'UNAUTHENTICATED' });
    const wrong = await post('/v1/admission/storefront', 'fa_not-a-token', review('uid-wrong', service('wide', 1)));
    expect(wrong.status).toBe(401);
  });

  describe('with the sample fleet stored', () => {
    beforeAll(async () => {
      const scan = await store.scans.create({ source: 'offline', startedAt: NOW });
      await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: scan.id, now: NOW, store });
    });

    it('warns of the listener breach of a 51-port Service, allows it, echoes the uid', async () => {
      const r = await post('/v1/admission/storefront', tokens.viewer, review('uid-wide', service('wide', 51)));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.apiVersion).toBe('admission.k8s.io/v1');
      expect(r.body.kind).toBe('AdmissionReview');
      expect(r.body.response.uid).toBe('uid-wide');
      expect(r.body.response.allowed).toBe(true);
      expect(r.body.response.status).toBeUndefined();
      // Cluster mode: every eligible node behind each of the 51 ports, so the backend quota breaks first; the 51
      // listeners over the 50-listener quota (slb_quota_listeners_num) come as the critical finding the change adds.
      expect(r.body.response.warnings[0]).toMatch(/^fleet-audit: first breach: CLB_BACKEND_QUOTA on lb-\S+: 0 -> 306 of 200 \(cluster storefront\)$/);
      expect(r.body.response.warnings).toContainEqual(expect.stringMatching(/^fleet-audit: critical: CLB_LISTENER_QUOTA CLB lb-\S+ has 51 listeners: 102 % of its listener quota 50/));
      expectForwardable(r.body.response.warnings);
      // By id, the same answer.
      const byId = await post(`/v1/admission/${STOREFRONT}`, tokens.viewer, review('uid-wide-id', service('wide', 51)));
      expect(byId.body.response.warnings).toEqual(r.body.response.warnings);
      // From the cluster's warm model (built once), the second time from the answers kept: no whole what-if.
      expect(app.get(AdmissionService).stats).toMatchObject({ model: 1, remembered: 1, whatIf: 0, modelsBuilt: 1 });
    });

    it('denies it with 403 and the reason when the Service carries the enforce label, or the URL asks for enforcement', async () => {
      const labelled = await post('/v1/admission/storefront', tokens.viewer, review('uid-enforced', service('wide', 51, 'LoadBalancer', { 'fleet-audit.io/enforce': 'true' })));
      expect(labelled.status).toBe(200);
      expect(labelled.body.response).toMatchObject({ uid: 'uid-enforced', allowed: false, status: { code: 403, reason: 'Forbidden' } });
      expect(labelled.body.response.status.message).toMatch(/^fleet-audit \(enforced\): first breach: CLB_BACKEND_QUOTA on lb-\S+: 0 -> 306 of 200 .*; critical: CLB_LISTENER_QUOTA CLB lb-\S+ has 51 listeners/);
      expectForwardable(labelled.body.response.warnings);
      const query = await post('/v1/admission/storefront?enforce=true&timeout=5s', tokens.viewer, review('uid-query', service('wide', 51)));
      expect(query.body.response).toMatchObject({ uid: 'uid-query', allowed: false, status: { code: 403 } });
      // The path the chart registers (the apiserver refuses a query string in a webhook URL).
      const path = await post('/v1/admission/storefront/enforce?timeout=5s', tokens.viewer, review('uid-path', service('wide', 51)));
      expect(path.body.response).toMatchObject({ uid: 'uid-path', allowed: false, status: { code: 403 } });
      // Enforced, but nothing to block: allowed.
      const small = await post('/v1/admission/storefront?enforce=true', tokens.viewer, review('uid-small', service('small', 2)));
      expect(small.body.response).toMatchObject({ uid: 'uid-small', allowed: true });
      expect(small.body.response.status).toBeUndefined();
    });

    it('allows a ConfigMap, a ClusterIP Service and a DELETE silently', async () => {
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { a: 'b' } };
      for (const [uid, body] of [
        ['uid-cm', review('uid-cm', configMap)],
        ['uid-cip', review('uid-cip', service('internal', 60, 'ClusterIP'))],
        ['uid-del', { ...review('uid-del', service('wide', 51)), request: { ...review('uid-del', service('wide', 51)).request, operation: 'DELETE', object: null, oldObject: service('wide', 51) } }],
      ] as const) {
        const r = await post('/v1/admission/storefront?enforce=true', tokens.viewer, body);
        expect(r.status).toBe(200);
        expect(r.body).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } });
      }
    });

    it('judges an update that turns a LoadBalancer into ClusterIP (old object LoadBalancer) without failing', async () => {
      const r = await post('/v1/admission/storefront', tokens.viewer, review('uid-downgrade', service('wide', 1, 'ClusterIP'), 'UPDATE', service('wide', 1)));
      expect(r.status).toBe(200);
      expect(r.body.response).toMatchObject({ uid: 'uid-downgrade', allowed: true });
      for (const w of r.body.response.warnings ?? []) expect(w).not.toMatch(/internal error/);
    });

    it('an unknown cluster and one outside the token\'s scope both allow with the same "not judged" warning', async () => {
      const unknown = await post('/v1/admission/no-such-cluster', tokens.payments, review('uid-unknown', service('wide', 51)));
      const other = await post('/v1/admission/storefront', tokens.payments, review('uid-other', service('wide', 51)));
      for (const r of [unknown, other]) {
        expect(r.status).toBe(200);
        expect(r.body.response.allowed).toBe(true);
        expect(r.body.response.warnings).toHaveLength(1);
        expectForwardable(r.body.response.warnings);
      }
      expect(unknown.body.response.uid).toBe('uid-unknown');
      expect(unknown.body.response.warnings[0]).toBe('fleet-audit: not judged (cluster "no-such-cluster" not in the latest scan in the token\'s scope); the change is allowed');
      expect(other.body.response.warnings[0].replace('storefront', 'X')).toBe(unknown.body.response.warnings[0].replace('no-such-cluster', 'X'));
      expect(JSON.stringify(other.body)).not.toContain(STOREFRONT);
    });

    it('keeps the snapshot and the model while the latest scan is the same, builds the model again for a new scan (ahead of its review for a cluster reviewed before)', async () => {
      const admission = app.get(AdmissionService);
      const built = admission.stats.modelsBuilt;
      // Past the reuse period with the same latest scan: one look at its id, no second read of the snapshot.
      const reads = vi.spyOn(store.snapshots, 'latest');
      const sameScan = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + SNAPSHOT_REUSE_MS + 1_000);
      try {
        const r = await post('/v1/admission/storefront', tokens.viewer, review('uid-same-scan', service('wide', 51)));
        expect(r.body.response.warnings[0]).toMatch(/^fleet-audit: first breach: CLB_BACKEND_QUOTA/);
      } finally {
        sameScan.mockRestore();
        reads.mockRestore();
      }
      expect(reads).not.toHaveBeenCalled();
      expect(admission.stats.modelsBuilt).toBe(built);
      // A second cluster reviewed under this scan: its model is built ahead of its first review under the next one.
      const other = loadFleetDirectory(SAMPLE).accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).find((c) => c.kubernetes && c.clusterId !== STOREFRONT)!;
      const first = await post(`/v1/admission/${other.clusterId}`, tokens.viewer, review('uid-other-cluster', service('small', 2)));
      expect(first.body.response.allowed).toBe(true);
      expect(admission.stats.modelsBuilt).toBe(built + 1);
      const scan = await store.scans.create({ source: 'offline', startedAt: new Date(NOW.getTime() + 3_600_000) });
      await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: scan.id, now: new Date(NOW.getTime() + 3_600_000), store });
      expect(await store.snapshots.latestScanId()).toBe(scan.id);
      const realNow = Date.now();
      const clock = vi.spyOn(Date, 'now').mockReturnValue(realNow + 2 * (SNAPSHOT_REUSE_MS + 1_000));
      try {
        const r = await post('/v1/admission/storefront', tokens.viewer, review('uid-new-scan', service('wide', 51)));
        expect(r.body.response.warnings[0]).toMatch(/^fleet-audit: first breach: CLB_BACKEND_QUOTA/);
      } finally {
        clock.mockRestore();
      }
      expect(admission.stats.modelsBuilt).toBe(built + 2);
      await vi.waitFor(() => expect(admission.stats.modelsPrebuilt).toBe(1), { timeout: 30_000 });
      const again = await post(`/v1/admission/${other.clusterId}`, tokens.viewer, review('uid-other-cluster-new-scan', service('small', 3)));
      expect(again.body.response.allowed).toBe(true);
      expect(JSON.stringify(again.body)).not.toContain('not judged');
      expect(admission.stats.modelsBuilt, 'the second cluster found its model built ahead').toBe(built + 2);
    });

    it('keeps every warning forwardable: control characters stripped, long texts cut to 120 characters', async () => {
      const long = 'x'.repeat(300);
      const r = await post(`/v1/admission/${long}`, tokens.viewer, review('uid-long', { ...service('wide', 51), metadata: { name: 'wide', namespace: 'shop\n\tnext' } }));
      expect(r.status).toBe(200);
      expect(r.body.response.allowed).toBe(true);
      expectForwardable(r.body.response.warnings);
    });
  });
});
