/**
 * The OpenAPI document of the API lints clean with Redocly's `recommended` ruleset (@redocly/openapi-core,
 * 0 errors), uses real check ids and enums in its examples, describes the bearer token as opaque, and is the
 * committed apps/api/openapi.json byte for byte (the REST contract, reviewed like apps/api/schema.gql: a change
 * is regenerated with OPENAPI_UPDATE=1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { CHECK_IDS } from '@app/checks';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const OPENAPI_FILE = join(__dirname, '..', '..', 'apps', 'api', 'openapi.json');

describe('OpenAPI document', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let doc: Record<string, unknown>;
  let text: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    app = await createApiApp({ store, token: 'openapi-lint-token-0123456789', scanLauncher: new UnavailableScanLauncher() });
    await app.init();
    const res = await request(app.getHttpServer()).get('/openapi.json');
    doc = res.body as Record<string, unknown>;
    text = res.text;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('lints with 0 errors (Redocly recommended)', async () => {
    // The probes are public on purpose (no token): Redocly's documented exceptions of security-defined.
    const config = await createConfig({
      extends: ['recommended'],
      rules: { 'security-defined': { severity: 'error', exceptions: [{ path: '/healthz' }, { path: '/readyz' }] } },
    } as Parameters<typeof createConfig>[0]);
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((e) => `${e.ruleId}: ${e.message} at ${e.location[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it('uses real check ids (an enum) and an opaque bearer token', () => {
    const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, { enum?: string[]; example?: unknown }> }>; securitySchemes: Record<string, Record<string, string>> });
    const checkId = schemas.schemas.FindingDto.properties.checkId;
    expect(checkId.enum).toEqual([...CHECK_IDS]);
    expect(CHECK_IDS).toContain(checkId.example);
    expect(schemas.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque' });
    expect(JSON.stringify(doc)).not.toContain('JWT');
  });

  it('is the committed apps/api/openapi.json (a change needs review: OPENAPI_UPDATE=1)', () => {
    const pretty = `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
    if (process.env.OPENAPI_UPDATE === '1') writeFileSync(OPENAPI_FILE, pretty);
    expect(pretty, 'the OpenAPI document changed: review it and run OPENAPI_UPDATE=1 npx vitest run test/api/openapi-lint.e2e-spec.ts').toBe(readFileSync(OPENAPI_FILE, 'utf8'));
  });
});
