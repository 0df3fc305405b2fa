/**
 * PostgreSQL backup and restore as docs/backup-restore.md writes it: its `sh` commands run as written (a shell, with
 * `DATABASE_URL` the source and `RESTORE_DATABASE_URL` a fresh empty database; `npx fleet-audit` is this checkout's
 * bin/fleet-audit.js), then the API on the restored database serves what it served before (REST scans, findings,
 * waivers, quotas, reports and a report's CSV; GraphQL scans). The report in the source is made by
 * `POST /v1/reports` (operator role: a viewer token is refused, an account outside an operator's scope too).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { BIN, ROOT, runCliAsync, SAMPLE_FLEET } from '../cli/cli-run.util';
import { fencedBlocks } from '../docs/readme-examples.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'backup-restore-e2e-bootstrap-token-01234';
const KEY = 'backup-restore-e2e-token-hash-key-0123456789abcdef';
const DOC = readFileSync(join(ROOT, 'docs', 'backup-restore.md'), 'utf8');

describe('backup and restore of PostgreSQL as documented (e2e)', () => {
  let source: TestDatabase;
  let restored: TestDatabase;
  const stores: Store[] = [];
  const apps: INestApplication[] = [];
  let dir: string;
  let reportId: string;
  let viewer: string;
  let operatorOfOne: string;

  const open = async (url: string) => {
    const store = await Store.open({ connectionString: url, migrate: true, tokenHashKey: KEY });
    const app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
    stores.push(store);
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fa-backup-'));
    source = await createTestDatabase();
    restored = await createTestDatabase({ empty: true });
    const scan = await runCliAsync(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--summary', '--database-url', source.url]);
    expect(scan.status, scan.stderr).toBe(0);
    const waiver = await runCliAsync(
      ['waiver', 'add', '--check', 'LB_ORPHANED', '--account', '1234567890123456', '--resource', '*', '--owner', 'team-x', '--reason', 'kept through the backup test', '--category', 'accepted-risk'],
      { DATABASE_URL: source.url },
    );
    expect(waiver.status, waiver.stderr).toBe(0);
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const s of stores) await s.close();
    await source?.release();
    await restored?.release();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('POST /v1/reports builds a report now: operator role, within the token scope; 201 with Location', async () => {
    const app = await open(source.url);
    const made = async (role: 'viewer' | 'operator', accounts?: string[]) => (await stores[0]!.apiTokens.create({ role, ...(accounts ? { accounts } : {}), createdBy: 'test' })).token;
    viewer = await made('viewer');
    operatorOfOne = await made('operator', ['1234567890123456']);
    const post = (token: string, body?: object) => request(app.getHttpServer()).post('/v1/reports').set('Authorization', `Bearer ${token}`).send(body ?? {});
    expect((await post(viewer)).status).toBe(403);
    const foreign = await post(operatorOfOne, { accounts: ['1987654321098765'] });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain('1987654321098765');
    expect((await post(BOOTSTRAP, { accounts: ['not-digits'] })).status).toBe(400);
    const r = await post(BOOTSTRAP, { title: 'On demand' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ status: 'ready', scopeKey: 'all' });
    expect(r.headers.location).toBe(`/v1/reports/${r.body.id as string}`);
    reportId = r.body.id as string;
    const html = await request(app.getHttpServer()).get(`/v1/reports/${reportId}?format=html`).set('Authorization', `Bearer ${BOOTSTRAP}`);
    expect(html.status).toBe(200);
    expect(html.text).toContain('On demand');
    // A scoped operator's report covers its own accounts, and it sees it.
    const own = await post(operatorOfOne);
    expect(own.status).toBe(201);
    expect(own.body.scopeKey).toBe('1234567890123456');
  });

  it('the documented pg_dump / pg_restore / migrate sequence gives a database the API serves the same from', async () => {
    const blocks = fencedBlocks(DOC).filter((b) => b.lang === 'sh');
    const commands = blocks.flatMap((b) => b.text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#')));
    expect(commands.map((c) => c.split(' ')[0])).toEqual(['pg_dump', 'pg_restore', 'npx']);
    const env = { ...process.env, DATABASE_URL: source.url, RESTORE_DATABASE_URL: restored.url };
    for (const line of commands) {
      // `npx fleet-audit` of the doc is this checkout's CLI (what npx runs in a clone after npm install).
      const command = line.replace(/^npx fleet-audit /, `"${process.execPath}" "${BIN}" `);
      execFileSync('sh', ['-c', command], { cwd: dir, env, stdio: 'pipe', timeout: 120_000 });
    }
    const before = apps[0]!;
    const after = await open(restored.url);
    const answers = async (app: INestApplication) => {
      const get = async (path: string) => {
        const r = await request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${BOOTSTRAP}`);
        expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200);
        return r.headers['content-type']?.includes('json') ? (r.body as unknown) : r.text;
      };
      const gql = await request(app.getHttpServer())
        .post('/graphql')
        .set({ Authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' })
        .send({ query: '{ scans(first: 5) { totalCount nodes { id status } } }' });
      return {
        scans: await get('/v1/scans'),
        findings: await get('/v1/findings?limit=1000'),
        waivers: await get('/v1/waivers'),
        quotas: await get('/v1/quotas?limit=1000'),
        reports: await get('/v1/reports'),
        report: await get(`/v1/reports/${reportId}?format=csv`),
        graphql: gql.body as unknown,
      };
    };
    const a = await answers(before);
    expect((a.findings as { total: number }).total).toBeGreaterThan(100);
    expect((a.reports as { total: number }).total).toBe(2);
    expect(await answers(after)).toEqual(a);
    // The tokens came along (hashes only): the viewer token still reads, still cannot build a report.
    expect((await request(after.getHttpServer()).get('/v1/scans').set('Authorization', `Bearer ${viewer}`)).status).toBe(200);
    expect((await request(after.getHttpServer()).post('/v1/reports').set('Authorization', `Bearer ${viewer}`).send({})).status).toBe(403);
  });
});
