/**
 * The REST API end to end: the real app (createApiApp) on a real PostgreSQL database, through
 * HTTP with supertest. Only the scan launcher is a fake (it records requests and creates the
 * scan row through the real store, as the real launchers do).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher, type FindingDto, type LaunchScanRequest, type ScanLauncher } from '@app/api';
import type { Finding } from '@app/domain';
import { Store, type StoredScan } from '@app/store';
import { makeCoverage, makeFinding, makeFindings } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'api-e2e-token-6b1f0c2d9e8a7f35';
const auth = { Authorization: `Bearer ${TOKEN}` };

/** Records launch requests and creates the scan row like the real launchers. */
class RecordingScanLauncher implements ScanLauncher {
  readonly requests: LaunchScanRequest[] = [];
  constructor(private readonly store: Store) {}
  async launch(request: LaunchScanRequest): Promise<{ scanId: string }> {
    this.requests.push(request);
    const scan = await this.store.scans.create({ source: 'offline', fleetName: request.source ?? 'default' });
    return { scanId: scan.id };
  }
  sourceNames(): string[] {
    return ['default', 'nightly'];
  }
}

describe('REST API /v1 (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let launcher: RecordingScanLauncher;
  let older: StoredScan;
  let latest: StoredScan;
  let failed: StoredScan;
  let latestFindings: Finding[];
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    older = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date('2026-04-01T00:00:00Z') });
    await store.scans.complete(older.id, {
      findings: makeFindings(3, () => ({ checkId: 'clb-backend-quota' })),
      coverage: [makeCoverage()],
    });
    latest = await store.scans.create({ source: 'live', fleetName: 'prod', startedAt: new Date('2026-04-08T00:00:00Z') });
    latestFindings = makeFindings(25, (i) => ({
      checkId: i % 5 === 0 ? 'nodeport-overlap' : 'clb-backend-quota',
      severity: i % 4 === 0 ? 'critical' : 'warning',
      resource: { accountId: i < 15 ? '1111' : '2222', clusterId: i % 2 === 0 ? 'c-even' : 'c-odd' },
    }));
    latestFindings.push(
      makeFinding({ checkId: 'ccm-version', severity: 'info', used: undefined, limit: undefined, ratio: undefined, resource: { kind: 'Cluster', id: 'c-nocluster', clusterId: undefined } }),
    );
    latest = await store.scans.complete(latest.id, {
      findings: latestFindings,
      coverage: [makeCoverage(), makeCoverage({ api: 'ram', regionId: undefined, status: 'failed', errorCode: 'Forbidden.RAM', message: 'no permission' })],
      skipped: [
        {
          checkId: 'CCM_RAM_PERMISSION_GAP',
          resource: { kind: 'Cluster', id: 'c-even', accountId: '1111', regionId: 'cn-hangzhou', clusterId: 'c-even' },
          reason: 'RAM of account 1111 was not read (Forbidden.RAM)',
        },
      ],
      quotaUsage: [
        { checkId: 'CLB_BACKEND_QUOTA', resource: { kind: 'LoadBalancer', id: 'lb-hot', accountId: '1111', regionId: 'cn-hangzhou' }, used: 196, limit: 200, ratio: 0.98 },
        { checkId: 'CLB_BACKEND_QUOTA', resource: { kind: 'LoadBalancer', id: 'lb-cold', accountId: '1111', regionId: 'cn-hangzhou' }, used: 4, limit: 200, ratio: 0.02 },
      ],
    });
    failed = await store.scans.create({ source: 'live', startedAt: new Date('2026-04-09T00:00:00Z') });
    failed = await store.scans.fail(failed.id, 'nothing could be read');
    await store.scans.create({ source: 'distributed', startedAt: new Date('2026-04-10T00:00:00Z') });

    launcher = new RecordingScanLauncher(store);
    // This suite sends many wrong tokens from one address on purpose; the rate limit has its own test (tokens.e2e-spec).
    app = await createApiApp({ store, token: TOKEN, scanLauncher: launcher, auth: { maxFailures: 10_000 } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  describe('auth', () => {
    it('serves /healthz without a token', async () => {
      const res = await http().get('/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', database: 'up' });
    });

    it.each([
      ['no header', undefined],
      ['a wrong token', 'Bearer wrong-token-wrong-token'],
      ['the token with a suffix', `Bearer ${TOKEN}x`],
      ['basic auth', `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`],
      ['the bare token', TOKEN],
    ])('answers 401 JSON for %s, on every /v1 route', async (_label, header) => {
      for (const [method, path] of [
        ['get', '/v1/scans'],
        ['get', `/v1/scans/${latest.id}`],
        ['get', '/v1/findings'],
        ['post', '/v1/scans'],
      ] as const) {
        const req = method === 'get' ? http().get(path) : http().post(path).send({});
        const res = header === undefined ? await req : await req.set('Authorization', header);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.headers['content-type']).toMatch(/application\/json/);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(res.body).toMatchObject({ statusCode: 401, error: 'UNAUTHENTICATED' });
        expect(JSON.stringify(res.body)).not.toContain(TOKEN);
      }
      expect(launcher.requests).toEqual([]);
    });

    it('accepts the scheme case-insensitively', async () => {
      expect((await http().get('/v1/scans').set('Authorization', `bearer ${TOKEN}`)).status).toBe(200);
    });

    it('refuses to build with a short token', async () => {
      await expect(createApiApp({ store, token: 'short', scanLauncher: launcher })).rejects.toThrow(/at least 16 characters/);
    });
  });

  describe('GET /v1/scans', () => {
    it('pages scans newest first with total, limit and offset', async () => {
      const first = await http().get('/v1/scans?limit=2').set(auth);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 4, limit: 2, offset: 0 });
      expect(first.body.items.map((s: { status: string }) => s.status)).toEqual(['running', 'failed']);
      const second = await http().get('/v1/scans?limit=2&offset=2').set(auth);
      expect(second.body.items.map((s: { id: string }) => s.id)).toEqual([latest.id, older.id]);
      expect(second.body.items[0]).toMatchObject({
        status: 'succeeded',
        source: 'live',
        fleetName: 'prod',
        startedAt: '2026-04-08T00:00:00.000Z',
        error: null,
        summary: { findings: 26, bySeverity: { critical: 7, warning: 18, info: 1 } },
      });
      expect(second.body.items[0]).not.toHaveProperty('coverage');
      expect((await http().get('/v1/scans').set(auth)).body).toMatchObject({ limit: 100, offset: 0, total: 4 });
    });

    it('rejects bad paging with 400 and a clear message', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=ten', 'limit'],
        ['offset=-1', 'offset'],
        ['limit=1&limit=2', 'limit'],
      ]) {
        const res = await http().get(`/v1/scans?${query}`).set(auth);
        expect(res.status, query).toBe(400);
        expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_FAILED' });
        expect(res.body.message).toContain(`query.${field}`);
        expect(res.body.issues[0].path).toBe(`query.${field}`);
      }
      const res = await http().get('/v1/scans?limit=1001').set(auth);
      expect(res.body.message).toBe('Invalid query: query.limit: must be an integer from 1 to 1000');
    });
  });

  describe('GET /metrics', () => {
    it('needs the bearer token', async () => {
      expect((await http().get('/metrics')).status).toBe(401);
    });

    it('exports the latest succeeded scan for Prometheus: findings, quota usage from 50 %, scan health', async () => {
      const res = await http().get('/metrics').set(auth);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = res.text;
      const critical = latestFindings.filter((f) => f.checkId === 'ccm-version').length;
      expect(text).toContain(`fleet_audit_findings{check_id="ccm-version",severity="info"} ${critical}`);
      expect(text).toMatch(/fleet_audit_quota_usage_ratio\{check_id="CLB_BACKEND_QUOTA",resource_kind="LoadBalancer",resource_id="lb-hot",account_id="1111",region_id="cn-hangzhou",cluster_id="",team=""\} 0\.98/);
      expect(text).not.toContain('resource_id="lb-cold"');
      expect(text).toContain('fleet_audit_quota_max_usage_ratio{check_id="CLB_BACKEND_QUOTA"} 0.98');
      // Counted over every sample, also those under the export floor (computed in SQL).
      expect(text).toContain('fleet_audit_quota_resources{check_id="CLB_BACKEND_QUOTA"} 2');
      expect(text).toContain(`fleet_audit_last_successful_scan_timestamp_seconds ${Date.parse(latest.startedAt) / 1000}`);
      // The failed scan started after the latest succeeded one.
      expect(text).toContain('fleet_audit_last_scan_failed 1');
      expect(text).toContain('fleet_audit_coverage_datasets{status="failed"} 1');
    });
  });

  describe('GET /v1/scans/{id}', () => {
    it('returns one scan with coverage', async () => {
      const res = await http().get(`/v1/scans/${latest.id}`).set(auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: latest.id,
        status: 'succeeded',
        source: 'live',
        fleetName: 'prod',
        startedAt: latest.startedAt,
        finishedAt: latest.finishedAt,
        error: null,
        summary: latest.summary,
        coverage: latest.coverage,
        skipped: [
          {
            checkId: 'CCM_RAM_PERMISSION_GAP',
            resource: { kind: 'Cluster', id: 'c-even', accountId: '1111', regionId: 'cn-hangzhou', clusterId: 'c-even', clusterName: null, namespace: null, name: null, team: null },
            reason: 'RAM of account 1111 was not read (Forbidden.RAM)',
          },
        ],
        settings: {},
      });
      const f = await http().get(`/v1/scans/${failed.id}`).set(auth);
      expect(f.body).toMatchObject({ status: 'failed', error: 'nothing could be read', coverage: null });
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      const missing = await http().get('/v1/scans/00000000-0000-4000-8000-000000000000').set(auth);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', message: 'scan 00000000-0000-4000-8000-000000000000 not found' });
      const bad = await http().get('/v1/scans/latest').set(auth);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Invalid path: path.id: must be a uuid');
    });
  });

  describe('GET /v1/findings', () => {
    it('defaults to the latest succeeded scan and returns the finding DTO', async () => {
      const res = await http().get('/v1/findings').set(auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ scanId: latest.id, total: 26, limit: 100, offset: 0 });
      const items = res.body.items as FindingDto[];
      expect(items.map((f) => f.severity)).toEqual([...Array(7).fill('critical'), ...Array(18).fill('warning'), 'info']);
      const quota = items.find((f) => f.resource.id === 'lb-00000');
      const source = latestFindings.find((f) => f.resource.id === 'lb-00000');
      expect(quota).toEqual({
        checkId: 'nodeport-overlap',
        severity: 'critical',
        resource: { kind: 'LoadBalancer', id: 'lb-00000', accountId: '1111', regionId: 'cn-hangzhou', clusterId: 'c-even', clusterName: null, namespace: null, name: null, team: null },
        message: source?.message,
        remediation: source?.remediation,
        source: source?.source,
        fingerprint: source?.fingerprint,
        used: 170,
        limit: 200,
        ratio: 0.85,
        figures: null,
        firstSeenAt: '2026-04-08T00:00:00.000Z',
        lastSeenAt: '2026-04-08T00:00:00.000Z',
        status: 'open',
        waiver: null,
      });
      const info = items.find((f) => f.checkId === 'ccm-version');
      expect(info).toMatchObject({ used: null, limit: null, ratio: null, resource: { clusterId: null } });
    });

    it('carries first sighting from the older scan', async () => {
      // lb-00001..2 were reported by both scans with check clb-backend-quota.
      const res = await http().get('/v1/findings?checkId=clb-backend-quota&limit=1000').set(auth);
      const persisting = (res.body.items as FindingDto[]).find((f) => f.resource.id === 'lb-00001');
      expect(persisting).toMatchObject({ firstSeenAt: '2026-04-01T00:00:00.000Z', lastSeenAt: '2026-04-08T00:00:00.000Z' });
    });

    it('filters by scan, check, severity, account and cluster (combined with AND)', async () => {
      const total = async (query: string) => {
        const res = await http().get(`/v1/findings?${query}`).set(auth);
        expect(res.status, query).toBe(200);
        return res.body.total as number;
      };
      const count = (pred: (f: Finding) => boolean) => latestFindings.filter(pred).length;
      expect(await total(`scanId=${older.id}`)).toBe(3);
      expect(await total('checkId=nodeport-overlap')).toBe(count((f) => f.checkId === 'nodeport-overlap'));
      expect(await total('severity=critical')).toBe(count((f) => f.severity === 'critical'));
      expect(await total('accountId=2222')).toBe(count((f) => f.resource.accountId === '2222'));
      expect(await total('clusterId=c-odd')).toBe(count((f) => f.resource.clusterId === 'c-odd'));
      expect(await total('clusterId=c-even&severity=critical&accountId=1111')).toBe(
        count((f) => f.resource.clusterId === 'c-even' && f.severity === 'critical' && f.resource.accountId === '1111'),
      );
      expect(await total('checkId=no-such-check')).toBe(0);
      expect(await total(`scanId=${failed.id}`)).toBe(0);
    });

    it('pages with limit and offset', async () => {
      const all = (await http().get('/v1/findings?limit=1000').set(auth)).body.items as FindingDto[];
      const seen: string[] = [];
      for (let offset = 0; offset < 26; offset += 10) {
        const res = await http().get(`/v1/findings?limit=10&offset=${offset}`).set(auth);
        expect(res.body).toMatchObject({ limit: 10, offset, total: 26 });
        seen.push(...(res.body.items as FindingDto[]).map((f) => f.fingerprint));
      }
      expect(seen).toEqual(all.map((f) => f.fingerprint));
    });

    it('pages by cursor: every finding once in order, total on the first page only, 400 for a bad cursor', async () => {
      const all = (await http().get('/v1/findings?limit=1000').set(auth)).body.items as FindingDto[];
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await http()
          .get(`/v1/findings?limit=10${cursor ? `&cursor=${cursor}` : ''}`)
          .set(auth);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ limit: 10, scanId: latest.id, total: pages === 0 ? 26 : null });
        seen.push(...(res.body.items as FindingDto[]).map((f) => f.fingerprint));
        cursor = res.body.nextCursor as string | null;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(all.map((f) => f.fingerprint));
      const bad = await http().get('/v1/findings?cursor=bm90LWEtY3Vyc29y').set(auth);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('is malformed');
      const first = await http().get('/v1/findings?limit=10').set(auth);
      const both = await http().get(`/v1/findings?limit=10&offset=10&cursor=${first.body.nextCursor as string}`).set(auth);
      expect(both.status).toBe(400);
    });

    it('pages by `after` like every REST list; `cursor` stays its deprecated alias', async () => {
      const byCursor: string[] = [];
      const byAfter: string[] = [];
      for (const [param, out] of [['cursor', byCursor], ['after', byAfter]] as const) {
        let next: string | null = null;
        do {
          const res: request.Response = await http().get(`/v1/findings?limit=7${next ? `&${param}=${next}` : ''}`).set(auth);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          out.push(...(res.body.items as FindingDto[]).map((f) => f.fingerprint));
          next = res.body.nextCursor as string | null;
        } while (next);
      }
      expect(byAfter).toHaveLength(26);
      expect(byAfter).toEqual(byCursor);
      const first = (await http().get('/v1/findings?limit=7').set(auth)).body.nextCursor as string;
      const second = (await http().get(`/v1/findings?limit=7&after=${first}`).set(auth)).body.nextCursor as string;
      expect((await http().get(`/v1/findings?limit=7&after=${first}&cursor=${first}`).set(auth)).status).toBe(200);
      const differ = await http().get(`/v1/findings?limit=7&after=${first}&cursor=${second}`).set(auth);
      expect(differ.status).toBe(400);
      expect(differ.body.message).toContain('query.cursor: give the cursor once, as after');
      expect((await http().get(`/v1/findings?limit=7&offset=7&after=${first}`).set(auth)).status).toBe(400);
    });

    it('rejects invalid filters with 400 and names the parameter', async () => {
      const cases: [string, string][] = [
        ['severity=fatal', 'query.severity: must be one of info, warning, critical'],
        ['scanId=abc', 'query.scanId: must be a uuid'],
        ['limit=5000', 'query.limit: must be an integer from 1 to 1000'],
        ['checkId=', 'query.checkId: must not be empty'],
        ['checkid=typo', 'Unrecognized key: "checkid"'],
      ];
      for (const [query, message] of cases) {
        const res = await http().get(`/v1/findings?${query}`).set(auth);
        expect(res.status, query).toBe(400);
        expect(res.body.error).toBe('VALIDATION_FAILED');
        expect(res.body.message).toContain(message);
      }
    });

    it('answers 404 when scanId names no scan', async () => {
      const res = await http().get('/v1/findings?scanId=00000000-0000-4000-8000-000000000000').set(auth);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'NOT_FOUND' });
    });
  });

  describe('POST /v1/scans', () => {
    it('launches the default or a named source and answers 202 with the scan id', async () => {
      const res = await http().post('/v1/scans').set(auth);
      expect(res.status).toBe(202);
      expect(res.body.scanId).toMatch(/^[0-9a-f-]{36}$/);
      const scan = await http().get(`/v1/scans/${res.body.scanId}`).set(auth);
      expect(scan.body).toMatchObject({ status: 'running', fleetName: 'default' });

      const named = await http().post('/v1/scans').set(auth).send({ source: 'nightly' });
      expect(named.status).toBe(202);
      expect(launcher.requests).toEqual([{}, { source: 'nightly' }]);
    });

    it('rejects unknown sources, unknown fields and malformed JSON with 400', async () => {
      const before = launcher.requests.length;
      const unknown = await http().post('/v1/scans').set(auth).send({ source: 'elsewhere' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toContain('unknown scan source "elsewhere"; configured: default, nightly');
      const path = await http().post('/v1/scans').set(auth).send({ fleetDir: '/etc' });
      expect(path.status).toBe(400);
      expect(path.body.message).toContain('Unrecognized key: "fleetDir"');
      const wrongType = await http().post('/v1/scans').set(auth).send({ source: 7 });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.issues[0].path).toBe('body.source');
      const malformed = await http().post('/v1/scans').set(auth).set('Content-Type', 'application/json').send('{"source":');
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_FAILED' });
      expect(malformed.body.message).toMatch(/^Invalid body: not valid JSON/);
      expect(launcher.requests.length).toBe(before);
    });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await http().get('/v1/nothing').set(auth);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND' });
  });

  describe('OpenAPI', () => {
    it('serves the document with every path, the bearer scheme and the query parameters', async () => {
      const res = await http().get('/openapi.json');
      expect(res.status).toBe(200);
      const doc = res.body as {
        openapi: string;
        paths: Record<string, Record<string, { security?: Record<string, string[]>[]; parameters?: { name: string; in: string; required?: boolean }[] }>>;
        components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, unknown> };
      };
      expect(doc.openapi).toMatch(/^3\./);
      expect(Object.keys(doc.paths).sort()).toEqual(['/healthz', '/metrics', '/readyz', '/v1/admission/{cluster}', '/v1/admission/{cluster}/enforce', '/v1/clusters', '/v1/ecs-instances', '/v1/ecs-instances/{id}', '/v1/findings', '/v1/forecasts/headroom', '/v1/forecasts/trends', '/v1/forecasts/whatif', '/v1/load-balancers', '/v1/load-balancers/{id}', '/v1/nlb-server-groups/unused', '/v1/nlbs', '/v1/nlbs/{id}', '/v1/plans', '/v1/quota-plan', '/v1/quotas', '/v1/reports', '/v1/reports/{id}', '/v1/scans', '/v1/scans/{id}', '/v1/scans/{id}/diff', '/v1/tokens', '/v1/tokens/{id}', '/v1/waivers', '/v1/waivers/{id}', '/v1/whoami']);
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      for (const op of [doc.paths['/v1/scans'].get, doc.paths['/v1/scans'].post, doc.paths['/v1/scans/{id}'].get, doc.paths['/v1/findings'].get]) {
        expect(op.security).toEqual([{ bearer: [] }]);
      }
      expect(doc.paths['/healthz'].get.security).toBeUndefined();
      const params = doc.paths['/v1/findings'].get.parameters ?? [];
      expect(params.map((p) => p.name).sort()).toEqual(['accountId', 'after', 'checkId', 'clusterId', 'cursor', 'limit', 'offset', 'scanId', 'severity', 'team']);
      expect(params.every((p) => p.in === 'query' && p.required === false)).toBe(true);
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['FindingDto', 'FindingPageDto', 'ScanDto', 'ScanPageDto', 'ErrorResponseDto']));
      // The document itself must not reveal the token.
      expect(JSON.stringify(doc)).not.toContain(TOKEN);
    });

    it('serves the Swagger UI', async () => {
      const res = await http().get('/docs');
      expect(res.status).toBe(200);
      expect(res.text).toContain('swagger-ui');
    });
  });
});

describe('REST API without a scan launcher (standalone main.ts)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('answers 503 to POST /v1/scans and an empty page before any scan', async () => {
    const res = await request(app.getHttpServer()).post('/v1/scans').set(auth);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'SCAN_LAUNCH_UNAVAILABLE' });
    const findings = await request(app.getHttpServer()).get('/v1/findings').set(auth);
    expect(findings.body).toEqual({ items: [], total: 0, limit: 100, offset: 0, scanId: null, nextCursor: null });
  });

  it('reports the database down on /healthz after the store closed', async () => {
    await store.close();
    const res = await request(app.getHttpServer()).get('/healthz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', database: 'down' });
    store = await Store.open({ connectionString: db.url });
  });
});
