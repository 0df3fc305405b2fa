/**
 * After retention, a pruned scan's findings say so on every transport: REST answers 410 SCAN_PRUNED with
 * `prunedAt` and the policy, GraphQL an error with `extensions.code` SCAN_PRUNED and the same fields, and the CLI's
 * stored report of that scan one line naming it, exit 2. Never `200 {"items": [], "total": 0}`, the answer of a
 * healthy scan without findings. A scan retention kept whole answers as before.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { DEFAULT_RETENTION_POLICY, Store } from '@app/store';
import { runCliInProcess } from '../cli/cli-run.util';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'pruned-scan-e2e-bootstrap-token-0123456789';
const HOUR = 3_600_000;
/** Three days ago at 05:00 and 06:00 UTC (the 05:00 scan is pruned: only the last of the day stays whole). */
const DAY_START = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 3 * 24 * HOUR;

describe('findings of a pruned scan (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let pruned: string;
  let kept: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    const stored = async (at: number) => {
      const s = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date(at) });
      await store.scans.complete(s.id, { findings: [makeFinding({ resource: { id: `lb-${at}` } })], coverage: [makeCoverage()], quotaUsage: [], finishedAt: new Date(at + 60_000) });
      return s.id;
    };
    pruned = await stored(DAY_START + 5 * HOUR);
    kept = await stored(DAY_START + 6 * HOUR);
    await stored(Date.now() - HOUR);
    const run = await store.retention.run({ now: new Date(), policy: DEFAULT_RETENTION_POLICY, batchRows: 100 });
    expect(run.scansPruned).toBe(1);
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  const policy = {
    rawHours: DEFAULT_RETENTION_POLICY.rawHours,
    dailyDays: DEFAULT_RETENTION_POLICY.dailyDays,
    weeklyWeeks: DEFAULT_RETENTION_POLICY.weeklyWeeks,
    quotaDays: DEFAULT_RETENTION_POLICY.quotaDays,
  };

  it('REST: 410 SCAN_PRUNED with prunedAt and the policy; a scan kept whole answers its findings', async () => {
    const r = await request(app.getHttpServer()).get(`/v1/findings?scanId=${pruned}`).set('Authorization', `Bearer ${TOKEN}`);
    expect(r.status).toBe(410);
    expect(r.body).toMatchObject({ statusCode: 410, error: 'SCAN_PRUNED', scanId: pruned, policy });
    expect(Number.isNaN(Date.parse(r.body.prunedAt as string))).toBe(false);
    expect(r.body.message).toContain('pruned by retention');
    expect(r.body).not.toHaveProperty('items');
    const whole = await request(app.getHttpServer()).get(`/v1/findings?scanId=${kept}`).set('Authorization', `Bearer ${TOKEN}`);
    expect(whole.status).toBe(200);
    expect(whole.body.total).toBe(1);
  });

  it('GraphQL: findings(scanId) is an error SCAN_PRUNED with prunedAt and the policy, not an empty connection', async () => {
    const r = await request(app.getHttpServer())
      .post('/graphql')
      .set({ Authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' })
      .send({ query: `query($s: ID) { findings(scanId: $s, first: 5) { totalCount nodes { fingerprint } } }`, variables: { s: pruned } });
    const body = r.body as { data?: { findings: unknown } | null; errors?: Array<{ message: string; extensions: Record<string, unknown> }> };
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'SCAN_PRUNED', scanId: pruned, policy });
    expect(typeof body.errors?.[0]?.extensions.prunedAt).toBe('string');
    expect(body.data?.findings ?? null).toBeNull();
  });

  it('CLI: the stored report of the pruned scan is one line naming it and the policy, exit 2', async () => {
    const r = await runCliInProcess(['report', '--database-url', db.url, '--until', new Date(DAY_START + 5 * HOUR + 30 * 60_000).toISOString(), '--format', 'json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`scan ${pruned} was pruned by retention`);
    expect(r.stderr).toContain(`every scan kept ${policy.rawHours} h`);
  });
});
