/**
 * Text that Postgres refuses: a NUL or a lone UTF-16 surrogate in any fleet string (a
 * Service name, an Event message, a CLB name) is replaced by a visible marker at the boundary and
 * never fails the fleet's scan; API filters holding a NUL are refused with 400, not 500.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { runScan } from '@app/audit';
import { BAD_SURROGATE_MARKER, NUL_MARKER, sanitizeText } from '@app/domain';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const SAMPLE = join(__dirname, '../../examples/fleets/sample');
const CLUSTER = 'accounts/1987654321098765/regions/cn-hangzhou/clusters/c75849719d4432e7378507410f099fa74';
const TOKEN = 'unstorable-text-token-0123456789';

describe('sanitizeText', () => {
  it.each([
    ['plain', 'plain'],
    ['a\u0000b', `a${NUL_MARKER}b`],
    ['hi\uD800', `hi${BAD_SURROGATE_MARKER}`],
    ['\uDC00lo', `${BAD_SURROGATE_MARKER}lo`],
    ['pair \uD83D\uDE00 kept', 'pair \uD83D\uDE00 kept'],
    ['\uDE00\uD83D', `${BAD_SURROGATE_MARKER}${BAD_SURROGATE_MARKER}`],
  ])('%j -> %j', (input, expected) => {
    expect(sanitizeText(input)).toBe(expected);
  });
});

describe('NUL and lone surrogates in a fleet', () => {
  let db: TestDatabase;
  let store: Store;
  let dir: string;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    dir = mkdtempSync(join(tmpdir(), 'fleet-nul-'));
    cpSync(SAMPLE, dir, { recursive: true });
    const edit = (rel: string, fn: (s: string) => string) => writeFileSync(join(dir, rel), fn(readFileSync(join(dir, rel), 'utf8')));
    // YAML double-quoted "\0" and JSON "\u0000" / "\ud800" are how such characters arrive from APIs.
    edit(`${CLUSTER}/kubernetes/events.yaml`, (s) => s.replace(/message: Ensured load balancer (\S+)/, 'message: "Ensured\\0 load balancer $1"'));
    edit(`${CLUSTER}/kubernetes/services.yaml`, (s) => s.replace(/(\n\s+namespace: )(\S+)/, '$1"$2\\0"'));
    edit('accounts/1987654321098765/regions/cn-hangzhou/load-balancers.json', (s) => s.replace(/"LoadBalancerName": "/, '"LoadBalancerName": "\\ud800\\u0000'));
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the scan succeeds, stores every finding, and shows the markers', async () => {
    const outcome = await runScan({ source: { kind: 'offline', fleetDir: dir }, now: new Date('2026-06-01T00:00:00Z') }, store);
    expect(outcome.scan.status).toBe('succeeded');
    const stored = await store.scans.get(outcome.scan.id);
    expect(stored?.status).toBe('succeeded');
    const findings = await store.findings.forScan(outcome.scan.id, SYSTEM_PRINCIPAL);
    expect(findings.length).toBe(new Set(outcome.findings.map((f) => f.fingerprint)).size);
    const text = JSON.stringify(findings);
    expect(text).toContain(NUL_MARKER);
    expect(text).not.toContain('\\u0000');
  });

  it('a finding carrying raw NUL and lone surrogates is still stored (the store is the last boundary)', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'raw\u0000name' });
    const done = await store.scans.complete(scan.id, {
      findings: [makeFinding({ message: 'bad\u0000message\uD800', figures: { note: 'x\u0000y', list: ['\uDC00'] } as never, resource: { name: 'svc\u0000' } })],
      coverage: [makeCoverage({ message: 'cov\u0000' })],
    });
    expect(done.status).toBe('succeeded');
    const [f] = await store.findings.forScan(scan.id, SYSTEM_PRINCIPAL);
    expect(f.message).toBe(`bad${NUL_MARKER}message${BAD_SURROGATE_MARKER}`);
    expect(f.resource.name).toBe(`svc${NUL_MARKER}`);
    const failed = await store.scans.fail((await store.scans.create({ source: 'live' })).id, 'reason with \u0000 inside');
    expect(failed.error).toBe(`reason with ${NUL_MARKER} inside`);
  });

  it.each(['checkId', 'accountId', 'clusterId'])('GET /v1/findings with a NUL in %s answers 400, not 500', async (param) => {
    const res = await request(app.getHttpServer()).get(`/v1/findings?${param}=%00`).set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('NUL');
  });
});
