/**
 * `fleet-audit report` end to end: offline diff of two fleet dumps (no database), a stored
 * report from PostgreSQL, `--out` written atomically, bad input with one line and exit 2. Runs the built
 * CLI (`npx nest build cli`).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportDocument } from '@app/reports';
import { Store } from '@app/store';
import { at, seedThreeWeeks } from '../reports/report-fixture.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

const NOW = '2026-06-01T00:00:00Z';

describe('fleet-audit report (e2e)', () => {
  let db: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fa-report-'));
    db = await createTestDatabase();
    const store = await Store.open({ connectionString: db.url, migrate: true });
    try {
      await seedThreeWeeks(store);
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    await db?.release();
  });

  it('offline: two dumps of the same fleet -> everything persisting; one dump -> everything new', async () => {
    const same = await runCliInProcess(['report', '--fleet', SAMPLE_FLEET, '--previous', SAMPLE_FLEET, '--now', NOW, '--format', 'json']);
    expect(same.stderr).toBe('');
    expect(same.status).toBe(0);
    const doc = JSON.parse(same.stdout) as ReportDocument;
    expect(doc.summary.findings).toBeGreaterThan(10);
    expect(doc.summary.changes).toMatchObject({ new: 0, resolved: 0, persisting: doc.summary.findings });
    expect(doc.quotas.forecast.available).toBe(false);
    const alone = await runCliInProcess(['report', '--fleet', SAMPLE_FLEET, '--now', NOW, '--format', 'csv']);
    const rows = alone.stdout.trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(doc.summary.findings);
    expect(rows.every((r) => r.startsWith('new,'))).toBe(true);
  }, 240_000);

  it('from PostgreSQL, written atomically to --out (the path is printed)', async () => {
    const out = join(dir, 'weekly.md');
    const r = await runCliInProcess(['report', '--database-url', db.url, '--now', at(15).toISOString(), '--format', 'md', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('| new | 1 |');
    expect(md).toContain('| resolved | 1 |');
    expect(md).toContain('team-edge');
  }, 120_000);

  it('bad input: one line, exit 2, nothing written', async () => {
    const out = join(dir, 'never.html');
    const both = await runCliInProcess(['report', '--fleet', SAMPLE_FLEET, '--database-url', db.url, '--out', out]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('exactly one of --database-url');
    const badTime = await runCliInProcess(['report', '--database-url', db.url, '--since', 'last tuesday', '--out', out]);
    expect(badTime.status).toBe(2);
    expect(badTime.stderr.trim().split('\n')).toHaveLength(1);
    expect(badTime.stderr).toContain('--since');
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
